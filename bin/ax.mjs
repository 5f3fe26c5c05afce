#!/usr/bin/env node
// The `ax` command. The engine is TypeScript run through tsx, so a clean checkout needs no build.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../engine/hosts/cli/main.ts');
await main(process.argv);

// Bundles the `ax` CLI into dist/ax.mjs so that each command starts without compiling
// TypeScript (bin/ax.mjs falls back to tsx when the bundle is missing or older than the source).
import fs from 'node:fs';
import { build } from 'esbuild';

await build({
  entryPoints: ['engine/hosts/cli/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  outfile: 'dist/ax.mjs',
  logLevel: 'warning',
});

// The task launcher is forked as a file of its own (plain JavaScript, found beside the bundle).
fs.copyFileSync('engine/adapters/process/launcher-main.mjs', 'dist/launcher-main.mjs');

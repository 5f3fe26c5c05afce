// Bundles the `ax` CLI into dist/ax.mjs so that each command starts without compiling
// TypeScript (bin/ax.mjs falls back to tsx when the bundle is missing or older than the source),
// and the engine host into dist/engine-host.mjs.
import fs from 'node:fs';
import { build } from 'esbuild';

// Split: what only team mode or `ax migrate` uses (mysql2, ioredis: about 20 MB of heap) is
// in chunks loaded on first use, so a solo engine never loads it. The chunks sit beside ax.mjs,
// where the code that forks the launcher looks for it, whichever chunk that code lands in.
fs.mkdirSync('dist', { recursive: true });
for (const f of fs.readdirSync('dist')) if (f.endsWith('.mjs')) fs.rmSync(`dist/${f}`);
await build({
  // ax: the CLI; engine-host: the engine behind a message port, for the desktop app's utility
  // process (engine/hosts/port/engine-host.ts). They share chunks.
  entryPoints: { ax: 'engine/hosts/cli/main.ts', 'engine-host': 'engine/hosts/port/engine-host.ts' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: '[name]-[hash]',
  logLevel: 'warning',
});

// The task launcher is forked as a file of its own (plain JavaScript, found beside the bundle).
fs.copyFileSync('engine/adapters/process/launcher-main.mjs', 'dist/launcher-main.mjs');

// Bundles the desktop shell: electron/main.ts → dist/electron/main.cjs, electron/preload.ts →
// dist/electron/preload.cjs. The engine host it starts is dist/engine-host.mjs, built by
// build-cli.mjs (run that first). The preload runs sandboxed: CommonJS, and no module but
// 'electron' may be required at run time, so everything else is inlined (checked below).
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const outdir = process.argv[2] ?? 'dist/electron';
const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8'));
fs.rmSync(outdir, { recursive: true, force: true });

const common = {
  bundle: true,
  format: 'cjs',
  target: 'node20',
  external: ['electron'],
  logLevel: 'warning',
  legalComments: 'none',
};
await Promise.all([
  // Main: node_modules stay outside the bundle (the app's package ships them).
  build({
    ...common,
    entryPoints: ['electron/main.ts'],
    outfile: path.join(outdir, 'main.cjs'),
    platform: 'node',
    packages: 'external',
  }),
  build({
    ...common,
    entryPoints: ['electron/preload.ts'],
    outfile: path.join(outdir, 'preload.cjs'),
    platform: 'browser',
    define: { __AX_VERSION__: JSON.stringify(version) },
  }),
]);

const preload = fs.readFileSync(path.join(outdir, 'preload.cjs'), 'utf8');
const required = [...preload.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)]
  .map((m) => m[1])
  .filter((name) => name !== 'electron');
if (required.length > 0)
  throw new Error(`the sandboxed preload may require only 'electron', but requires: ${required.join(', ')}`);

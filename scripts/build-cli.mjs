// Bundles the `ax` CLI into dist/ax.mjs so that each command starts without compiling
// TypeScript (bin/ax.mjs falls back to tsx when the bundle is missing or older than the source).
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

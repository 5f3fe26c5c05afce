#!/usr/bin/env node
// The `ax` command. Runs the bundle (dist/ax.mjs, built by `npm install`) when it is up to date
// with engine/, else the TypeScript sources through tsx, so a fresh edit never runs stale code.
// The packaged desktop app ships no engine/ sources: there the bundle is all there is.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'ax.mjs');

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  if (!fs.existsSync(path.join(root, 'engine'))) return true;
  try {
    return fs.statSync(bundle).mtimeMs >= newestSource(path.join(root, 'engine'));
  } catch {
    return false;
  }
}

let main;
if (bundleIsFresh()) {
  ({ main } = await import(pathToFileURL(bundle).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(pathToFileURL(path.join(root, 'engine/hosts/cli/main.ts')).href));
}
await main(process.argv);

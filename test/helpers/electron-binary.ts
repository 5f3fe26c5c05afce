// Where Electron's binary is, or why it is not here. Never require('electron') to find out: in
// Node it returns the binary's path, but without the binary it tries to download it.
import fs from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export function electronBinary(): { binary: string } | { reason: string } {
  const pkg = path.join(REPO, 'node_modules', 'electron');
  const pathFile = path.join(pkg, 'path.txt');
  if (!fs.existsSync(pathFile))
    return {
      reason: "Electron's binary is not installed (node_modules/electron/path.txt is absent: no download here)",
    };
  const binary = path.join(pkg, 'dist', fs.readFileSync(pathFile, 'utf8').trim());
  if (!fs.existsSync(binary)) return { reason: `Electron's binary is missing at ${binary}` };
  const main = path.join(REPO, 'dist', 'electron', 'main.cjs');
  if (!fs.existsSync(main) || !fs.existsSync(path.join(REPO, 'dist', 'ui', 'index.html')))
    return { reason: 'the desktop app is not built (npm run build)' };
  return { binary };
}

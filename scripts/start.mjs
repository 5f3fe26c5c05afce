// `npm start`: the desktop app when Electron's binary is installed, else the engine and the UI in
// the browser (`ax serve`, which prints the sign-in link), after one line saying why. Arguments
// after `npm start --` go to whichever starts (e.g. --data-dir DIR).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** The Electron binary's path, or why there is none. Never require('electron') here: without the
 *  binary it tries to download it. */
function electronBinary() {
  const pkg = path.join(root, 'node_modules', 'electron');
  if (!fs.existsSync(path.join(pkg, 'package.json'))) return { reason: 'the electron package is not installed' };
  const pathFile = path.join(pkg, 'path.txt');
  if (!fs.existsSync(pathFile))
    return {
      reason: "Electron's binary was not downloaded (no access to its download, or ELECTRON_SKIP_BINARY_DOWNLOAD set)",
    };
  const binary = path.join(pkg, 'dist', fs.readFileSync(pathFile, 'utf8').trim());
  return fs.existsSync(binary) ? { binary } : { reason: `Electron's binary is missing (${binary})` };
}

function run(command, commandArgs) {
  const child = spawn(command, commandArgs, { stdio: 'inherit', cwd: root });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const found = electronBinary();
const shellBuilt = fs.existsSync(path.join(root, 'dist', 'electron', 'main.cjs'));
if (found.binary && shellBuilt) {
  // The app reads --data-dir=DIR and --local-api[=PORT] from its command line (with '=').
  run(found.binary, [root, ...args]);
} else {
  const why = found.reason ?? 'the desktop shell is not built (npm run build)';
  console.error(`ax: no desktop app here: ${why}; starting the engine and the UI in the browser instead (ax serve).`);
  run(process.execPath, [path.join(root, 'bin', 'ax.mjs'), 'serve', ...args]);
}

// `npm run dist`: packages the desktop app with electron-builder (electron-builder.yml).
//   1. npm run build: dist/ (the CLI, the engine host, the shell, the UI);
//   2. electron-builder, with any arguments given (e.g. `npm run dist -- --linux deb`).
// Nothing is rebuilt for Electron: the app's engine uses Node's built-in node:sqlite under
// Electron (engine/adapters/sql/sqlite-driver.ts) and carries no native addon, so no Electron
// headers are needed; the network is needed only for Electron's zip of each target platform.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const bin = (name) => path.join('node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);

function step(title, command, args) {
  console.log(`dist: ${title}`);
  const result = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0)
    throw new Error(`${title} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
}

/**
 * electron-builder refuses a deb without the project's homepage and a maintainer e-mail (the
 * package's Homepage and Maintainer fields); said before anything is built or downloaded. Who
 * maintains the package is the publisher's to write, so nothing is made up here.
 */
function debMetadataProblem(args) {
  const TARGETS = /^(AppImage|deb|rpm|snap|pacman|apk|freebsd|p5p|flatpak|dir|zip|7z|tar\.(gz|xz|bz2|lz))$/i;
  const linuxDefaults =
    (args.length === 0 && process.platform === 'linux') || args.includes('--linux') || args.includes('-l');
  const deb = args.includes('deb') || (linuxDefaults && !args.some((a) => TARGETS.test(a)));
  if (!deb) return undefined;
  const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
  const yml = fs.existsSync('electron-builder.yml') ? fs.readFileSync('electron-builder.yml', 'utf8') : '';
  const email = typeof pkg.author === 'object' ? pkg.author?.email : /<[^>]+@[^>]+>/.test(pkg.author ?? '');
  const missing = [
    !pkg.homepage && !pkg.repository && '"homepage": "https://…"',
    !email && !/^\s+maintainer:/m.test(yml) && '"author": { "name": "…", "email": "…" }',
  ].filter(Boolean);
  if (missing.length === 0) return undefined;
  return `the deb package needs the project's homepage and a maintainer e-mail: add ${missing.join(' and ')} to package.json (or linux.maintainer to electron-builder.yml), or build the other targets only, e.g. npm run dist -- --linux AppImage`;
}

const problem = debMetadataProblem(process.argv.slice(2));
if (problem) {
  console.error(`dist: ${problem}`);
  process.exit(2);
}

try {
  step('building', process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build']);
  step('packaging', bin('electron-builder'), ['--config', 'electron-builder.yml', ...process.argv.slice(2)]);
  console.log('dist: done, the packages are in out/');
} catch (err) {
  console.error(`dist: ${err.message}`);
  process.exitCode = 1;
}

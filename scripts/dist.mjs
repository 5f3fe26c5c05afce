// `npm run dist`: packages the desktop app with electron-builder (electron-builder.yml).
//   1. npm run build: dist/ (the CLI, the engine host, the shell, the UI);
//   2. better-sqlite3 rebuilt for Electron's ABI (electron-builder install-app-deps): the
//      packaged app loads it under Electron, whose ABI differs from Node's;
//   3. electron-builder, with any arguments given (e.g. `npm run dist -- --linux deb`);
//   4. Node's build of better-sqlite3 put back, whatever happened, so `npm test` and `ax` keep
//      working in this checkout.
// Only here: `npm install` and `npm test` never rebuild for Electron. Needs the network (Electron's
// headers and its zip for each target platform).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const RELEASE = path.join('node_modules', 'better-sqlite3', 'build', 'Release');
const NATIVE = path.join(RELEASE, 'better_sqlite3.node');
// @electron/rebuild's marker "built for Electron": left behind, the next dist would skip the
// rebuild and package Node's build.
const REBUILD_MARKER = path.join(RELEASE, '.forge-meta');
const bin = (name) => path.join('node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);

function step(title, command, args) {
  console.log(`dist: ${title}`);
  const result = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) throw new Error(`${title} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
}

/**
 * electron-builder refuses a deb without the project's homepage and a maintainer e-mail (the
 * package's Homepage and Maintainer fields); said before anything is built or downloaded. Who
 * maintains the package is the publisher's to write, so nothing is made up here.
 */
function debMetadataProblem(args) {
  const TARGETS = /^(AppImage|deb|rpm|snap|pacman|apk|freebsd|p5p|flatpak|dir|zip|7z|tar\.(gz|xz|bz2|lz))$/i;
  const linuxDefaults = (args.length === 0 && process.platform === 'linux') || args.includes('--linux') || args.includes('-l');
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

let saved;
let failed = false;
try {
  step('building', process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build']);
  if (fs.existsSync(NATIVE)) {
    saved = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ax-dist-')), 'better_sqlite3.node');
    fs.copyFileSync(NATIVE, saved);
  }
  step("rebuilding better-sqlite3 for Electron's ABI", bin('electron-builder'), ['install-app-deps']);
  step('packaging', bin('electron-builder'), ['--config', 'electron-builder.yml', ...process.argv.slice(2)]);
  console.log('dist: done, the packages are in out/');
} catch (err) {
  failed = true;
  console.error(`dist: ${err.message}`);
} finally {
  if (saved) {
    fs.mkdirSync(path.dirname(NATIVE), { recursive: true });
    fs.copyFileSync(saved, NATIVE);
    fs.rmSync(REBUILD_MARKER, { force: true });
    fs.rmSync(path.dirname(saved), { recursive: true, force: true });
    console.log("dist: put Node's build of better-sqlite3 back (for npm test and ax in this checkout)");
  }
}
process.exitCode = failed ? 1 : 0;

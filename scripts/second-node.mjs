// The second runtime: Node 24, the Node of Electron's utility process, run beside the machine's
// own Node with the project's node_modules exactly as npm installed them under the machine's Node.
//   node scripts/second-node.mjs fetch   brings Node 24 from the npm registry (npm pack of
//                                        node-<platform>-<arch>@24) into a cache outside the
//                                        checkout; never installed globally, never on PATH
//   node scripts/second-node.mjs path    prints its bin/node (exit 1 when it is absent)
//   node scripts/second-node.mjs test    runs the second-runtime lane (vitest.second-node.config.ts)
//                                        under it; off CI an absent Node 24 is a skip with the
//                                        reason, under CI=true a failure
// AX_SECOND_NODE=/path/to/node uses that binary instead; AX_SECOND_NODE_CACHE moves the cache.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAJOR = 24;
const PLATFORM = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform];
const PACKAGE = `node-${PLATFORM}-${process.arch}`;
const cacheRoot =
  process.env.AX_SECOND_NODE_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'ax-scheduler');
const home = path.join(cacheRoot, `node${MAJOR}`);
const binary = path.join(home, 'package', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');

function versionOf(node) {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** The second Node's path, or undefined with the reason it is not there. */
export function secondNode() {
  const given = process.env.AX_SECOND_NODE;
  const node = given || binary;
  const version = fs.existsSync(node) ? versionOf(node) : undefined;
  if (!version) {
    return {
      reason: given
        ? `AX_SECOND_NODE=${given} does not run`
        : `Node ${MAJOR} is not in ${home}: run "node scripts/second-node.mjs fetch" (needs the npm registry)`,
    };
  }
  if (!version.startsWith(`v${MAJOR}.`) && !given)
    return { reason: `${node} is ${version}, not Node ${MAJOR}: remove ${home} and fetch again` };
  return { node, version };
}

function fetchNode() {
  if (secondNode().node) return secondNode();
  if (!PLATFORM) throw new Error(`no Node ${MAJOR} package on the npm registry for ${process.platform}`);
  fs.rmSync(home, { recursive: true, force: true });
  fs.mkdirSync(home, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  console.log(`second-node: npm pack ${PACKAGE}@${MAJOR} into ${home}`);
  const packed = execFileSync(npm, ['pack', `${PACKAGE}@${MAJOR}`, '--silent'], {
    cwd: home,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', packed], { cwd: home });
  fs.rmSync(path.join(home, packed), { force: true });
  const found = secondNode();
  if (!found.node) throw new Error(found.reason);
  return found;
}

function runLane() {
  const found = secondNode();
  if (!found.node) {
    if (process.env.CI === 'true') {
      console.error(`second-node: ${found.reason} (CI=true: the second-runtime lane must run)`);
      return 1;
    }
    console.log(`second-node: lane skipped: ${found.reason}`);
    return 0;
  }
  console.log(
    `second-node: the second-runtime lane on ${found.version} (${found.node}); node_modules as installed under ${process.version}`,
  );
  const vitest = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  // `test -- FILE` as npm scripts pass it: vitest takes what follows a `--` as no filter at all
  const args = process.argv.slice(3).filter((a, i) => !(i === 0 && a === '--'));
  const run = spawnSync(found.node, [vitest, 'run', '--config', 'vitest.second-node.config.ts', ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, AX_SECOND_NODE_LANE: '1', AX_MACHINE_NODE: process.execPath },
  });
  return run.status ?? 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const command = process.argv[2];
  if (command === 'fetch') console.log(fetchNode().node);
  else if (command === 'path') {
    const found = secondNode();
    if (found.node) console.log(found.node);
    else {
      console.error(found.reason);
      process.exitCode = 1;
    }
  } else if (command === 'test') process.exitCode = runLane();
  else {
    console.error('usage: node scripts/second-node.mjs fetch | path | test [vitest args]');
    process.exitCode = 2;
  }
}

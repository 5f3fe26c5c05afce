// A fresh `npm ci` run by this Node (24) on a machine where better-sqlite3 can be neither
// downloaded nor built — no network for its prebuilt binary here, and node-gyp pointed at an
// empty headers folder — succeeds, since better-sqlite3 is optional where node:sqlite exists;
// `ax run FILE --wait` then works in that install.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/files.ts';

let root: string;

/** npm's own CLI script, to run it with this Node (npm ci's lifecycle scripts then run on it too). */
function npmCli(): string {
  const machineNode = process.env.AX_MACHINE_NODE ?? 'node';
  const prefix = execFileSync(machineNode, [path.join(path.dirname(machineNode), 'npm'), 'prefix', '-g'], {
    encoding: 'utf8',
  }).trim();
  const cli = path.join(prefix, 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (!fs.existsSync(cli)) throw new Error(`npm's CLI is not at ${cli}`);
  return cli;
}

beforeAll(() => {
  root = tempDir('ax-fresh-install-');
});

// A whole fresh node_modules goes: over two minutes on a loaded 2-core machine, past the 60 s default.
afterAll(() => fs.promises.rm(root, { recursive: true, force: true }), 300_000);

describe('a fresh install under this Node', () => {
  it('npm ci succeeds without better-sqlite3, and ax run --wait works there', () => {
    const checkout = path.join(root, 'checkout');
    // The checkout's files as git has them (tracked, and new ones not ignored): a fresh clone.
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: REPO,
      encoding: 'utf8',
    })
      .split('\0')
      .filter(Boolean);
    for (const f of files) {
      if (!fs.existsSync(path.join(REPO, f))) continue;
      fs.mkdirSync(path.dirname(path.join(checkout, f)), { recursive: true });
      fs.copyFileSync(path.join(REPO, f), path.join(checkout, f));
    }
    const noHeaders = fs.mkdtempSync(path.join(root, 'no-headers-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
      npm_config_nodedir: noHeaders,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
    const install = spawnSync(process.execPath, [npmCli(), 'ci'], {
      cwd: checkout,
      env,
      encoding: 'utf8',
      timeout: 600_000,
    });
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
    // It really could not be built: the optional dependency was dropped.
    expect(
      fs.existsSync(path.join(checkout, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')),
    ).toBe(false);
    expect(fs.existsSync(path.join(checkout, 'dist', 'ax.mjs')), 'npm ci built the CLI').toBe(true);

    fs.writeFileSync(
      path.join(root, 'first.yaml'),
      'workflow: first\ntasks:\n  hello:\n    command: echo hello from a fresh install\n  after:\n    command: echo after\n    upstream: [hello]\n',
    );
    const axEnv: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) axEnv[k] = v;
    axEnv.AX_DATA_DIR = path.join(root, 'data');
    const run = spawnSync(
      process.execPath,
      [path.join(checkout, 'bin', 'ax.mjs'), 'run', path.join(root, 'first.yaml'), '--wait'],
      { env: axEnv, encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/run #1 SUCCESS/);
    const logs = spawnSync(process.execPath, [path.join(checkout, 'bin', 'ax.mjs'), 'logs', '1', 'hello'], {
      env: axEnv,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(logs.stdout).toContain('hello from a fresh install');
  }, 900_000);
});

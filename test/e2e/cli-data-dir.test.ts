// A data dir a person broke: ax.db deleted, replaced or overwritten under a running
// `ax serve`, and a data dir ax cannot use at all (read-only files, not a database, from a newer
// AX, locked by another program, a file where the dir should be). Each is done for real, to real
// `ax` processes; each must end in one line on stderr naming the file and the fix, a documented
// exit code, and never a stack trace or a "success" for work that was not kept.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openSqlite } from '../../engine/adapters/sql/sqlite-driver.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ax, type AxResult, killAllAx } from '../helpers/ax.ts';
import { REPO, tempDir, writeFile } from '../helpers/files.ts';
import { killStrays } from '../helpers/processes.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

let root: string;
let n = 0;

beforeAll(() => {
  root = tempDir('ax-cli-data-dir-');
  // Another user (below) must reach the data dirs inside.
  fs.chmodSync(root, 0o755);
});

afterEach(async () => {
  await killAllAx();
  killStrays(root);
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** A fresh data dir (not created yet) and a directory for workflow files beside it. */
function fresh(name: string): { dataDir: string; db: string; files: string } {
  const files = path.join(root, `${name}-${++n}`);
  fs.mkdirSync(files, { mode: 0o755 });
  const dataDir = path.join(files, 'data');
  return { dataDir, db: path.join(dataDir, 'ax.db'), files };
}

/** Exactly one line on stderr, this exit code, and nothing of a stack trace. */
function expectOneLine(r: AxResult, code: number, line: string): void {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).toBe(`${line}\n`);
  expect(r.code).toBe(code);
}

const hello = (text: string) => `workflow: hello\ntasks:\n  say:\n    command: echo ${text}\n`;

describe('ax.db deleted or replaced under a running ax serve', () => {
  /**
   * A workflow whose task waits for a file, so the engine is still draining it (and its API
   * still answering) while the test tries to apply and trigger.
   */
  async function serveWithBlockedTask(name: string) {
    const d = fresh(name);
    const started = path.join(d.files, 'started');
    const release = path.join(d.files, 'release');
    writeFile(
      d.files,
      'block.yaml',
      `workflow: block\non_event: go\ntasks:\n  wait:\n    command: 'touch "${started}"; while [ ! -f "${release}" ]; do sleep 0.1; done; echo released'\n`,
    );
    writeFile(d.files, 'hello.yaml', hello('hi'));
    const opts = { dataDir: d.dataDir, cwd: d.files };
    expect((await ax(['apply', 'block.yaml'], opts)).code).toBe(0);
    const serve = await startServe(opts);
    expect((await ax(['run', 'block'], opts)).code).toBe(0);
    await waitFor(() => fs.existsSync(started), { timeoutMs: 20_000, message: 'the task did not start' });
    // The task may touch its file before the engine has recorded it RUNNING with its pid (a
    // group commit a turn later): a file removed in between refuses that write, and the
    // engine then stops the task instead of letting it finish. Wait for the record.
    await waitFor(
      async () => {
        const shown = await ax(['runs', '1', '--json'], opts);
        const instance =
          shown.code === 0
            ? (JSON.parse(shown.stdout) as { instances: { state: string; pid?: number }[] }).instances[0]
            : undefined;
        return instance?.state === 'RUNNING' && instance.pid !== undefined;
      },
      { timeoutMs: 20_000, message: 'the task was not recorded RUNNING with its pid' },
    );
    return { ...d, opts, serve, release };
  }

  /** apply and trigger through the API of the engine that lost its file: refused, nothing claimed. */
  async function expectWritesRefused(opts: { dataDir: string; cwd: string }, lost: string): Promise<void> {
    const applied = await ax(['apply', 'hello.yaml'], opts);
    expectOneLine(applied, 6, `ax: ${lost}`);
    expect(applied.stdout).toBe('');
    const triggered = await ax(['trigger', 'go'], opts);
    expectOneLine(triggered, 6, `ax: ${lost}`);
    expect(triggered.stdout).toBe('');
  }

  it('rm ax.db: the engine says so, refuses apply and trigger, prints the outcome it cannot record, and exits 6', async () => {
    const { db, opts, serve, release } = await serveWithBlockedTask('deleted');
    fs.rmSync(db);
    const lost =
      `the database ${db} was deleted while the engine ran: this engine takes no more work and records nothing more; ` +
      'restarting it (ax serve) starts a new, empty database there (put the file back first to keep its workflows and history)';
    // Found by the timer (within seconds) or by the first write, whichever comes first.
    await serve.waitForLine(new RegExp(`^ax: the database ${db} was deleted while the engine ran`), 10_000, 'stderr');
    await expectWritesRefused(opts, lost);
    fs.writeFileSync(release, '');
    await serve.waitForLine(
      /^ax: task wait of run #1 \(instance 1, attempt 1\) ended SUCCESS \(exit code 0\), NOT recorded: the database /,
      20_000,
      'stderr',
    );
    const end = await serve.result(40_000);
    expect(end.code).toBe(6);
    expect(end.stderr).toContain(`ax: ${lost}; running tasks may finish for up to 30s, their outcomes printed here\n`);
    expect(end.stderr).not.toMatch(/^\s+at /m);
    expect(end.stdout).not.toMatch(/SUCCESS|stopped/);
  });

  it('another database moved over ax.db: the engine says it was replaced, refuses writes, and a restart opens the new file', async () => {
    const { db, files, opts, serve, release } = await serveWithBlockedTask('replaced');
    const other = fresh('other');
    writeFile(other.files, 'other.yaml', 'workflow: other\ntasks:\n  t:\n    command: "true"\n');
    expect((await ax(['apply', 'other.yaml'], { dataDir: other.dataDir, cwd: other.files })).code).toBe(0);
    fs.renameSync(other.db, path.join(files, 'data', 'moved-in.db'));
    fs.renameSync(path.join(files, 'data', 'moved-in.db'), db);
    const lost = `the database ${db} was replaced by another file while the engine ran: this engine takes no more work and records nothing more; restarting it (ax serve) opens the file that is there now`;
    await serve.waitForLine(new RegExp(`^ax: the database ${db} was replaced by another file`), 10_000, 'stderr');
    await expectWritesRefused(opts, lost);
    fs.writeFileSync(release, '');
    expect((await serve.result(40_000)).code).toBe(6);
    // The engine is gone: the file there now is the one used.
    const listed = await ax(['ls'], opts);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^other\b/m);
    expect(listed.stdout).not.toMatch(/^block\b/m);
  });

  it('ax.db overwritten in place (same inode) with garbage: found by its header on the timer; the engine stops with exit 6', async () => {
    const d = fresh('overwritten');
    const opts = { dataDir: d.dataDir, cwd: d.files };
    writeFile(d.files, 'hello.yaml', hello('hi'));
    expect((await ax(['apply', 'hello.yaml'], opts)).code).toBe(0);
    const serve = await startServe(opts);
    const inode = fs.statSync(d.db).ino;
    fs.writeFileSync(d.db, Buffer.alloc(8192, 0x5a));
    expect(fs.statSync(d.db).ino).toBe(inode);
    await serve.waitForLine(
      new RegExp(`^ax: the database ${d.db} was overwritten \\(it is no SQLite file any more\\) while the engine ran`),
      10_000,
      'stderr',
    );
    const end = await serve.result(40_000);
    expect(end.code).toBe(6);
    expect(end.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('a data dir ax cannot use: one line with the fix, no stack trace', () => {
  it('ax.db that is not a database: every command that opens it says so, exit 6', async () => {
    const d = fresh('garbage');
    fs.mkdirSync(d.dataDir, { mode: 0o700 });
    fs.writeFileSync(d.db, 'these are my notes, not a database\n'.repeat(200));
    writeFile(d.files, 'hello.yaml', hello('hi'));
    const opts = { dataDir: d.dataDir, cwd: d.files };
    const line = `ax: ${d.db} is not an AX database (not an SQLite file, or damaged): restore it from a backup, or move it away and ax starts a new, empty one`;
    for (const args of [['runs'], ['apply', 'hello.yaml'], ['serve']]) expectOneLine(await ax(args, opts), 6, line);
    // The file is left as it was: nothing of it is overwritten by a new database.
    expect(fs.readFileSync(d.db, 'utf8')).toMatch(/^these are my notes/);
  });

  it('ax.db from a newer AX (a schema migration this one does not know): exit 6, the file untouched', async () => {
    const d = fresh('newer');
    writeFile(d.files, 'hello.yaml', hello('hi'));
    const opts = { dataDir: d.dataDir, cwd: d.files };
    expect((await ax(['apply', 'hello.yaml'], opts)).code).toBe(0);
    const db = openSqlite(d.db);
    db.prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)').run([
      '0099_from_the_future',
      new Date().toISOString(),
    ]);
    db.close();
    const line = `ax: ${d.db} was written by a newer AX (schema 0099_from_the_future, unknown to this one): upgrade ax to at least the version that wrote it, or use another database`;
    for (const args of [['runs'], ['serve']]) expectOneLine(await ax(args, opts), 6, line);
    const after = openSqlite(d.db);
    expect(
      (after.prepare('SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1').get() as { name: string }).name,
    ).toBe('0099_from_the_future');
    after.close();
  });

  it('ax.db locked by another program holding a write transaction: exit 4 with the fix; once it lets go, apply works', async () => {
    const d = fresh('locked');
    writeFile(d.files, 'hello.yaml', hello('hi'));
    const opts = { dataDir: d.dataDir, cwd: d.files };
    expect((await ax(['apply', 'hello.yaml'], opts)).code).toBe(0);
    writeFile(d.files, 'hello.yaml', hello('changed'));
    const other = openSqlite(d.db);
    try {
      other.exec('BEGIN IMMEDIATE');
      other.prepare("INSERT INTO audit_log (at, actor, action, object) VALUES (1, 'test', 'hold', 'lock')").run();
      const r = await ax(['apply', 'hello.yaml'], opts);
      expectOneLine(
        r,
        4,
        `ax: ${d.db} is locked by another program (an sqlite3 shell, a backup?) holding a write transaction: close it, then try again`,
      );
      expect(r.stdout).toBe('');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const after = await ax(['apply', 'hello.yaml'], opts);
    expect(after.stdout).toBe('applied hello (version 2)\n');
    expect(after.code).toBe(0);
  });

  it('--data-dir (or AX_DATA_DIR) that is a file: exit 6 naming it', async () => {
    const d = fresh('file');
    const file = writeFile(d.files, 'not-a-dir', 'x');
    const line = `ax: the data dir ${file} is a file, not a directory: use another --data-dir (or AX_DATA_DIR), or move the file away`;
    for (const args of [['runs'], ['serve'], ['--data-dir', file, 'ls']])
      expectOneLine(await ax(args, { dataDir: file, cwd: d.files }), 6, line);
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });
});

/**
 * Read-only files need a user the permissions apply to: root writes through chmod 0444. Run as
 * root, the commands run as user nobody (setpriv) on a data dir nobody owns; run as anyone else,
 * as that user.
 */
const asRoot = process.getuid?.() === 0;
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));
const NOBODY = 65534;
const readOnlyReason =
  process.platform === 'win32'
    ? 'file modes are POSIX'
    : asRoot && !setpriv
      ? 'running as root without setpriv, no other user to run ax as'
      : undefined;

function asUser(command: string[]): string[] {
  return asRoot
    ? [setpriv as string, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...command]
    : command;
}

/** `ax ARGS` as the test user (nobody when the suite runs as root). */
async function axAsUser(args: string[], dataDir: string, cwd: string): Promise<AxResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  const [cmd, ...rest] = asUser([process.execPath, path.join(REPO, 'bin', 'ax.mjs'), ...args]);
  const started = Date.now();
  const child = spawn(cmd as string, rest, {
    cwd,
    env: { ...env, HOME: cwd, TZ: 'UTC', NO_COLOR: '1', AX_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (c, s) => resolve({ code: c, signal: s })),
  );
  return { code, signal, stdout, stderr, ms: Date.now() - started };
}

/** Hands a path to the test user (when the suite runs as root). */
function giveToUser(p: string): void {
  if (!asRoot) return;
  fs.chownSync(p, NOBODY, NOBODY);
  if (fs.statSync(p).isDirectory()) for (const entry of fs.readdirSync(p)) giveToUser(path.join(p, entry));
}

// Read-only needs a user other than root (as root, chmod does not stop writes): skipped with the reason when there is none.
describe.skipIf(readOnlyReason !== undefined)(
  `read-only files in the data dir${readOnlyReason ? ` (skipped: ${readOnlyReason})` : ''}`,
  () => {
    it('a read-only ax.db: exit 6 naming the chmod; no 0444 -wal/-shm is left behind; the chmod fixes it', async () => {
      const d = fresh('read-only');
      writeFile(d.files, 'hello.yaml', hello('hi'));
      giveToUser(d.files);
      expect((await axAsUser(['apply', 'hello.yaml'], d.dataDir, d.files)).code).toBe(0);
      fs.chmodSync(d.db, 0o444);
      writeFile(d.files, 'hello.yaml', hello('changed'));
      const line = `ax: ${d.db} is read-only: chmod u+w ${d.db}`;
      expectOneLine(await axAsUser(['apply', 'hello.yaml'], d.dataDir, d.files), 6, line);
      expectOneLine(await axAsUser(['serve'], d.dataDir, d.files), 6, line);
      expect(fs.existsSync(`${d.db}-shm`)).toBe(false);
      expect(fs.existsSync(`${d.db}-wal`)).toBe(false);
      fs.chmodSync(d.db, 0o644);
      const fixed = await axAsUser(['apply', 'hello.yaml'], d.dataDir, d.files);
      expect(fixed.stdout).toBe('applied hello (version 2)\n');
      expect(fixed.code).toBe(0);
    });

    it('-wal and -shm left read-only by another reader of a read-only ax.db: all three are named, and running the printed chmod fixes it', async () => {
      const d = fresh('read-only-shm');
      writeFile(d.files, 'hello.yaml', hello('hi'));
      giveToUser(d.files);
      expect((await axAsUser(['apply', 'hello.yaml'], d.dataDir, d.files)).code).toBe(0);
      fs.chmodSync(d.db, 0o444);
      // Any reader (an sqlite3 shell, a backup script) leaves them with ax.db's mode 0444.
      // Read through the same driver as ax (node:sqlite or better-sqlite3, whichever this Node has).
      const driver = pathToFileURL(path.join(REPO, 'engine/adapters/sql/sqlite-driver.ts')).href;
      const reader = `const { openSqlite } = await import(${JSON.stringify(driver)}); openSqlite(${JSON.stringify(d.db)}).prepare('SELECT count(*) FROM workflow').get();`;
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      const [node, ...readArgs] = asUser([process.execPath, '--import', tsx, '--input-type=module', '-e', reader]);
      const read = spawnSync(node as string, readArgs, { encoding: 'utf8' });
      expect(read.status, read.stderr).toBe(0);
      expect(fs.statSync(`${d.db}-shm`).mode & 0o777).toBe(0o444);
      expect(fs.statSync(`${d.db}-wal`).mode & 0o777).toBe(0o444);
      writeFile(d.files, 'hello.yaml', hello('changed'));
      const all = `${d.db} ${d.db}-wal ${d.db}-shm`;
      const refused = await axAsUser(['apply', 'hello.yaml'], d.dataDir, d.files);
      expectOneLine(refused, 6, `ax: ${d.db}, ${d.db}-wal, ${d.db}-shm are read-only: chmod u+w ${all}`);
      // The fix exactly as printed, run as the user who got the message.
      const fix = refused.stderr.slice(refused.stderr.indexOf(': chmod ') + 2).trim();
      const [cmd, ...args] = asUser(['/bin/sh', '-c', fix]);
      expect(spawnSync(cmd as string, args).status).toBe(0);
      const fixed = await axAsUser(['apply', 'hello.yaml'], d.dataDir, d.files);
      expect(fixed.stderr).toBe('');
      expect(fixed.stdout).toBe('applied hello (version 2)\n');
    });

    it('a data dir that is not writable: exit 6 naming the chmod', async () => {
      const d = fresh('read-only-dir');
      writeFile(d.files, 'hello.yaml', hello('hi'));
      giveToUser(d.files);
      expect((await axAsUser(['apply', 'hello.yaml'], d.dataDir, d.files)).code).toBe(0);
      // Not writable, and private (one others could read would be made private, and that said too).
      fs.chmodSync(d.dataDir, 0o500);
      const line = `ax: the data dir ${d.dataDir} is not writable: chmod u+w ${d.dataDir}`;
      expectOneLine(await axAsUser(['runs'], d.dataDir, d.files), 6, line);
      expectOneLine(await axAsUser(['serve'], d.dataDir, d.files), 6, line);
      fs.chmodSync(d.dataDir, 0o700);
    });
  },
);

// The data dir is ours or refused, tried as another local user would: user
// nobody prepares a 0777 data dir with an API token of their choosing, plants a settings.json
// link, leaves token files others can read. Each is refused by a real `ax` with one line naming
// the fix, and what AX makes itself (the dir, ax.db and its -wal and -shm, tokens, settings,
// secrets) is private: 0700 and 0600.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ax, type AxResult, killAllAx } from '../helpers/ax.ts';
import { tempDir } from '../helpers/files.ts';
import { killStrays } from '../helpers/processes.ts';
import { type ServeProcess, startServe } from '../helpers/serve.ts';

const asRoot = process.getuid?.() === 0;
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));
const NOBODY = 65534;
const skipReason =
  process.platform === 'win32'
    ? 'file modes are POSIX'
    : !asRoot || !setpriv
      ? 'needs root and setpriv, to act as user nobody'
      : undefined;

let root: string;
let n = 0;
let serve: ServeProcess | undefined;

beforeAll(() => {
  root = tempDir('ax-data-dir-owner-');
  // User nobody (below) must reach what is made inside, and make dirs in shared/ (like /tmp).
  fs.chmodSync(root, 0o755);
  fs.mkdirSync(path.join(root, 'shared'));
  fs.chmodSync(path.join(root, 'shared'), 0o1777);
});

afterEach(async () => {
  await killAllAx();
  serve = undefined;
  killStrays(root);
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A shell command run as user nobody; fails the test when it fails. */
function asNobody(script: string): void {
  const r = spawnSync(
    setpriv as string,
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', '/bin/sh', '-ec', script],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
}

const fresh = (name: string) => path.join(root, `${name}-${++n}`);
/** a path in the dir every user may make things in */
const shared = (name: string) => path.join(root, 'shared', `${name}-${++n}`);
const opts = (dataDir: string) => ({ dataDir, cwd: root });
const mode = (p: string) => fs.statSync(p).mode & 0o777;

function expectOneLine(r: AxResult, code: number, line: string): void {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).toBe(`${line}\n`);
  expect(r.code).toBe(code);
}

const linkLine = (file: string) =>
  `ax: ${file} is a symbolic link: AX does not follow links for its tokens, settings and secrets. Remove it (rm ${file}) and put the file itself there`;
const openLine = (file: string, m: string) =>
  `ax: ${file} can be read or written by other users (mode ${m}): make it private with chmod 600 ${file} (and change the secret in it if others may have read it)`;

// Skipped only where a second OS user cannot be acted as (not root, no setpriv): the title says why.
describe.skipIf(skipReason !== undefined)(
  `a data dir another user prepared${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    it("a 0777 dir of user nobody's with their own api-token: every command refuses it naming the chown; nothing is served or written there", async () => {
      const dir = shared('planted');
      asNobody(
        `mkdir ${dir}; chmod 777 ${dir}; printf %s ${'n'.repeat(48)} > ${dir}/api-token; chmod 600 ${dir}/api-token`,
      );
      const line = `ax: the data dir ${dir} belongs to uid ${NOBODY}, not to root (uid 0): its tokens and settings could be anyone's. Use a data dir of your own (--data-dir or AX_DATA_DIR), or, if everything in it is yours, chown -R root ${dir}`;
      for (const args of [
        ['serve'],
        ['ls'],
        ['settings', 'set', 'mysql', 'mysql://ax:pw@db:3306/ax'],
        ['secrets', 'ls'],
      ])
        expectOneLine(await ax(args, opts(dir)), 6, line);
      expect(fs.readdirSync(dir)).toEqual(['api-token']);
    });

    it('a dir of our own that others can write (0777, 0775): refused naming chmod 700; the printed fix makes it usable', async () => {
      for (const m of [0o777, 0o775]) {
        const dir = fresh('writable');
        fs.mkdirSync(dir);
        fs.chmodSync(dir, m);
        const r = await ax(['ls'], opts(dir));
        expectOneLine(
          r,
          6,
          `ax: the data dir ${dir} can be written by other users (mode 0${m.toString(8)}): they could replace its tokens and settings. Make it private: chmod 700 ${dir}`,
        );
        const fix = r.stderr.slice(r.stderr.indexOf('chmod 700')).trim();
        expect(spawnSync('/bin/sh', ['-c', fix]).status).toBe(0);
        const fixed = await ax(['ls'], opts(dir));
        expect(fixed.stderr).toBe('');
        expect(fixed.code).toBe(0);
      }
    });

    it('a settings.json link planted by nobody: `ax settings set mysql` refuses it and writes no password anywhere; so does every reader; a FIFO is refused at once', async () => {
      const dir = fresh('settings-link');
      const theirs = shared('theirs');
      asNobody(`mkdir ${theirs}; printf '{}' > ${theirs}/settings.json; chmod 666 ${theirs}/settings.json`);
      fs.mkdirSync(dir, { mode: 0o700 });
      const file = path.join(dir, 'settings.json');
      fs.symlinkSync(path.join(theirs, 'settings.json'), file);
      expectOneLine(
        await ax(['settings', 'set', 'mysql', 'mysql://ax:pw-9f1@db:3306/ax'], opts(dir)),
        6,
        linkLine(file),
      );
      expectOneLine(await ax(['ls'], opts(dir)), 6, linkLine(file));
      expect(fs.readFileSync(path.join(theirs, 'settings.json'), 'utf8')).toBe('{}');
      // A link to a file not there yet is not followed either: nothing is created in their dir.
      fs.rmSync(file);
      fs.symlinkSync(path.join(theirs, 'new.json'), file);
      expectOneLine(
        await ax(['settings', 'set', 'mysql', 'mysql://ax:pw-9f1@db:3306/ax'], opts(dir)),
        6,
        linkLine(file),
      );
      expect(fs.readdirSync(theirs)).toEqual(['settings.json']);
      expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      // The printed fix, then the set works and the file is a private regular file.
      fs.rmSync(file);
      const set = await ax(['settings', 'set', 'mysql', 'mysql://ax:pw-9f1@db:3306/ax'], opts(dir));
      expect(set.code, set.stderr).toBe(0);
      expect(fs.lstatSync(file).isFile()).toBe(true);
      expect(mode(file)).toBe(0o600);
      // A FIFO: refused at once (an open that blocked would hang every command).
      fs.rmSync(file);
      expect(spawnSync('mkfifo', [file]).status).toBe(0);
      const fifo = await ax(['ls'], { ...opts(dir), timeoutMs: 15_000 });
      expectOneLine(fifo, 6, `ax: ${file} is not a regular file: remove it (rm ${file})`);
    });

    it('task-secrets.json as a link, or owned by nobody: `ax secrets set` refuses it', async () => {
      const dir = fresh('secrets-link');
      const theirs = shared('theirs-secrets');
      asNobody(`mkdir ${theirs}; printf '{}' > ${theirs}/s.json`);
      fs.mkdirSync(dir, { mode: 0o700 });
      const file = path.join(dir, 'task-secrets.json');
      fs.symlinkSync(path.join(theirs, 's.json'), file);
      expectOneLine(await ax(['secrets', 'set', 'api-key'], { ...opts(dir), input: 'v-5521' }), 6, linkLine(file));
      expect(fs.readFileSync(path.join(theirs, 's.json'), 'utf8')).toBe('{}');
      fs.rmSync(file);
      fs.writeFileSync(file, '{"version":1,"secrets":{}}', { mode: 0o600 });
      fs.chownSync(file, NOBODY, NOBODY);
      expectOneLine(
        await ax(['secrets', 'set', 'api-key'], { ...opts(dir), input: 'v-5521' }),
        6,
        `ax: ${file} belongs to uid ${NOBODY}, not to root: another user could have written it. Remove it (rm ${file}), or, if its content is yours, chown root ${file}`,
      );
      expect(fs.readFileSync(file, 'utf8')).not.toContain('v-5521');
    });

    it('token files others can read (webhook-token, metrics-token 0644) or another user owns (api-token): `ax serve` refuses each with its fix; fixed, it serves', async () => {
      const dir = fresh('tokens');
      fs.mkdirSync(dir, { mode: 0o700 });
      const webhook = path.join(dir, 'webhook-token');
      const metrics = path.join(dir, 'metrics-token');
      const api = path.join(dir, 'api-token');
      fs.writeFileSync(webhook, 'w'.repeat(32));
      fs.chmodSync(webhook, 0o644);
      expectOneLine(await ax(['serve'], opts(dir)), 6, openLine(webhook, '0644'));
      fs.chmodSync(webhook, 0o600);
      fs.writeFileSync(metrics, 'm'.repeat(32));
      fs.chmodSync(metrics, 0o644);
      expectOneLine(await ax(['serve'], opts(dir)), 6, openLine(metrics, '0644'));
      fs.chmodSync(metrics, 0o600);
      fs.writeFileSync(api, 'a'.repeat(48), { mode: 0o600 });
      fs.chownSync(api, NOBODY, NOBODY);
      expectOneLine(
        await ax(['serve'], opts(dir)),
        6,
        `ax: ${api} belongs to uid ${NOBODY}, not to root: another user could have written it. Remove it (rm ${api}), or, if its content is yours, chown root ${api}`,
      );
      fs.chownSync(api, 0, 0);
      serve = await startServe(opts(dir));
      expect(serve.stdout).toContain('webhooks on:');
      // A token made open to others while serving: webhooks stop and scrapes are refused, said once.
      fs.chmodSync(metrics, 0o644);
      const scrape = await fetch(`http://127.0.0.1:${serve.port}/metrics`, {
        headers: { authorization: `Bearer ${'m'.repeat(32)}` },
      });
      expect(scrape.status).toBe(503);
      expect(await scrape.text()).toContain(`${metrics} can be read or written by other users (mode 0644)`);
      await serve.waitForLine(/metrics are refused/, 5000, 'stderr');
      expect(serve.stderr).toContain(
        `ax serve: metrics are refused: ${openLine(metrics, '0644').slice('ax: '.length)}`,
      );
    });
  },
);

// Skipped on Windows only: it checks POSIX modes (0700, 0600 under umask 022), which Windows files do not have.
describe.skipIf(process.platform === 'win32')('what AX makes is private', () => {
  it('a fresh data dir is 0700 and every file in it 0600 (ax.db, -wal and -shm while serving, tokens, settings, secrets), under umask 022', async () => {
    const dir = path.join(fresh('made'), 'data');
    expect((await ax(['settings', 'set', 'task-env', 'inherit'], opts(dir))).code).toBe(0);
    expect((await ax(['secrets', 'set', 'api-key'], { ...opts(dir), input: 'v-1' })).code).toBe(0);
    serve = await startServe(opts(dir));
    expect(mode(dir)).toBe(0o700);
    const files = fs.readdirSync(dir).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'api-token',
        'ax.db',
        'ax.db-shm',
        'ax.db-wal',
        'engine.lock',
        'engine.lock.db',
        'settings.json',
        'task-secrets.json',
        'task-secrets.audit.log',
      ]),
    );
    for (const f of files) expect([f, mode(path.join(dir, f)).toString(8)]).toEqual([f, '600']);
  });

  const madePrivate = (dir: string, m: string) =>
    `ax: the data dir ${dir} could be read by other users (mode ${m}); made it private (chmod 700 ${dir}), as it holds AX's tokens and settings\n`;

  it('an ax.db an older AX left 0644, in a dir made by hand 0755: both made private, the dir change said once', async () => {
    const dir = fresh('older');
    fs.mkdirSync(dir, { mode: 0o700 });
    expect((await ax(['ls'], opts(dir))).code).toBe(0);
    fs.chmodSync(path.join(dir, 'ax.db'), 0o644);
    fs.chmodSync(dir, 0o755);
    const listed = await ax(['ls'], opts(dir));
    expect(listed.stderr).toBe(madePrivate(dir, '0755'));
    expect(listed.code).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'ax.db'))).toBe(0o600);
    // Private now: nothing more to say.
    expect((await ax(['ls'], opts(dir))).stderr).toBe('');
  });

  it('a group-readable dir of our own (0750, and 0705 for others only): made private and said, on a command that opens no database too', async () => {
    for (const [m, text] of [
      [0o750, '0750'],
      [0o705, '0705'],
    ] as const) {
      const dir = fresh('group');
      fs.mkdirSync(dir);
      fs.chmodSync(dir, m);
      const r = await ax(['secrets', 'ls'], opts(dir));
      expect(r.stderr).toBe(madePrivate(dir, text));
      expect(r.code).toBe(0);
      expect(mode(dir)).toBe(0o700);
    }
  });

  it('a fresh dir made by ax, or one made 0700: nothing said', async () => {
    const byHand = fresh('hand');
    fs.mkdirSync(byHand, { mode: 0o700 });
    for (const dir of [path.join(fresh('new'), 'data'), byHand]) {
      const r = await ax(['ls'], opts(dir));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
  });
});

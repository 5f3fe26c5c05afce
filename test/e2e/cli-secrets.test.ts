// `ax secrets set/ls/rm`: the value comes from stdin (never argv), is kept in a 0600 file in the
// data dir, is never printed, and each change is audit-logged without it. A workflow file with a
// secret reference validates, and `ax run` gives the task its secret, masked in `ax logs`.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { ax, axJson } from '../helpers/ax.ts';
import { REPO, tempDir } from '../helpers/files.ts';
import { waitFor } from '../helpers/wait-for.ts';

const VALUE = 'cli-secret-0xDEADBEEF';
let dataDir: string;
beforeAll(() => {
  dataDir = tempDir('ax-cli-secrets-');
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

// util-linux `script` gives the command a terminal, so the prompt path (no echo) runs for real.
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((p) => fs.existsSync(p));

/** `ax secrets set NAME` on a terminal: types `keys` once the prompt is shown; all the terminal showed. */
async function setOnTerminal(name: string, keys: string): Promise<{ code: number | null; screen: string }> {
  const child = spawn(
    SCRIPT as string,
    ['-qec', `"${process.execPath}" "${path.join(REPO, 'bin', 'ax.mjs')}" secrets set ${name}`, '/dev/null'],
    {
      env: { ...process.env, AX_DATA_DIR: dataDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await waitFor(() => screen.includes('(not echoed): '), { timeoutMs: 30_000, message: 'the prompt' });
  child.stdin.write(keys);
  const code = await exited;
  return { code, screen };
}

const opts = (input?: string) => ({ dataDir, ...(input !== undefined && { input }) });
const file = () => path.join(dataDir, 'task-secrets.json');

describe('ax secrets', () => {
  it('before the secret is set, ax validate warns that this machine lacks it and ax apply refuses without --force', async () => {
    const wf = path.join(dataDir, 'early.yaml');
    fs.writeFileSync(
      wf,
      'workflow: early\ntasks:\n  call:\n    command: echo "$API_TOKEN"\n    env:\n      API_TOKEN: { secret: api-token }\n',
    );
    const v = await ax(['validate', wf], opts());
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout + v.stderr).toContain(
      `tasks.call.env.API_TOKEN: secret "api-token" is not set on this machine: the task would fail to start; run "ax secrets set api-token"`,
    );
    const refused = await ax(['apply', wf], opts());
    expect(refused.code).toBe(2);
  });

  it('set reads the value from stdin, stores it 0600, and prints no value', async () => {
    const r = await ax(['secrets', 'set', 'api-token'], opts(`${VALUE}\n`));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(VALUE);
    expect(fs.statSync(file()).mode & 0o777).toBe(0o600);
    // One trailing newline (what echo adds) is not part of the value.
    expect(JSON.parse(fs.readFileSync(file(), 'utf8')).secrets['api-token'].value).toBe(VALUE);
  });

  // Skipped on Windows, or where util-linux `script` is missing: nothing else gives the command a real terminal.
  it.skipIf(!SCRIPT || process.platform === 'win32')(
    'on a terminal, prompts without echoing what is typed; Ctrl-C stores nothing',
    async () => {
      try {
        const typed = await setOnTerminal('typed', 'typed-value-xyz\r');
        expect(typed.code, typed.screen).toBe(0);
        expect(typed.screen).toContain('value of secret typed (not echoed): ');
        expect(typed.screen).not.toContain('typed-value-xyz');
        expect(JSON.parse(fs.readFileSync(file(), 'utf8')).secrets.typed.value).toBe('typed-value-xyz');
        const cancelled = await setOnTerminal('never', 'abc\u0003');
        expect(cancelled.code, cancelled.screen).toBe(2);
        expect(cancelled.screen).toContain('cancelled: nothing was stored');
        expect(JSON.parse(fs.readFileSync(file(), 'utf8')).secrets.never).toBeUndefined();
      } finally {
        // The tests after this one list the secrets: leave none of this one's behind, even on a failure.
        await ax(['secrets', 'rm', 'typed'], opts());
      }
    },
  );

  it('ls shows names and when they were set, never values', async () => {
    expect((await ax(['secrets', 'set', 'db.password'], opts('pw-2'))).code).toBe(0);
    const r = await ax(['secrets', 'ls'], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+SET\napi-token\s+\d{4}-\d\d-\d\dT.*\ndb\.password\s+\d{4}-/);
    expect(r.stdout).not.toContain(VALUE);
    const json = await axJson<{ name: string; setAt?: string; value?: string }[]>(['secrets', 'ls'], opts());
    expect(json.map((s) => s.name)).toEqual(['api-token', 'db.password']);
    expect(JSON.stringify(json)).not.toContain(VALUE);
  });

  it('refuses a bad name, an empty value, and a value on the command line', async () => {
    const bad = await ax(['secrets', 'set', '-x'], opts('v'));
    expect(bad.code).toBe(2);
    const badName = await ax(['secrets', 'set', 'a b'], opts('value'));
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('"a b" is not a valid secret name');
    const empty = await ax(['secrets', 'set', 'empty'], opts(''));
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('is empty');
    const argv = await ax(['secrets', 'set', 'x', 'the-value'], opts('v'));
    expect(argv.code).toBe(2);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8')).secrets.x).toBeUndefined();
  });

  it('a workflow refers to it; ax run gives it to the task and ax logs shows ***', async () => {
    const wf = path.join(dataDir, 'uses-secret.yaml');
    fs.writeFileSync(
      wf,
      'workflow: uses-secret\ntasks:\n  call:\n    command: echo "token=$API_TOKEN len=${#API_TOKEN}"\n    env:\n      API_TOKEN: { secret: api-token }\n',
    );
    const v = await ax(['validate', wf], opts());
    expect(v.code, v.stderr).toBe(0);
    const run = await ax(['run', wf, '--wait'], opts());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(VALUE);
    const logs = await ax(['logs', '1', 'call'], opts());
    expect(logs.stdout).toContain(`token=*** len=${VALUE.length}`);
    expect(logs.stdout).not.toContain(VALUE);
    const exported = await ax(['export', 'uses-secret'], opts());
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('API_TOKEN:\n        secret: api-token');
    expect(exported.stdout).not.toContain(VALUE);
  });

  it('rm removes it; removing it again is "not found"; the audit log names changes, never values', async () => {
    expect((await ax(['secrets', 'rm', 'db.password'], opts())).code).toBe(0);
    expect((await axJson<{ name: string }[]>(['secrets', 'ls'], opts())).map((s) => s.name)).toEqual(['api-token']);
    const again = await ax(['secrets', 'rm', 'db.password'], opts());
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('no secret "db.password"');
    const audit = fs
      .readFileSync(path.join(dataDir, 'task-secrets.audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; name: string; actor: string });
    const expected = [['secret.set', 'api-token']];
    if (SCRIPT && process.platform !== 'win32') expected.push(['secret.set', 'typed'], ['secret.remove', 'typed']);
    expect(audit.map((a) => [a.action, a.name])).toEqual([
      ...expected,
      ['secret.set', 'db.password'],
      ['secret.remove', 'db.password'],
    ]);
    expect(audit[0]!.actor).toMatch(/@/);
    expect(fs.readFileSync(path.join(dataDir, 'task-secrets.audit.log'), 'utf8')).not.toContain(VALUE);
  });
});

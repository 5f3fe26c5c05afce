// Tasks get a clean environment: the host's own configuration (AX_MYSQL_URL,
// AX_REDIS_URL, AX_DATA_DIR, AX_ENGINE_CONFIG, any AX_*) never reaches a task run by a real
// `ax run --wait`; task-env clean leaves only the minimal set (plus the task's own variables, the
// workflow's env and secrets); run-as makes a root node's tasks another user, who cannot read
// the data dir.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ax, killAllAx } from '../helpers/ax.ts';
import { tempDir, writeFile } from '../helpers/files.ts';
import { killStrays } from '../helpers/processes.ts';

let root: string;
let n = 0;

beforeAll(() => {
  root = tempDir('ax-task-env-');
  // run-as nobody must enter it (to run in it, and to read the payload file's dir beside it).
  fs.chmodSync(root, 0o755);
});
afterEach(async () => {
  await killAllAx();
  killStrays(root);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** What the node's environment holds that is AX's, and one variable that is not. */
const HOST_ENV = {
  AX_MYSQL_URL: 'mysql://ax:db-pw-4417@db:3306/ax',
  AX_REDIS_URL: 'redis://:redis-pw-4417@cache:6379',
  AX_REDIS_PREFIX: 'ax:',
  AX_ENGINE_CONFIG: '{}',
  AX_DESKTOP_SECRETS: '{"mysql":"mysql://ax:desk-pw@db/ax"}',
  AX_SOMETHING_NEW: 'x',
  KEEP_ME: 'kept',
};
/** what the engine gives each task itself (design.md §5) */
const TASK_OWN = [
  'AX_ATTEMPT',
  'AX_INSTANCE_ID',
  'AX_LOGICAL_TIME',
  'AX_OUTPUT',
  'AX_RUN_ID',
  'AX_SPAWN_ID',
  'AX_TASK',
  'AX_WORKFLOW',
];
/** what the shell itself sets */
const SHELL_OWN = ['OLDPWD', 'PWD', 'SHLVL', '_'];

const WORKFLOW = `workflow: envy
tasks:
  show:
    command: env
    env:
      GREETING: hello
      API_KEY: { secret: api-key }
`;

function sandbox() {
  const dir = path.join(root, `case-${++n}`);
  fs.mkdirSync(dir, { mode: 0o755 });
  writeFile(dir, 'envy.yaml', WORKFLOW);
  const dataDir = path.join(dir, 'data');
  return {
    dir,
    dataDir,
    opts: (env: Record<string, string> = {}) => ({ dataDir, cwd: dir, env: { ...HOST_ENV, ...env } }),
  };
}

/** The task's `env` as a map, from its stored log. */
async function taskEnv(
  s: ReturnType<typeof sandbox>,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Map<string, string>> {
  expect((await ax(['secrets', 'set', 'api-key'], { ...s.opts(), input: 'sec-9913' })).code).toBe(0);
  const run = await ax([...args, 'run', './envy.yaml', '--wait'], s.opts(env));
  expect(run.code, run.stderr).toBe(0);
  const id = /run #(\d+)/.exec(run.stdout)?.[1];
  const logs = await ax(['logs', String(id), 'show'], s.opts());
  expect(logs.code, logs.stderr).toBe(0);
  return new Map(
    logs.stdout
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

// Skipped on Windows only: the tasks here are POSIX shell commands.
describe.skipIf(process.platform === 'win32')("a task never sees the host's AX_* variables", () => {
  it("task-env inherit (the default): the node's environment minus every AX_* of its own; the task's own, the workflow env and the secret (masked) are there", async () => {
    const s = sandbox();
    const seen = await taskEnv(s);
    const ax = [...seen.keys()].filter((k) => k.startsWith('AX_')).sort();
    expect(ax).toEqual(TASK_OWN);
    expect(seen.get('KEEP_ME')).toBe('kept');
    expect(seen.get('GREETING')).toBe('hello');
    expect(seen.get('API_KEY')).toBe('***');
    expect([...seen.values()].join('\n')).not.toMatch(/db-pw|redis-pw|desk-pw/);
    expect(seen.get('PATH')).toBe(process.env.PATH);
  });

  it("task-env clean (flag, AX_TASK_ENV or settings.json): only PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_ALL, TZ, TMPDIR of the node's", async () => {
    const minimal = ['HOME', 'LANG', 'LC_ALL', 'LOGNAME', 'PATH', 'SHELL', 'TMPDIR', 'TZ', 'USER'];
    const expected = (seen: Map<string, string>) => {
      const keys = [...seen.keys()].filter((k) => !SHELL_OWN.includes(k) && !TASK_OWN.includes(k)).sort();
      const node = { ...process.env, TZ: 'UTC', ...HOST_ENV } as Record<string, string | undefined>;
      expect(keys).toEqual([...minimal.filter((k) => node[k] !== undefined), 'API_KEY', 'GREETING'].sort());
      expect(seen.get('PATH')).toBe(process.env.PATH);
      expect(seen.get('TZ')).toBe('UTC');
    };
    expected(await taskEnv(sandbox(), ['--task-env', 'clean']));
    expected(await taskEnv(sandbox(), [], { AX_TASK_ENV: 'clean' }));
    const s = sandbox();
    const set = await ax(['settings', 'set', 'task-env', 'clean'], s.opts());
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^task-env +clean +settings file$/m);
    expected(await taskEnv(s));
  });

  it('a task-env that is neither is refused with the choices', async () => {
    const s = sandbox();
    const bad = await ax(['settings', 'set', 'task-env', 'dirty'], s.opts());
    expect(bad.stderr).toBe('ax: task-env must be inherit or clean, not "dirty"\n');
    expect(bad.code).toBe(2);
    const flag = await ax(['--task-env', 'dirty', 'run', './envy.yaml', '--wait'], s.opts());
    expect(flag.stderr).toBe('ax: task-env must be inherit or clean, not "dirty" (from --task-env)\n');
    expect(flag.code).toBe(2);
  });
});

const asRoot = process.getuid?.() === 0;
// Skipped on Windows (no POSIX users to switch to) and when this process is not root: run-as changes a
// task's user with setuid, which only root may do. Runs here as root.
describe.skipIf(process.platform === 'win32' || !asRoot)(
  `run-as${asRoot ? '' : ' (skipped: the node must run as root)'}`,
  () => {
    it("a root node with run-as nobody: its tasks are uid nobody with nobody's HOME and USER, cannot read the data dir, and read a large payload file", async () => {
      const s = sandbox();
      writeFile(
        s.dir,
        'who.yaml',
        `workflow: who
on_event: who
tasks:
  show:
    command: 'id -u; id -g; echo "HOME=$HOME USER=$USER"; cat "$AX_EVENT_PAYLOAD_FILE" | wc -c; cat ${s.dataDir}/api-token || echo refused; ls ${s.dataDir} || echo refused'
`,
      );
      expect((await ax(['apply', './who.yaml'], s.opts())).code).toBe(0);
      // Past 32 KiB the payload goes as a file: it must be the task user's to read.
      const payload = JSON.stringify({ blob: 'p'.repeat(40_000) });
      writeFile(s.dir, 'payload.json', payload);
      const run = await ax(
        ['--run-as', 'nobody', 'trigger', 'who', '--payload-file', './payload.json', '--wait'],
        s.opts(),
      );
      expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
      const id = /run #(\d+)/.exec(run.stdout)?.[1];
      const logs = await ax(['logs', String(id), 'show'], s.opts());
      expect(logs.stdout.split('\n').slice(0, 4)).toEqual([
        '65534',
        '65534',
        'HOME=/nonexistent USER=nobody',
        String(Buffer.byteLength(payload)),
      ]);
      expect(logs.stdout).toContain('refused');
      expect(logs.stdout).not.toMatch(/ax\.db|api-token/);
      expect(logs.stderr).toContain('Permission denied');
    });

    it('a run-as user that does not exist is refused with the fix', async () => {
      const s = sandbox();
      const r = await ax(['--run-as', 'no-such-user-ax', 'run', './envy.yaml', '--wait'], s.opts());
      expect(r.stderr).toBe(
        'ax: run-as: there is no user "no-such-user-ax" on this machine: create it (useradd --system no-such-user-ax) or change run-as\n',
      );
      expect(r.code).toBe(2);
    });
  },
);

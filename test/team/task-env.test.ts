// Team mode: a task on a real team worker, started with AX_MYSQL_URL,
// AX_REDIS_URL, AX_DATA_DIR and AX_ENGINE_CONFIG in its environment (as every team node is),
// never sees them: `env` in the task shows no password, in the log stored in MySQL. A worker with
// task-env clean gives its tasks only the minimal set.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';

const available = await teamServicesAvailable();

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
const SHELL_OWN = ['OLDPWD', 'PWD', 'SHLVL', '_'];

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)("team: a task never sees the worker's own configuration", () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('task-env');
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'inherit: no AX_MYSQL_URL, AX_REDIS_URL, AX_DATA_DIR or AX_ENGINE_CONFIG in a task on a worker; clean: only the minimal set',
    async () => {
      const worker = (id: string, env: Record<string, string>) => {
        const p = team.spawn(
          id,
          ['serve', '--role', 'worker', '--worker-id', id, '--labels', id],
          { AXT_WORKER: id, ...env },
          { role: 'worker', workerId: id },
        );
        return p.waitForLine(/^ax serve: team /, 90_000);
      };
      await Promise.all([
        team.serve({ role: 'scheduler', name: 'scheduler', noWork: true }),
        worker('w-inherit', {}),
        worker('w-clean', { AX_TASK_ENV: 'clean' }),
      ]);
      await team.waitWorkersOnline(['w-inherit', 'w-clean']);
      team.writeWorkflow(
        'envy.yaml',
        `workflow: envy
tasks:
  inherit:
    command: env
    labels: [w-inherit]
  clean:
    command: env
    labels: [w-clean]
    env: { GREETING: hello }
`,
      );
      const runId = await team.startRun('./envy.yaml');
      await team.waitRun(runId);
      const instances = await team.instances([runId]);
      const seen = async (task: string) => {
        const inst = instances.find((i) => i.taskName === task);
        expect(inst?.state, inst?.reason ?? '').toBe('SUCCESS');
        const lines = (await team.store.readLogs(inst!.id, 0, 1000)).map((l) => l.line);
        return new Map(
          lines.filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
      };
      const inherit = await seen('inherit');
      expect([...inherit.keys()].filter((k) => k.startsWith('AX_')).sort()).toEqual(TASK_OWN);
      // What the harness gives every node besides AX_* (AXT_DIR marks its processes and their tasks).
      expect(inherit.get('AXT_DIR')).toBe(team.dir);
      const password = new URL(team.mysqlUrl).password;
      const all = [...inherit.values()].join('\n');
      expect(all).not.toContain(team.mysqlUrl);
      if (password) expect(all).not.toContain(password);

      const clean = await seen('clean');
      const keys = [...clean.keys()].filter((k) => !TASK_OWN.includes(k) && !SHELL_OWN.includes(k)).sort();
      const minimal = ['HOME', 'LANG', 'LC_ALL', 'LOGNAME', 'PATH', 'SHELL', 'TMPDIR', 'TZ', 'USER'];
      const node = team.env() as Record<string, string | undefined>;
      expect(keys).toEqual([...minimal.filter((k) => node[k] !== undefined), 'GREETING'].sort());
    },
    TEST_TIMEOUT_MS,
  );
});

// The database goes away under a running team and comes back (design.md §7–§8): a private mariadbd
// that this file installs, kills with -9 mid-run and starts again on the same port and data (never
// the shared 3306 server). The engines must reconnect by themselves; outcomes written while the
// database was down are retried rather than lost; no instance is lost, none runs twice, and a
// database outage is not mistaken for dead workers. Redis is the shared one (own prefix).
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { CI, redisAvailable } from '../helpers/services.ts';
import {
  aliveThrough,
  holdsFor,
  MISJUDGE_WINDOW_MS,
  stillRunningFirstAttempts,
  waitForProgressAfter,
} from '../helpers/team/fault-checks.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { Team, TEAM_CONFIG } from '../helpers/team/harness.ts';
import { checkInvariants } from '../helpers/team/invariants.ts';
import { hasMariadbServer, PrivateMariaDb } from '../helpers/private-servers.ts';
import { gatedWorkflow, layeredWorkflow } from '../helpers/team/workflows.ts';
import { letTimePass } from '../helpers/wait-for.ts';

// Off CI a machine without Redis, mariadbd / mariadb-install-db or flock(1) skips this file; under
// CI=true redisAvailable() throws and a missing program fails when it is used.
const runnable = (await redisAvailable()) && ((hasMariadbServer && hasFlock) || CI);

/**
 * After the database is back, work goes on within this: a worker retries its writes with a
 * backoff of up to 5 s, the scheduler ticks every tickMs, a lost dispatch is re-sent after
 * redispatchAfterMs.
 */
const RESUME_BOUND_MS =
  5_000 + (TEAM_CONFIG.redispatchAfterMs as number) + 3 * (TEAM_CONFIG.workerHeartbeatMs as number) + 5_000;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!runnable)('a team whose MariaDB is killed and restarted mid-run', () => {
  let root: string;
  let mariadb: PrivateMariaDb | undefined;
  let team: Team | undefined;

  beforeAll(async () => {
    root = tempDir('ax-team-mariadb-');
    mariadb = await PrivateMariaDb.create(root);
  }, 180_000);
  afterEach(async () => {
    await team?.close();
    team = undefined;
  }, 60_000);
  afterAll(async () => {
    await mariadb?.destroy();
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('reconnects and finishes every run: no instance lost, none run twice, no worker judged lost', async () => {
    const db = mariadb as PrivateMariaDb;
    const t = await Team.open('restart', { mysqlUrl: await db.createDatabase('ax_restart') });
    team = t;
    const wf = layeredWorkflow('db-restart', 10, 2, 'sleep 0.5');
    // Beside the DAG, two tasks that run until the database is back and work has gone on.
    const gated = await gatedWorkflow('db-restart-long', t, 2);
    await t.apply(wf.spec);
    await t.apply(gated.spec, 'long.json');
    await t.serveAll([
      { role: 'scheduler', noWork: true, workerId: 'sched' },
      { role: 'worker', workerId: 'w1' },
      { role: 'worker', workerId: 'w2' },
    ]);
    const longRun = await t.startRunInProcess('db-restart-long');
    const runIds = [await t.startRun('db-restart')];

    // Mid-run: some work done, some running (their outcomes will fall into the outage).
    await t.waitFor(
      async () => {
        const all = await t.instances(runIds);
        const long = await t.instances([longRun]);
        return (
          all.filter((i) => i.state === 'SUCCESS').length >= 5 &&
          all.some((i) => i.state === 'RUNNING') &&
          long.filter((i) => i.state === 'RUNNING').length === 2
        );
      },
      { timeoutMs: 90_000, intervalMs: 50, message: '5 instances done, some running, the long tasks running' },
    );
    const runningAtCrash = (await t.instances([...runIds, longRun]))
      .filter((i) => i.state === 'RUNNING')
      .map((i) => i.id);
    await db.kill();
    const down = Date.now();
    // The outage: longer than a worker may stay silent (3 × its heartbeat) and than a task
    // heartbeat may age (2.5 × its interval), so a judgement from stale database heartbeats would
    // show. Then the same server, port and data again.
    const outageMs =
      Math.max(3 * (TEAM_CONFIG.workerHeartbeatMs as number), 2.5 * (TEAM_CONFIG.taskHeartbeatMs as number)) + 1_000;
    await letTimePass(outageMs - (Date.now() - down));
    await db.start();
    const back = Date.now();

    const resumed = await waitForProgressAfter(t, runIds, back, RESUME_BOUND_MS + 30_000);
    expect(resumed - back).toBeLessThan(RESUME_BOUND_MS);
    // Long enough after the restart for any judgement from stale heartbeats to happen: the long
    // tasks stay RUNNING as their first attempts all along.
    await holdsFor(t, MISJUDGE_WINDOW_MS, 'the long tasks keep running', () =>
      stillRunningFirstAttempts(t, longRun, gated.tasks),
    );
    await gated.open();
    await t.waitRuns([...runIds, longRun], 150_000);

    const strict = { noTimeout: true, noFailover: true, singleExecution: true };
    expect(await checkInvariants(t, runIds, { tasks: wf.tasks, ...strict })).toEqual([]);
    expect(await checkInvariants(t, [longRun], { tasks: gated.tasks, ...strict })).toEqual([]);
    // The long tasks ran across the whole outage, each as the one process it started as.
    expect(aliveThrough(t, longRun, down, back)).toHaveLength(2);
    // The tasks that were running when the database died finished while it was down; their
    // outcomes were kept and written once it was back (SUCCESS of the same attempt, not a re-run).
    const store = t.store;
    for (const id of runningAtCrash)
      expect(await store.getInstance(id)).toMatchObject({ state: 'SUCCESS', attempt: 1 });
    // Every engine lived through it, and they did see the outage (alerts on stderr).
    expect(t.unexpectedExits()).toBeUndefined();
    expect(t.nodes.some((n) => /MySQL|ECONNREFUSED|PROTOCOL_CONNECTION_LOST|connect/i.test(n.stderr))).toBe(true);
  }, 360_000);
});

// The team database killed with -9 under a running team and started again on the same port and
// data (design.md §7–§8), the same scenario on MariaDB and on PostgreSQL: the engines reconnect
// by themselves, outcomes written while the database was down are retried rather than lost, no
// instance is lost, none runs twice, and a database outage is not mistaken for dead workers.
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../files.ts';
import { letTimePass } from '../wait-for.ts';
import {
  aliveThrough,
  holdsFor,
  MISJUDGE_WINDOW_MS,
  stillRunningFirstAttempts,
  waitForProgressAfter,
} from './fault-checks.ts';
import { Team, TEAM_CONFIG } from './harness.ts';
import { checkInvariants } from './invariants.ts';
import { gatedWorkflow, layeredWorkflow } from './workflows.ts';

/**
 * After the database is back, work goes on within this: a worker retries its writes with a
 * backoff of up to 5 s, the scheduler ticks every tickMs, a lost dispatch is re-sent after
 * redispatchAfterMs.
 */
export const RESUME_BOUND_MS =
  5_000 + (TEAM_CONFIG.redispatchAfterMs as number) + 3 * (TEAM_CONFIG.workerHeartbeatMs as number) + 5_000;

/** A database server the test can crash and start again on the same port and data. */
export interface RestartableDatabase {
  kill(): Promise<void>;
  start(): Promise<void>;
}

/** A private server of the test's own: made in a temp dir, a database on it, removed at the end. */
export interface PrivateDatabaseServer extends RestartableDatabase {
  createDatabase(name: string): Promise<string>;
  destroy(): Promise<void>;
}

/**
 * The file's suite: a private server made by `create` (skipped when `skipWhy` says why), one team
 * on a database of it, and databaseRestartScenario.
 */
export function databaseRestartSuite(o: {
  product: string;
  skipWhy: string | undefined;
  create: (root: string) => Promise<PrivateDatabaseServer>;
  outageWords: RegExp;
}): void {
  const title = `a team whose ${o.product} is killed and restarted mid-run`;
  // skipWhy: the caller's reason (no server binary off CI; under CI=true the callers throw instead);
  // it is in the suite's title so the skip list says it
  describe.skipIf(o.skipWhy !== undefined)(o.skipWhy ? `${title} (skipped: ${o.skipWhy})` : title, () => {
    let root: string;
    let server: PrivateDatabaseServer | undefined;
    let team: Team | undefined;

    beforeAll(async () => {
      root = tempDir(`ax-team-${o.product.toLowerCase()}-`);
      server = await o.create(root);
    }, 180_000);
    afterEach(async () => {
      await team?.close();
      team = undefined;
    }, 60_000);
    afterAll(async () => {
      await server?.destroy();
      fs.rmSync(root, { recursive: true, force: true });
    }, 60_000);

    it('reconnects and finishes every run: no instance lost, none run twice, no worker judged lost', async () => {
      const db = server as PrivateDatabaseServer;
      team = await Team.open('restart', { mysqlUrl: await db.createDatabase('ax_restart') });
      await databaseRestartScenario(team, db, o.outageWords);
    }, 360_000);
  });
}

/**
 * Runs a DAG and two long tasks on a scheduler and two workers over `t`'s database, kills the
 * database mid-run, keeps it down past every heartbeat window, starts it again and checks the
 * outcome. `outageWords` is what the engines' stderr says of the outage.
 */
export async function databaseRestartScenario(t: Team, db: RestartableDatabase, outageWords: RegExp): Promise<void> {
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
  for (const id of runningAtCrash)
    expect(await t.store.getInstance(id)).toMatchObject({ state: 'SUCCESS', attempt: 1 });
  // Every engine lived through it, and they did see the outage (alerts on stderr).
  expect(t.unexpectedExits()).toBeUndefined();
  expect(t.nodes.some((n) => outageWords.test(n.stderr))).toBe(true);
}

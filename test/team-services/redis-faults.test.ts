// design.md §7–§8, "task state lost: Redis key expired / Redis flushed": the database holds every
// state, so when Redis loses everything (FLUSHALL) or goes away and comes back empty (kill -9 and
// a restart on the same port), the team rebuilds its queues, leases, registrations and live state
// from MySQL and every run completes. Real `ax serve` nodes (a scheduler that runs no tasks and
// two workers) on a private redis-server that each test starts, flushes, kills and restarts —
// never the shared one — and the shared MariaDB (a database of each test's own). With nothing
// shared, the two faults run at the same time (it.concurrent): each mostly waits on the clock.
import { describe, type ExpectStatic, it } from 'vitest';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { CI, mysqlAvailable } from '../helpers/services.ts';
import {
  aliveThrough,
  holdsFor,
  MISJUDGE_WINDOW_MS,
  stillRunningFirstAttempts,
  waitForProgressAfter,
} from '../helpers/team/fault-checks.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { type Team, TEAM_CONFIG, teamForTest, type TestFinish } from '../helpers/team/harness.ts';
import { checkInvariants } from '../helpers/team/invariants.ts';
import { hasRedisServer, PrivateRedis } from '../helpers/private-servers.ts';
import { gatedWorkflow, layeredWorkflow } from '../helpers/team/workflows.ts';
import { letTimePass, waitFor } from '../helpers/wait-for.ts';

// Off CI, a machine without MariaDB, redis-server or flock(1) skips this file; under CI=true
// mysqlAvailable() throws and a missing program fails at its spawn.
const runnable = (await mysqlAvailable()) && ((hasRedisServer && hasFlock) || CI);

/** New work must start within this after the fault: a lost dispatch is re-sent after redispatchAfterMs. */
const RESUME_BOUND_MS =
  (TEAM_CONFIG.redispatchAfterMs as number) + 3 * (TEAM_CONFIG.workerHeartbeatMs as number) + 5_000;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!runnable)('a team whose Redis loses everything mid-run', () => {
  interface Started {
    team: Team;
    /** the test's own redis-server, which the team runs on */
    redis: PrivateRedis;
    /** the DAG's runs */
    runIds: number[];
    tasks: string[];
    /** a run of two tasks that are running while the fault comes and goes, until openGate() */
    longRun: number;
    longTasks: string[];
    openGate(): Promise<void>;
  }

  /**
   * A private redis-server; a scheduler (no work) and two workers on it; a run of a 20-task DAG
   * (10 layers of 2, `sleep 0.5`), and beside it a run of two long tasks, so that tasks are
   * running across the fault. All of it goes when the test finishes.
   */
  async function startTeam(ctx: TestFinish): Promise<Started> {
    const redis = await PrivateRedis.start();
    // Registered first, so it runs after the team's teardown (these hooks run as a stack).
    ctx.onTestFinished(() => redis.kill(), 60_000);
    const team = await teamForTest(ctx, 'redis', { redisUrl: redis.url });
    const wf = layeredWorkflow('redis-fault', 10, 2, 'sleep 0.5');
    const long = await gatedWorkflow('redis-fault-long', team, 2);
    await team.apply(wf.spec);
    await team.apply(long.spec, 'long.json');
    await team.serveAll([
      { role: 'scheduler', noWork: true, workerId: 'sched' },
      { role: 'worker', workerId: 'w1' },
      { role: 'worker', workerId: 'w2' },
    ]);
    const longRun = await team.startRunInProcess('redis-fault-long');
    const runIds = [await team.startRun('redis-fault')];
    return { team, redis, runIds, tasks: wf.tasks, longRun, longTasks: long.tasks, openGate: long.open };
  }

  /** Waits until `doneAtLeast` DAG instances are done, some run, and both long tasks run: mid-run. */
  async function midRun(s: Started, doneAtLeast: number): Promise<void> {
    await s.team.waitFor(
      async () => {
        const all = await s.team.instances(s.runIds);
        const long = await s.team.instances([s.longRun]);
        return (
          all.filter((i) => i.state === 'SUCCESS').length >= doneAtLeast &&
          all.some((i) => i.state === 'RUNNING') &&
          long.filter((i) => i.state === 'RUNNING').length === 2
        );
      },
      {
        timeoutMs: 90_000,
        intervalMs: 50,
        message: `${doneAtLeast} instances done, some running, the long tasks running`,
      },
    );
  }

  async function expectAllInvariants(expect: ExpectStatic, s: Started): Promise<void> {
    const strict = { noTimeout: true, noFailover: true, singleExecution: true };
    expect(await checkInvariants(s.team, s.runIds, { tasks: s.tasks, ...strict })).toEqual([]);
    expect(await checkInvariants(s.team, [s.longRun], { tasks: s.longTasks, ...strict })).toEqual([]);
    // Every node lived through it.
    expect(s.team.unexpectedExits()).toBeUndefined();
  }

  async function expectWorkersBack(expect: ExpectStatic, { team, redis }: Started): Promise<void> {
    // Registrations rebuilt: both workers online in the live view again (`ax workers` through Redis).
    await waitFor(
      async () => {
        const workers = await team.axJson<WorkerRecord[]>(['workers']);
        const online = workers.filter((w) => w.status === 'online').map((w) => w.id);
        return online.includes('w1') && online.includes('w2');
      },
      { timeoutMs: 30_000, intervalMs: 500, message: 'w1 and w2 online again' },
    );
    // The leader lease was taken again.
    expect(await redis.get(`${team.prefix}lease:scheduler`)).toMatch(/^\d+\|sched:\d+$/);
  }

  it.concurrent(
    'FLUSHALL twice mid-run: queues and live state are rebuilt from MySQL, every run succeeds, nothing runs twice',
    async ({ expect, onTestFinished }) => {
      const s = await startTeam({ onTestFinished });
      const { team, redis, runIds } = s;

      await midRun(s, 5);
      const firstFlush = Date.now();
      await redis.flushAll();
      const resumed = await waitForProgressAfter(team, runIds, firstFlush, RESUME_BOUND_MS + 30_000);
      expect(resumed - firstFlush).toBeLessThan(RESUME_BOUND_MS);

      await midRun(s, 12);
      const secondFlush = Date.now();
      await redis.flushAll();
      await waitForProgressAfter(team, runIds, secondFlush, RESUME_BOUND_MS + 30_000);
      await holdsFor(team, MISJUDGE_WINDOW_MS, 'the long tasks keep running', () =>
        stillRunningFirstAttempts(team, s.longRun, s.longTasks),
      );
      await s.openGate();

      await team.waitRuns([...runIds, s.longRun], 120_000);
      // The long tasks lived through both flushes as the one process each started with.
      expect(aliveThrough(team, s.longRun, firstFlush, secondFlush)).toHaveLength(2);
      await expectAllInvariants(expect, s);
      await expectWorkersBack(expect, s);
    },
    300_000,
  );

  it.concurrent(
    'Redis killed (kill -9) mid-run and restarted empty on the same port: every run succeeds, nothing runs twice',
    async ({ expect, onTestFinished }) => {
      const s = await startTeam({ onTestFinished });
      const { team, redis, runIds } = s;

      await midRun(s, 5);
      const down = Date.now();
      await redis.kill();
      // Down for longer than a worker may stay silent (3 × its heartbeat): an outage of Redis must
      // not look like dead workers, since their heartbeats in the database are the truth.
      await letTimePass(4 * (TEAM_CONFIG.workerHeartbeatMs as number));
      await redis.start();
      const restarted = Date.now();
      const resumed = await waitForProgressAfter(team, runIds, restarted, RESUME_BOUND_MS + 30_000);
      expect(resumed - restarted).toBeLessThan(RESUME_BOUND_MS);
      // Long enough after the restart for any judgement from stale heartbeats to happen: the long
      // tasks stay RUNNING as their first attempts all along.
      await holdsFor(team, MISJUDGE_WINDOW_MS, 'the long tasks keep running', () =>
        stillRunningFirstAttempts(team, s.longRun, s.longTasks),
      );
      await s.openGate();

      await team.waitRuns([...runIds, s.longRun], 120_000);
      // The long tasks ran across the whole outage, each as one process, never judged lost.
      expect(aliveThrough(team, s.longRun, down, restarted)).toHaveLength(2);
      await expectAllInvariants(expect, s);
      await expectWorkersBack(expect, s);
    },
    300_000,
  );
});

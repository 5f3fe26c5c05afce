// SPEC §7–§8, "task state lost: Redis key expired / Redis flushed": the database holds every
// state, so when Redis loses everything (FLUSHALL) or goes away and comes back empty (kill -9 and
// a restart on the same port), the team rebuilds its queues, leases, registrations and live state
// from MySQL and every run completes. Real `ax serve` nodes (a scheduler that runs no tasks and
// two workers) on a private redis-server that this file starts, flushes, kills and restarts —
// never the shared one — and the shared MariaDB (a database of this file's own).
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { tempDir } from '../helpers/solo-engine.ts';
import { mysqlAvailable } from '../helpers/services.ts';
import {
  CI,
  checkInvariants,
  hasRedisServer,
  instancesOf,
  layeredWorkflow,
  PrivateRedis,
  sharedTeam,
  type Team,
  TEAM_CONFIG,
  waitForProgressAfter,
  waitForRunsToEnd,
} from '../helpers/team-services.ts';
import { waitFor } from '../helpers/wait-for.ts';

// Off CI, a machine without MariaDB or redis-server skips this file; under CI=true
// mysqlAvailable() throws and a missing redis-server fails at its spawn.
const runnable = (await mysqlAvailable()) && (hasRedisServer || CI);

/** New work must start within this after the fault: a lost dispatch is re-sent after redispatchAfterMs. */
const RESUME_BOUND_MS = (TEAM_CONFIG.redispatchAfterMs as number) + 3 * (TEAM_CONFIG.workerHeartbeatMs as number) + 5_000;

describe.skipIf(!runnable)('a team whose Redis loses everything mid-run', () => {
  let redis: PrivateRedis;
  let root: string;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
  }, 60_000);
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);
  afterAll(() => redis?.kill());

  /** A scheduler (no work) and two workers; a 20-task DAG (10 layers of 2, `sleep 0.5`) run twice at once. */
  async function startTeam(): Promise<{ team: Team; runIds: number[]; tasks: string[] }> {
    root = tempDir('ax-team-redis-');
    const t = await sharedTeam(root, redis.url);
    cleanup = t.cleanup;
    const { team } = t;
    const wf = layeredWorkflow('redis-fault', team, 10, 2, 'sleep 0.5');
    await team.apply(wf.spec);
    await team.serveAll([
      { role: 'scheduler', options: { noWork: true, workerId: 'sched' } },
      { role: 'worker', options: { workerId: 'w1' } },
      { role: 'worker', options: { workerId: 'w2' } },
    ]);
    const runIds = [await team.startRun('redis-fault'), await team.startRun('redis-fault')];
    return { team, runIds, tasks: wf.tasks };
  }

  /** Waits until about a third of the work is done and some of it runs: mid-run. */
  async function midRun(team: Team, runIds: number[], doneAtLeast: number): Promise<void> {
    await waitFor(
      async () => {
        const all = await instancesOf(team, runIds);
        return all.filter((i) => i.state === 'SUCCESS').length >= doneAtLeast && all.some((i) => i.state === 'RUNNING');
      },
      { timeoutMs: 90_000, intervalMs: 50, message: `${doneAtLeast} instances done and some running` },
    );
  }

  async function expectWorkersBack(team: Team): Promise<void> {
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
    expect(await redis.get(`${team.setup.prefix}lease:scheduler`)).toMatch(/^\d+\|sched:\d+$/);
  }

  it('FLUSHALL twice mid-run: queues and live state are rebuilt from MySQL, every run succeeds, nothing runs twice', async () => {
    const { team, runIds, tasks } = await startTeam();

    await midRun(team, runIds, 8);
    const firstFlush = Date.now();
    await redis.flushAll();
    const resumed = await waitForProgressAfter(team, runIds, firstFlush, RESUME_BOUND_MS + 30_000);
    expect(resumed - firstFlush).toBeLessThan(RESUME_BOUND_MS);

    await midRun(team, runIds, 24);
    const secondFlush = Date.now();
    await redis.flushAll();
    await waitForProgressAfter(team, runIds, secondFlush, RESUME_BOUND_MS + 30_000);

    await waitForRunsToEnd(team, runIds, 120_000);
    expect(await checkInvariants(team, runIds, { tasks, noTimeout: true, noFailover: true, singleExecution: true })).toEqual([]);
    await expectWorkersBack(team);
    // Every node lived through it.
    expect(team.nodes.filter((n) => !n.proc.running).map((n) => `${n.workerId}: ${n.proc.stderr}`)).toEqual([]);
  }, 300_000);

  it('Redis killed (kill -9) mid-run and restarted empty on the same port: every run succeeds, nothing runs twice', async () => {
    const { team, runIds, tasks } = await startTeam();

    await midRun(team, runIds, 8);
    await redis.kill();
    // Down for longer than a worker may stay silent (3 × its heartbeat): an outage of Redis must
    // not look like dead workers, since their heartbeats in the database are the truth.
    await new Promise((resolve) => setTimeout(resolve, 4 * (TEAM_CONFIG.workerHeartbeatMs as number)));
    await redis.start();
    const restarted = Date.now();
    const resumed = await waitForProgressAfter(team, runIds, restarted, RESUME_BOUND_MS + 30_000);
    expect(resumed - restarted).toBeLessThan(RESUME_BOUND_MS);

    await waitForRunsToEnd(team, runIds, 120_000);
    expect(await checkInvariants(team, runIds, { tasks, noTimeout: true, noFailover: true, singleExecution: true })).toEqual([]);
    await expectWorkersBack(team);
    expect(team.nodes.filter((n) => !n.proc.running).map((n) => `${n.workerId}: ${n.proc.stderr}`)).toEqual([]);
  }, 300_000);
});

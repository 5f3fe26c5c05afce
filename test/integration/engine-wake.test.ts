// Who wakes the dispatcher. Work an engine makes itself (a run's roots, the next task of a
// chain) wakes its own dispatcher by a direct call; WAITING instances another process creates
// (a client's `ax run` in team mode) reach the leader as coordinator events, and so does a slot
// freed on another node's worker (its outcome), which is the leader's cue to send that worker
// its next task. Ticks are a minute
// apart here, so a run that ends within seconds was dispatched by a wake-up, not by a tick.
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { RedisCoordinator } from '../../engine/adapters/redis/redis-coordinator.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { systemClock } from '../../engine/adapters/system-clock.ts';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import { Engine, type EngineDeps } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import type { Coordinator } from '../../engine/ports/coordinator.ts';
import { deleteRedisPrefix, redisAvailable, REDIS_URL, uniqueName } from '../helpers/services.ts';
import { tempDir } from '../helpers/files.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';

const available = await redisAvailable();

const CHAIN =
  'workflow: chain\ntasks:\n  a: { command: "true" }\n  b: { command: "true", upstream: [a] }\n  c: { command: "true", upstream: [b] }\n';
const THREE = 'workflow: three\ntasks:\n  a: { command: "true" }\n  b: { command: "true" }\n  c: { command: "true" }\n';
/** far above the time a three-task chain of `true` takes when every step wakes the dispatcher */
const TICK_MS = 60_000;
const WITHIN_MS = 15_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sharedStore() {
  const store = await openSqliteStore(`${tempDir('ax-wake-')}/ax.db`);
  cleanups.push(() => store.close());
  return store;
}

/** One store and a Redis prefix for the engines of one test: `coordinator()` is one per engine. */
async function sharedTeam(): Promise<{
  store: Awaited<ReturnType<typeof sharedStore>>;
  coordinator: () => Coordinator;
}> {
  const store = await sharedStore();
  const prefix = `${uniqueName('axtest')}:`;
  cleanups.push(() => deleteRedisPrefix(prefix));
  const coordinator = (): Coordinator => {
    const c = new RedisCoordinator({ url: REDIS_URL, prefix });
    cleanups.push(() => c.close());
    return c;
  };
  return { store, coordinator };
}

function engine(
  deps: Pick<EngineDeps, 'store' | 'coordinator' | 'nodeId'> & { works: boolean; schedules?: boolean; slots?: number },
): Engine {
  const e = new Engine({
    ...nodeHostDefaults(),
    store: deps.store,
    coordinator: deps.coordinator,
    nodeId: deps.nodeId,
    runner: new NodeProcessRunner(),
    clock: systemClock,
    config: { ...FAST_CONFIG, tickMs: TICK_MS },
    ...(deps.works && {
      worker: {
        id: `${deps.nodeId}-worker`,
        host: os.hostname(),
        pid: process.pid,
        version: 'test',
        labels: [],
        acceptUnlabelled: true,
        maxConcurrency: deps.slots,
        baseEnv: { PATH: process.env.PATH ?? '' },
      },
    }),
    runScheduler: deps.schedules ?? deps.works,
  });
  cleanups.push(() => e.stop(5_000));
  return e;
}

async function ended(on: Engine, runId: number): Promise<RunDetail> {
  await waitFor(async () => (await on.getRun(runId)).run.state !== 'RUNNING', {
    timeoutMs: WITHIN_MS,
    intervalMs: 25,
    message: `run #${runId} did not end between two ticks`,
  });
  return on.getRun(runId);
}

describe('dispatch wake-ups', () => {
  it("an engine's own run goes through its chain between two ticks (solo: no events to learn from)", async () => {
    const leader = engine({
      store: await sharedStore(),
      coordinator: new MemoryCoordinator(),
      nodeId: 'solo',
      works: true,
    });
    await leader.apply(parseWorkflowFile(CHAIN, { defaultTimezone: 'UTC' }).spec, 'test');
    await leader.start();
    const run = await leader.runWorkflow('chain', { actor: 'test' });
    const done = await ended(leader, run.id);
    expect(done.run.state).toBe('SUCCESS');
    expect(done.instances.map((i) => i.state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
  });

  // Skipped only off CI on a machine without Redis: under CI=true redisAvailable() throws instead.
  it.skipIf(!available)(
    "a client's run reaches the leader as an event; the leader's own run wakes its dispatcher directly",
    async () => {
      const { store, coordinator } = await sharedTeam();
      const leader = engine({ store, coordinator: coordinator(), nodeId: 'leader', works: true });
      const client = engine({ store, coordinator: coordinator(), nodeId: 'client', works: false });
      await client.apply(parseWorkflowFile(CHAIN, { defaultTimezone: 'UTC' }).spec, 'test');
      await leader.start();
      await client.start();

      const fromClient = await client.runWorkflow('chain', { actor: 'test' });
      expect((await ended(leader, fromClient.id)).run.state).toBe('SUCCESS');
      const own = await leader.runWorkflow('chain', { actor: 'test' });
      expect((await ended(leader, own.id)).run.state).toBe('SUCCESS');
    },
  );

  // Skipped only off CI on a machine without Redis: under CI=true redisAvailable() throws instead.
  it.skipIf(!available)(
    "a task ending on another node's worker wakes the leader, which sends that worker its next task",
    async () => {
      const { store, coordinator } = await sharedTeam();
      // A scheduler that does not work, and a worker with one slot: three independent tasks, so
      // each next task waits for a slot, and no outcome makes new WAITING work.
      const leader = engine({ store, coordinator: coordinator(), nodeId: 'leader', works: false, schedules: true });
      const worker = engine({
        store,
        coordinator: coordinator(),
        nodeId: 'worker',
        works: true,
        schedules: false,
        slots: 1,
      });
      await leader.apply(parseWorkflowFile(THREE, { defaultTimezone: 'UTC' }).spec, 'test');
      await leader.start();
      await worker.start();
      const run = await leader.runWorkflow('three', { actor: 'test' });
      const done = await ended(leader, run.id);
      expect(done.run.state).toBe('SUCCESS');
      expect(new Set(done.instances.map((i) => i.workerId))).toEqual(new Set(['worker-worker']));
    },
  );
});

// Store contract: runWaits, what the run page shows for a run's tasks held by another workflow:
// each wait of a still-WAITING instance, the other workflow's run in the wait's window (when one
// exists) and that run's attempt of the awaited task; nothing for an instance that stopped waiting.
import { describe, expect, it } from 'vitest';
import type { InstanceDraft } from '../../engine/ports/store.ts';
import {
  addInstance,
  createRun,
  manualRun,
  move,
  runOn,
  seedRun,
  T0,
  task,
  workflow,
  type Seeded,
  type StoreGetter,
} from './store-fixtures.ts';

const HOUR = 3_600_000;

function held(seed: Seeded, name: string, ref: { workflow: string; task?: string }): InstanceDraft {
  return {
    taskId: seed.tasks.get(name) ?? -1,
    taskName: name,
    attempt: 1,
    state: 'WAITING',
    notBefore: T0,
    upstreams: { crossUpstream: [{ ...ref, date: 'same_day' }], timezone: 'UTC', waitTimeoutMs: HOUR },
  };
}

export function waitsContract(store: StoreGetter): void {
  describe('runWaits', () => {
    it("names each held task's upstream, the other workflow's run and its attempt, and the deadline", async () => {
      const { workflowId: orders } = await store().applyWorkflow(workflow('orders', [task('load')]), T0);
      // two runs of orders on the same day: the latest logical time is the one that releases
      await createRun(store(), manualRun(orders, { logicalTime: T0 - 2 * HOUR }));
      const ordersRun = await createRun(store(), manualRun(orders, { logicalTime: T0 - HOUR }));
      const seed = await seedRun(store());
      const created = await store().addInstances(
        seed.runId,
        [held(seed, 'b', { workflow: 'orders', task: 'load' }), held(seed, 'c', { workflow: 'billing' })],
        T0 + 100,
      );
      expect(created.map((i) => i.taskName)).toEqual(['b', 'c']);
      const waits = await store().runWaits(seed.runId);
      expect(waits).toEqual([
        {
          instanceId: created[0]?.id,
          task: 'b',
          upstream: 'orders.load',
          upstreamWorkflow: 'orders',
          upstreamTask: 'load',
          logicalTime: T0 - HOUR,
          upstreamRunId: ordersRun?.id,
          upstreamRunState: 'RUNNING',
          deadline: T0 + 100 + HOUR,
          reason: 'waiting for orders.load of 2023-11-14',
          reasonCode: { code: 'waiting_upstream', args: { labels: 'orders.load of 2023-11-14' } },
        },
        {
          instanceId: created[1]?.id,
          task: 'c',
          upstream: 'billing.*',
          upstreamWorkflow: 'billing',
          upstreamTask: '*',
          // no run of billing yet: the start of the day it waits for
          logicalTime: Date.UTC(2023, 10, 14),
          deadline: T0 + 100 + HOUR,
          reason: 'waiting for the whole of billing of 2023-11-14',
          reasonCode: { code: 'waiting_upstream', args: { labels: 'the whole of billing of 2023-11-14' } },
        },
      ]);
    });

    it("adds the upstream task's latest attempt once it exists, and forgets a task that stopped waiting", async () => {
      const { workflowId: orders } = await store().applyWorkflow(workflow('orders', [task('load')]), T0);
      const ordersRun = await createRun(store(), manualRun(orders, { logicalTime: T0 }));
      const graph = await store().getWorkflowGraph(orders);
      const loadId = graph?.tasks.find((t) => t.name === 'load')?.id ?? -1;
      const ordersSeed: Seeded = { workflowId: orders, runId: ordersRun?.id ?? -1, tasks: new Map([['load', loadId]]) };
      const first = await addInstance(store(), ordersSeed, 'load');
      await move(store(), await runOn(store(), first, 'w1'), 'FAILED', { exitCode: 1, finishedAt: T0 + 5 });
      const retry = await runOn(store(), await addInstance(store(), ordersSeed, 'load', { attempt: 2 }), 'w1');

      const seed = await seedRun(store());
      const [, c] = await store().addInstances(
        seed.runId,
        [held(seed, 'b', { workflow: 'orders', task: 'load' }), held(seed, 'c', { workflow: 'orders', task: 'load' })],
        T0 + 100,
      );
      const other = await seedRun(store(), 'etl2');
      await store().addInstances(other.runId, [held(other, 'b', { workflow: 'orders', task: 'load' })], T0 + 100);

      expect((await store().runWaits(seed.runId)).map((w) => [w.task, w.upstreamInstanceId, w.upstreamState])).toEqual([
        ['b', retry.id, 'RUNNING'],
        ['c', retry.id, 'RUNNING'],
      ]);
      // c was cancelled while it waited: its row may linger until the expiry sweep, but it waits no more
      if (!c) throw new Error('c was not created');
      await move(store(), c, 'CANCELLED', { finishedAt: T0 + 200 });
      expect((await store().runWaits(seed.runId)).map((w) => w.task)).toEqual(['b']);
      expect(await store().runWaits(seed.runId + 1000)).toEqual([]);
    });
  });
}

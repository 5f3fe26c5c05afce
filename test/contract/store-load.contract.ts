// Store contract, part 10: the read models behind "running on a worker" (the worker listings,
// the drain's answer, the dashboard) and a task's latest attempt (the dashboard's recovered tasks).
import { describe, expect, it } from 'vitest';
import { addInstance, move, runOn, seedRun, T0 } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

export function loadContract(store: StoreGetter): void {
  describe('runningCountByWorker', () => {
    it('counts RUNNING instances per worker, not the DISPATCHED or finished ones', async () => {
      const seed = await seedRun(store());
      await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      await runOn(store(), await addInstance(store(), seed, 'b'), 'w1');
      await runOn(store(), await addInstance(store(), seed, 'c'), 'w2');
      await move(store(), await addInstance(store(), seed, 'a', { attempt: 2 }), 'DISPATCHED', {
        workerId: 'w3',
        dispatchedAt: T0,
      });
      const done = await runOn(store(), await addInstance(store(), seed, 'b', { attempt: 2 }), 'w2');
      await move(store(), done, 'SUCCESS', { finishedAt: T0 + 1 });
      expect(Object.fromEntries(await store().runningCountByWorker())).toEqual({ w1: 2, w2: 1 });
    });
  });

  describe('latestAttempts', () => {
    it("gives each asked (run, task) pair's highest attempt, and only those", async () => {
      const seed = await seedRun(store());
      const a1 = await move(store(), await addInstance(store(), seed, 'a'), 'FAILED', { finishedAt: T0 });
      const a2 = await addInstance(store(), seed, 'a', { attempt: 2 });
      const b1 = await addInstance(store(), seed, 'b');
      await addInstance(store(), seed, 'c');
      const asked = [a1, b1].map((i) => ({ runId: i.runId, taskId: i.taskId }));
      expect((await store().latestAttempts(asked)).map((i) => [i.taskName, i.attempt, i.id])).toEqual([
        ['a', 2, a2.id],
        ['b', 1, b1.id],
      ]);
      expect(await store().latestAttempts([])).toEqual([]);
    });
  });
}

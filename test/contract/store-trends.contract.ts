// Store contract: finishedRunDurations, what duration trends are computed from (issue 24). The
// last N runs that ended with a duration, oldest first, and their attempts that finished.
import { describe, expect, it } from 'vitest';
import type { RunState } from '../../engine/api/types.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { Store } from '../../engine/ports/store.ts';
import {
  addInstance,
  createRun,
  graphOf,
  manualRun,
  move,
  runOn,
  T0,
  task,
  taskIds,
  workflow,
} from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

/** a run that started at `start` and is in `state`, finished at `end` when given (below the port) */
async function runOf(store: Store, workflowId: number, state: RunState, start: number | null, end: number | null) {
  const run = await createRun(store, manualRun(workflowId, { logicalTime: T0 + (start ?? 0) }));
  if (!run) throw new Error('run refused');
  await (store as SqlStore).db
    .updateTable('workflow_run')
    .set({ state, started_at: start, finished_at: end })
    .where('id', '=', run.id)
    .execute();
  return run.id;
}

export function trendsContract(store: StoreGetter): void {
  describe('finishedRunDurations', () => {
    it('answers the last N ended runs oldest first, skipping the ones still going or never started', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')]), T0);
      const other = await store().applyWorkflow(workflow('other', [task('a')]), T0);
      await runOf(store(), other.workflowId, 'SUCCESS', T0, T0 + 5);
      const r1 = await runOf(store(), workflowId, 'SUCCESS', T0, T0 + 1000);
      const r2 = await runOf(store(), workflowId, 'FAILED', T0 + 10_000, T0 + 12_000);
      await runOf(store(), workflowId, 'RUNNING', T0 + 20_000, null);
      await runOf(store(), workflowId, 'SKIPPED', null, T0 + 30_000);
      const r3 = await runOf(store(), workflowId, 'CANCELLED', T0 + 40_000, T0 + 43_000);

      const all = await store().finishedRunDurations(workflowId, 10);
      expect(all.runs).toEqual([
        { runId: r1, state: 'SUCCESS', startedAt: T0, finishedAt: T0 + 1000 },
        { runId: r2, state: 'FAILED', startedAt: T0 + 10_000, finishedAt: T0 + 12_000 },
        { runId: r3, state: 'CANCELLED', startedAt: T0 + 40_000, finishedAt: T0 + 43_000 },
      ]);
      const lastTwo = await store().finishedRunDurations(workflowId, 2);
      expect(lastTwo.runs.map((r) => r.runId)).toEqual([r2, r3]);
      expect(await store().finishedRunDurations(workflowId + 1000, 10)).toEqual({ runs: [], attempts: [] });
    });

    it("lists those runs' finished attempts in id order, retries included, unfinished ones left out", async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a'), task('b', ['a'])]), T0);
      const tasks = taskIds(await graphOf(store(), workflowId));
      const runId = await runOf(store(), workflowId, 'SUCCESS', T0, T0 + 9000);
      const seed = { workflowId, runId, tasks };
      const a1 = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1', T0);
      await move(store(), a1, 'FAILED', { finishedAt: T0 + 1000 });
      const a2 = await runOn(store(), await addInstance(store(), seed, 'a', { attempt: 2 }), 'w1', T0 + 2000);
      await move(store(), a2, 'SUCCESS', { finishedAt: T0 + 2500 });
      await runOn(store(), await addInstance(store(), seed, 'b'), 'w1', T0 + 3000);

      const { attempts } = await store().finishedRunDurations(workflowId, 10);
      expect(attempts).toEqual([
        { runId, task: 'a', startedAt: T0, finishedAt: T0 + 1000 },
        { runId, task: 'a', startedAt: T0 + 2000, finishedAt: T0 + 2500 },
      ]);
    });
  });
}

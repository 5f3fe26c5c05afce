// Store contract: backfills. A backfill is created RUNNING with its logical times; its progress is
// read from its runs' states; a logical time of a backfill gets one run whoever creates it (the
// unique key), and none once the backfill is no longer RUNNING (start-run checks it under the
// backfill's lock); end and reopen are compare-and-sets on its state.
import { describe, expect, it } from 'vitest';
import type { NewBackfill } from '../../engine/ports/store.ts';
import { createRun, manualRun, setRunState, T0, task, workflow } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

const HOUR = 3_600_000;

export function backfillsContract(store: StoreGetter, peer: StoreGetter): void {
  async function seed(times = [T0, T0 + HOUR, T0 + 2 * HOUR]) {
    const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')]), T0);
    const draft: NewBackfill = {
      workflowId,
      workflowName: 'etl',
      from: T0,
      to: T0 + 3 * HOUR,
      times,
      params: { region: 'eu', limit: 10, dry: false },
      maxParallel: 2,
      rerunExisting: false,
      createdBy: 'alice',
      createdAt: T0,
    };
    return { workflowId, backfill: await store().createBackfill(draft) };
  }
  const backfillRun = (workflowId: number, backfillId: number, logicalTime: number) =>
    manualRun(workflowId, { trigger: 'backfill', triggeredBy: `backfill #${backfillId}`, logicalTime, backfillId });

  describe('backfills', () => {
    it('creates a backfill RUNNING with its times, params and no progress; lists newest first, by workflow', async () => {
      const { workflowId, backfill } = await seed();
      expect(backfill).toEqual({
        id: backfill.id,
        workflowId,
        workflowName: 'etl',
        from: T0,
        to: T0 + 3 * HOUR,
        state: 'RUNNING',
        maxParallel: 2,
        params: { region: 'eu', limit: 10, dry: false },
        total: 3,
        done: 0,
        failed: 0,
        running: 0,
        createdBy: 'alice',
        createdAt: T0,
        rerunExisting: false,
      });
      expect(await store().backfillTimes(backfill.id)).toEqual([T0, T0 + HOUR, T0 + 2 * HOUR]);
      const { workflowId: otherId } = await store().applyWorkflow(workflow('other', [task('a')]), T0);
      const other = await store().createBackfill({
        workflowId: otherId,
        workflowName: 'other',
        from: T0,
        to: T0,
        every: '1d',
        times: [T0],
        maxParallel: 1,
        rerunExisting: true,
        createdBy: 'bob',
        createdAt: T0 + 1,
      });
      expect(other).toMatchObject({ every: '1d', rerunExisting: true, total: 1 });
      expect(other.params).toBeUndefined();
      expect((await store().listBackfills({})).map((b) => b.id)).toEqual([other.id, backfill.id]);
      expect((await store().listBackfills({ workflowName: 'etl' })).map((b) => b.id)).toEqual([backfill.id]);
      expect((await store().listBackfills({ states: ['SUCCESS'] })).map((b) => b.id)).toEqual([]);
      expect(await store().getBackfill(other.id + 100)).toBeUndefined();
    });

    it('one run per (backfill, logical time), whoever creates it; its runs and progress are read by state', async () => {
      const { workflowId, backfill } = await seed();
      const first = await createRun(store(), backfillRun(workflowId, backfill.id, T0));
      expect(first).toMatchObject({ trigger: 'backfill', backfillId: backfill.id, logicalTime: T0 });
      // the same time again, through another connection: refused (undefined), not a second run
      expect(await createRun(peer(), backfillRun(workflowId, backfill.id, T0))).toBeUndefined();
      // other runs of the same logical time (cron, manual) are not the backfill's
      expect(await createRun(store(), manualRun(workflowId, { logicalTime: T0 }))).toBeDefined();
      const second = await createRun(store(), backfillRun(workflowId, backfill.id, T0 + HOUR));
      const third = await createRun(store(), backfillRun(workflowId, backfill.id, T0 + 2 * HOUR));
      await setRunState(store(), first?.id as number, 'SUCCESS', T0 + 10);
      await setRunState(store(), second?.id as number, 'FAILED', T0 + 20);
      expect((await store().backfillRuns(backfill.id)).map((r) => [r.id, r.logicalTime, r.state])).toEqual([
        [first?.id, T0, 'SUCCESS'],
        [second?.id, T0 + HOUR, 'FAILED'],
        [third?.id, T0 + 2 * HOUR, 'RUNNING'],
      ]);
      expect(await store().getBackfill(backfill.id)).toMatchObject({ done: 2, failed: 1, running: 1, total: 3 });
      expect((await store().listBackfills({}))[0]).toMatchObject({ done: 2, failed: 1, running: 1 });
      expect((await store().runLogicalTimes(workflowId, T0, T0 + HOUR)).sort()).toEqual([T0, T0 + HOUR]);
      expect(await store().runLogicalTimes(workflowId, T0 + 3 * HOUR, T0 + 9 * HOUR)).toEqual([]);
    });

    it('ends once (compare-and-set on RUNNING); a cancelled backfill gets no run; reopen only from SUCCESS or FAILED', async () => {
      const { workflowId, backfill } = await seed();
      expect(await store().reopenBackfill(backfill.id, T0 + 1)).toBe(false);
      expect(await store().endBackfill(backfill.id, 'CANCELLED', T0 + 5)).toBe(true);
      expect(await peer().endBackfill(backfill.id, 'SUCCESS', T0 + 6)).toBe(false);
      expect(await store().getBackfill(backfill.id)).toMatchObject({ state: 'CANCELLED', finishedAt: T0 + 5 });
      expect(await createRun(store(), backfillRun(workflowId, backfill.id, T0))).toBeUndefined();
      expect(await store().backfillRuns(backfill.id)).toEqual([]);
      expect(await store().reopenBackfill(backfill.id, T0 + 7)).toBe(false);

      const { backfill: other } = await seed();
      expect(await store().endBackfill(other.id, 'FAILED', T0 + 5)).toBe(true);
      expect(await store().reopenBackfill(other.id, T0 + 9)).toBe(true);
      const reopened = await store().getBackfill(other.id);
      expect(reopened).toMatchObject({ state: 'RUNNING', rerunAt: T0 + 9 });
      expect(reopened?.finishedAt).toBeUndefined();
    });
  });
}

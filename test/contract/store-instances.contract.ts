// Store contract, part 3: the queries the scheduler's loops poll (due work, outcomes to react to,
// run progress) and the batched task heartbeats of design.md §7.
import { describe, expect, it } from 'vitest';
import { addInstance, createRun, move, mustGet, runOn, seedRun, T0 } from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import type { Finish } from '../../engine/ports/store.ts';

const ids = (records: { id: number }[]): number[] => records.map((r) => r.id);
const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);

/** A finish step that records the state the instance already has: it only marks it handled. */
function again(seed: Seeded, inst: InstanceRecord): Finish {
  return {
    id: inst.id,
    runId: seed.runId,
    guard: { from: [inst.state], attempt: inst.attempt },
    to: inst.state as Finish['to'],
    outcome: {},
    followUps: {},
    settlement: { taskCount: seed.tasks.size, queuedRoots: [] },
  };
}

export function instancesContract(store: StoreGetter): void {
  describe('dueWaiting and nextWaitingAt', () => {
    it('returns due WAITING instances, earliest notBefore first, oldest first on a tie', async () => {
      const seed = await seedRun(store());
      const late = await addInstance(store(), seed, 'a', { notBefore: T0 + 30 });
      const early = await addInstance(store(), seed, 'b', { notBefore: T0 + 10 });
      const tieOld = await addInstance(store(), seed, 'c', { notBefore: T0 + 20 });
      const tieNew = await addInstance(store(), seed, 'a', { attempt: 2, notBefore: T0 + 20 });
      await move(store(), await addInstance(store(), seed, 'b', { attempt: 2, notBefore: T0 }), 'DISPATCHED', {
        workerId: 'w1',
      });

      expect(ids(await store().dueWaiting(T0 + 20, 10))).toEqual([early.id, tieOld.id, tieNew.id]);
      expect(ids(await store().dueWaiting(T0 + 20, 2))).toEqual([early.id, tieOld.id]);
      expect(ids(await store().dueWaiting(T0 + 9, 10))).toEqual([]);
      expect(ids(await store().dueWaiting(T0 + 30, 10))).toEqual([early.id, tieOld.id, tieNew.id, late.id]);
      expect(await store().nextWaitingAt()).toBe(T0 + 10);
      // Paging with a cursor (notBefore, id): the next page starts right after the cursor, ties included.
      expect(ids(await store().dueWaiting(T0 + 30, 2, { notBefore: T0 + 20, id: tieOld.id }))).toEqual([
        tieNew.id,
        late.id,
      ]);
      expect(ids(await store().dueWaiting(T0 + 30, 10, { notBefore: T0 + 30, id: late.id }))).toEqual([]);
    });

    it('a retry created with a later notBefore is not due until then', async () => {
      const seed = await seedRun(store());
      const inst = await addInstance(store(), seed, 'a', { notBefore: T0 + 60_000 });
      expect(await store().dueWaiting(T0 + 59_999, 10)).toEqual([]);
      expect(ids(await store().dueWaiting(T0 + 60_000, 10))).toEqual([inst.id]);
      expect(await store().nextWaitingAt()).toBe(T0 + 60_000);
    });

    it('nextWaitingAt is undefined when nothing waits', async () => {
      expect(await store().nextWaitingAt()).toBeUndefined();
      const seed = await seedRun(store());
      await move(store(), await addInstance(store(), seed, 'a', { notBefore: T0 + 5 }), 'DISPATCHED', {
        workerId: 'w1',
      });
      expect(await store().nextWaitingAt()).toBeUndefined();
    });
  });

  describe('unhandledFinished', () => {
    it('lists final instances until a finish step has handled them', async () => {
      const seed = await seedRun(store());
      const ok = await move(store(), await runOn(store(), await addInstance(store(), seed, 'a'), 'w1'), 'SUCCESS', {
        exitCode: 0,
      });
      const failed = await move(store(), await runOn(store(), await addInstance(store(), seed, 'b'), 'w1'), 'TIMEOUT', {
        reason: 'timeout',
      });
      await runOn(store(), await addInstance(store(), seed, 'c'), 'w1');
      await addInstance(store(), seed, 'c', { attempt: 2, state: 'UPSTREAM_FAILED', handled: true });

      const unhandled = await store().unhandledFinished(10);
      expect(sorted(ids(unhandled))).toEqual(sorted([ok.id, failed.id]));
      expect(unhandled.every((i) => !i.handled)).toBe(true);
      expect(await store().unhandledFinished(1)).toHaveLength(1);

      // The start-up check's step for an outcome recorded without its follow-ups: the same state again.
      await store().finishInstance(again(seed, ok), T0);
      expect(ids(await store().unhandledFinished(10))).toEqual([failed.id]);
      expect(await mustGet(store(), ok.id)).toEqual({ ...ok, handled: true });
    });
  });

  describe('pendingInstanceCount', () => {
    it('counts active instances and final ones not yet handled, in that run only', async () => {
      const seed = await seedRun(store());
      await addInstance(store(), seed, 'a');
      await move(store(), await addInstance(store(), seed, 'b'), 'DISPATCHED', { workerId: 'w1' });
      const running = await runOn(store(), await addInstance(store(), seed, 'c'), 'w1');
      await addInstance(store(), seed, 'a', { attempt: 2, state: 'UPSTREAM_FAILED', handled: true });
      const otherRun = await createRun(store(), {
        workflowId: seed.workflowId,
        state: 'RUNNING',
        trigger: 'manual',
        triggeredBy: 'x',
        logicalTime: T0,
        createdAt: T0,
      });
      await addInstance(store(), { ...seed, runId: otherRun?.id ?? -1 }, 'a');
      expect(await store().pendingInstanceCount(seed.runId)).toBe(3);

      const finished = await move(store(), running, 'SUCCESS', { exitCode: 0 });
      expect(await store().pendingInstanceCount(seed.runId)).toBe(3);
      await store().finishInstance(again(seed, finished), T0);
      expect(await store().pendingInstanceCount(seed.runId)).toBe(2);
      expect(await store().pendingInstanceCount(seed.runId + 1000)).toBe(0);
    });
  });

  describe('instancesInStates', () => {
    it('finds instances by state, up to the limit', async () => {
      const seed = await seedRun(store());
      const waiting = await addInstance(store(), seed, 'a');
      const dispatched = await move(store(), await addInstance(store(), seed, 'b'), 'DISPATCHED', { workerId: 'w1' });
      const running = await runOn(store(), await addInstance(store(), seed, 'c'), 'w2');
      expect(sorted(ids(await store().instancesInStates(['DISPATCHED', 'RUNNING'])))).toEqual(
        sorted([dispatched.id, running.id]),
      );
      expect(ids(await store().instancesInStates(['WAITING']))).toEqual([waiting.id]);
      expect(await store().instancesInStates(['WAITING', 'DISPATCHED', 'RUNNING'], 2)).toHaveLength(2);
      expect(await store().instancesInStates(['SUCCESS'])).toEqual([]);
      expect(await store().instancesInStates([])).toEqual([]);
    });
  });

  describe('recordTaskHeartbeats', () => {
    it('touches and returns only instances still RUNNING and owned by the worker', async () => {
      const seed = await seedRun(store());
      const mine = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      const alsoMine = await runOn(store(), await addInstance(store(), seed, 'b'), 'w1');
      const theirs = await runOn(store(), await addInstance(store(), seed, 'c'), 'w2');
      const finished = await move(
        store(),
        await runOn(store(), await addInstance(store(), seed, 'a', { attempt: 2 }), 'w1'),
        'SUCCESS',
      );
      const queued = await move(store(), await addInstance(store(), seed, 'b', { attempt: 2 }), 'DISPATCHED', {
        workerId: 'w1',
      });

      const beats = [mine, alsoMine, theirs, finished, queued].map((i) => ({
        instanceId: i.id,
        attempt: i.attempt,
        at: T0 + 30_000,
      }));
      beats[1] = { instanceId: alsoMine.id, attempt: 1, at: T0 + 29_000 };
      const owned = await store().recordTaskHeartbeats('w1', beats);
      expect(owned).toEqual(new Set([mine.id, alsoMine.id]));
      expect((await mustGet(store(), mine.id)).heartbeatAt).toBe(T0 + 30_000);
      expect((await mustGet(store(), alsoMine.id)).heartbeatAt).toBe(T0 + 29_000);
      expect(await mustGet(store(), theirs.id)).toEqual(theirs);
      expect(await mustGet(store(), finished.id)).toEqual(finished);
      expect(await mustGet(store(), queued.id)).toEqual(queued);
    });

    it('a beat for another attempt than the stored one is fenced off', async () => {
      const seed = await seedRun(store());
      const running = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      const owned = await store().recordTaskHeartbeats('w1', [{ instanceId: running.id, attempt: 2, at: T0 + 30_000 }]);
      expect(owned).toEqual(new Set());
      expect(await mustGet(store(), running.id)).toEqual(running);
    });

    it('an empty batch and unknown ids own nothing', async () => {
      expect(await store().recordTaskHeartbeats('w1', [])).toEqual(new Set());
      expect(await store().recordTaskHeartbeats('w1', [{ instanceId: 424242, attempt: 1, at: T0 }])).toEqual(new Set());
    });
  });

  describe('reasons and failures', () => {
    it('a reason set to null is cleared, so a "waiting: …" reason does not outlive the wait', async () => {
      const seed = await seedRun(store());
      const inst = await addInstance(store(), seed, 'a');
      expect(await store().setWaitingReason(inst.id, 1, 'waiting: no worker')).toBe(true);
      expect((await mustGet(store(), inst.id)).reason).toBe('waiting: no worker');
      await move(store(), await mustGet(store(), inst.id), 'DISPATCHED', { workerId: 'w1', reason: null });
      expect((await mustGet(store(), inst.id)).reason).toBeUndefined();
    });

    it('a reason keeps its code (migration 0021); a reason written without one clears the old code', async () => {
      const seed = await seedRun(store());
      const inst = await addInstance(store(), seed, 'a', {
        reason: 'waiting for orders.load of 2026-11-30',
        reasonCode: { code: 'waiting_upstream', args: { labels: 'orders.load of 2026-11-30' } },
      });
      expect(inst.reasonCode).toEqual({ code: 'waiting_upstream', args: { labels: 'orders.load of 2026-11-30' } });
      const waiting = { code: 'no_worker_registered' };
      expect(await store().setWaitingReason(inst.id, 1, 'waiting: no worker is registered', waiting)).toBe(true);
      expect(await mustGet(store(), inst.id)).toMatchObject({
        reason: 'waiting: no worker is registered',
        reasonCode: waiting,
      });
      expect(await store().setWaitingReason(inst.id, 1, 'waiting: said without a code')).toBe(true);
      const plain = await mustGet(store(), inst.id);
      expect([plain.reason, plain.reasonCode]).toEqual(['waiting: said without a code', undefined]);
      const running = await runOn(store(), plain, 'w1');
      const result = await store().finishInstance(
        {
          id: running.id,
          runId: seed.runId,
          guard: { from: ['RUNNING'], attempt: 1, workerId: 'w1' },
          to: 'FAILED',
          outcome: { reason: 'exit code 3', reasonCode: { code: 'exit', args: { code: 3 } }, finishedAt: T0 + 5 },
          followUps: {},
          settlement: { taskCount: seed.tasks.size, queuedRoots: [] },
        },
        T0 + 5,
      );
      expect(result.done).toBe(true);
      expect((await mustGet(store(), inst.id)).reasonCode).toEqual({ code: 'exit', args: { code: 3 } });
      // a run's reason and code, as a cancel writes them (on the run and its instances)
      const other = await seedRun(store(), 'other');
      await addInstance(store(), other, 'a');
      const cancelled = await store().cancelRun(other.runId, 'cancelled by alice', [], T0 + 6, {
        code: 'cancelled_by',
        args: { actor: 'alice' },
      });
      expect(cancelled.runs[0]).toMatchObject({ reason: 'cancelled by alice', reasonCode: { code: 'cancelled_by' } });
      expect(cancelled.ended.map((e) => e.reasonCode?.code)).toEqual(['cancelled_by']);
      expect((await store().getRun(other.runId))?.reasonCode).toEqual({
        code: 'cancelled_by',
        args: { actor: 'alice' },
      });
    });

    it("finalFailures lists each task's latest attempt that failed, not a failure a later attempt retried", async () => {
      const seed = await seedRun(store());
      const other = await seedRun(store(), 'other');
      const retried = await move(store(), await runOn(store(), await addInstance(store(), seed, 'a'), 'w1'), 'FAILED', {
        reason: 'exit code 1',
      });
      await move(store(), await runOn(store(), await addInstance(store(), seed, 'a', { attempt: 2 }), 'w1'), 'SUCCESS');
      const failed = await move(store(), await runOn(store(), await addInstance(store(), seed, 'b'), 'w1'), 'FAILED', {
        reason: 'exit code 3',
      });
      const timedOut = await move(
        store(),
        await runOn(store(), await addInstance(store(), seed, 'c'), 'w1'),
        'TIMEOUT',
        { reason: 'timed out' },
      );
      await addInstance(store(), other, 'b', { state: 'UPSTREAM_FAILED', handled: true });
      const elsewhere = await move(
        store(),
        await runOn(store(), await addInstance(store(), other, 'a'), 'w1'),
        'CANCELLED',
      );

      expect(ids(await store().finalFailures([seed.runId]))).toEqual([failed.id, timedOut.id]);
      expect(ids(await store().finalFailures([seed.runId, other.runId]))).toEqual([
        failed.id,
        timedOut.id,
        elsewhere.id,
      ]);
      expect((await store().finalFailures([seed.runId]))[0]).toMatchObject({
        taskName: 'b',
        state: 'FAILED',
        reason: 'exit code 3',
      });
      expect(ids(await store().finalFailures([]))).toEqual([]);
      expect(retried.state).toBe('FAILED');
    });
  });
}

// Store contract, part 6 (continued): finishing an instance with its follow-ups — the retry, the
// downstream once all its upstreams succeeded, the end of the run — all or nothing, and what it
// guarantees to two callers racing on it through two connections.
import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import type { Finish } from '../../engine/ports/store.ts';
import { addInstance, createRun, manualRun, move, mustGet, runOn, setRunState, T0 } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';
import { draft, plainSuccess, seedFlat, seedJoin, settlement, states, success } from './store-transition-fixtures.ts';

export function finishContract(store: StoreGetter, peer: StoreGetter): void {
  describe('finishInstance', () => {
    it('records the outcome and creates a downstream task only once all its upstreams succeeded', async () => {
      const seed = await seedJoin(store());
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      const y = await runOn(store(), await addInstance(store(), seed, 'y'), 'w1');
      const first = await store().finishInstance(success(seed, x), T0 + 10);
      expect(first).toEqual({ done: true, created: [], ended: [], runs: [] });
      expect(await mustGet(store(), x.id)).toMatchObject({
        state: 'SUCCESS',
        exitCode: 0,
        finishedAt: T0 + 10,
        handled: true,
      });
      const second = await store().finishInstance(success(seed, y), T0 + 11);
      expect(second.created.map((i) => [i.taskName, i.state, i.attempt, i.createdAt])).toEqual([
        ['z', 'WAITING', 1, T0 + 11],
      ]);
      expect(second.runs).toEqual([]);
      expect(await states(store(), seed.runId)).toEqual(['x#1:SUCCESS', 'y#1:SUCCESS', 'z#1:WAITING']);
      expect((await store().getRun(seed.runId))?.state).toBe('RUNNING');
    });

    it('counts only a SUCCESS of the other upstream in this run: not a failed attempt, not another run', async () => {
      const seed = await seedJoin(store());
      const other = await seedJoin(store());
      await move(store(), await addInstance(store(), other, 'y'), 'SUCCESS');
      await move(store(), await addInstance(store(), seed, 'y'), 'FAILED');
      const y2 = await runOn(store(), await addInstance(store(), seed, 'y', { attempt: 2 }), 'w1');
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      expect((await store().finishInstance(success(seed, x), T0 + 10)).created).toEqual([]);
      // The retry of y succeeds: now z is ready.
      expect((await store().finishInstance(success(seed, y2), T0 + 20)).created.map((i) => i.taskName)).toEqual(['z']);
    });

    it('writes nothing when the guard refuses: no outcome, no follow-ups', async () => {
      const seed = await seedJoin(store());
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      await move(store(), x, 'CANCELLED', { reason: 'by alice' });
      const step = { ...success(seed, x), followUps: { advance: [{ draft: draft(seed, 'z'), needs: [] }] } };
      expect(await store().finishInstance(step, T0 + 10)).toEqual({ done: false, created: [], ended: [], runs: [] });
      expect(await states(store(), seed.runId)).toEqual(['x#1:CANCELLED']);
      // Another worker's claim on it is refused the same way.
      const y = await runOn(store(), await addInstance(store(), seed, 'y'), 'w1');
      expect(
        (
          await store().finishInstance(
            { ...success(seed, y), guard: { from: ['RUNNING'], attempt: 1, workerId: 'w2' } },
            T0,
          )
        ).done,
      ).toBe(false);
      expect((await mustGet(store(), y.id)).state).toBe('RUNNING');
    });

    it('a failure creates its retry; one with no retry left fails the downstream and ends the run FAILED', async () => {
      const seed = await seedJoin(store());
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      const failed = (inst: InstanceRecord, followUps: Finish['followUps']): Finish => ({
        id: inst.id,
        runId: inst.runId,
        guard: { from: ['RUNNING'], attempt: inst.attempt, workerId: 'w1' },
        to: 'FAILED',
        outcome: { exitCode: 1, reason: 'exit code 1', finishedAt: T0 + 10 },
        followUps,
        settlement: settlement(seed),
      });
      const retried = await store().finishInstance(
        failed(x, { retry: draft(seed, 'x', { attempt: 2, notBefore: T0 + 5_000 }) }),
        T0 + 10,
      );
      expect(retried.created.map((i) => [i.taskName, i.attempt, i.state, i.notBefore])).toEqual([
        ['x', 2, 'WAITING', T0 + 5_000],
      ]);
      expect(retried.runs).toEqual([]);

      const x2 = await runOn(
        store(),
        (await store().listInstances(seed.runId)).find((i) => i.attempt === 2) as InstanceRecord,
        'w1',
      );
      const marker = draft(seed, 'z', { state: 'UPSTREAM_FAILED', notBefore: 0, reason: 'upstream "x" ended FAILED' });
      const y = await addInstance(store(), seed, 'y');
      await move(store(), y, 'CANCELLED', { finishedAt: T0 });
      const last = await store().finishInstance(failed(x2, { upstreamFailed: [marker] }), T0 + 20);
      expect(last.created.map((i) => [i.taskName, i.state, i.reason, i.handled, i.finishedAt])).toEqual([
        ['z', 'UPSTREAM_FAILED', 'upstream "x" ended FAILED', true, T0 + 20],
      ]);
      expect(last.runs.map((r) => [r.id, r.state, r.finishedAt])).toEqual([[seed.runId, 'FAILED', T0 + 20]]);
    });

    it('the last SUCCESS ends the run SUCCESS and starts the oldest queued run with its roots', async () => {
      const seed = await seedJoin(store());
      const queued = [
        await createRun(store(), manualRun(seed.workflowId, { state: 'QUEUED', logicalTime: T0 + 1 })),
        await createRun(store(), manualRun(seed.workflowId, { state: 'QUEUED', logicalTime: T0 + 2 })),
      ];
      for (const name of ['x', 'y']) await move(store(), await addInstance(store(), seed, name), 'SUCCESS');
      const z = await runOn(store(), await addInstance(store(), seed, 'z'), 'w1');
      const done = await store().finishInstance({ ...success(seed, z), followUps: {} }, T0 + 30);
      expect(done.runs.map((r) => [r.id, r.state])).toEqual([
        [seed.runId, 'SUCCESS'],
        [queued[0]?.id, 'RUNNING'],
      ]);
      expect(done.created.map((i) => [i.runId, i.taskName, i.state])).toEqual([
        [queued[0]?.id, 'x', 'WAITING'],
        [queued[0]?.id, 'y', 'WAITING'],
      ]);
      expect((await store().getRun(queued[1]?.id ?? -1))?.state).toBe('QUEUED');
    });

    it('in a run that is no longer RUNNING it records the outcome and nothing else', async () => {
      const seed = await seedJoin(store());
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      await setRunState(store(), seed.runId, 'CANCELLED', T0);
      const step = { ...success(seed, x), followUps: { advance: [{ draft: draft(seed, 'z'), needs: [] }] } };
      expect(await store().finishInstance(step, T0 + 10)).toEqual({ done: true, created: [], ended: [], runs: [] });
      expect(await states(store(), seed.runId)).toEqual(['x#1:SUCCESS']);
    });

    it('a one-task run neither advances nor fails downstream, and succeeds with its one task', async () => {
      const seed = await seedJoin(store(), 'RUNNING', 'x');
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      const step = {
        ...success(seed, x),
        followUps: {
          advance: [{ draft: draft(seed, 'z'), needs: [] }],
          upstreamFailed: [draft(seed, 'y', { state: 'UPSTREAM_FAILED' as const })],
        },
      };
      const done = await store().finishInstance(step, T0 + 10);
      expect(done.created).toEqual([]);
      expect(done.runs.map((r) => r.state)).toEqual(['SUCCESS']);
    });

    it('two upstreams of a join finishing together through two connections create the downstream exactly once', async () => {
      for (let round = 0; round < 8; round++) {
        // w waits on, so the run goes on and neither finish has to end it.
        const seed = await seedJoin(store(), 'RUNNING', undefined, ['w']);
        await addInstance(store(), seed, 'w');
        const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
        const y = await runOn(store(), await addInstance(store(), seed, 'y'), 'w2');
        const [a, b] = await Promise.all([
          store().finishInstance(success(seed, x), T0 + 10),
          peer().finishInstance(success(seed, y), T0 + 10),
        ]);
        expect(a.done && b.done).toBe(true);
        // Never twice (the key) and never zero (each saw the other's SUCCESS, or the other saw its own).
        expect([...a.created, ...b.created].map((i) => i.taskName)).toEqual(['z']);
        expect(await states(store(), seed.runId)).toEqual(['w#1:WAITING', 'x#1:SUCCESS', 'y#1:SUCCESS', 'z#1:WAITING']);
      }
    });

    it('the last instances of a run finishing together through two connections end the run exactly once, after both', async () => {
      // Finishes of one run do not wait for each other (MySQL holds the run's row shared), so
      // which one ends the run is decided between them: never neither, never both.
      for (let round = 0; round < 8; round++) {
        const seed = await seedFlat(store(), 2);
        const [x, y] = await Promise.all(
          ['t0', 't1'].map(async (n, i) => runOn(store(), await addInstance(store(), seed, n), `w${i}`)),
        );
        const [a, b] = await Promise.all([
          store().finishInstance(plainSuccess(seed, x as InstanceRecord), T0 + 10),
          peer().finishInstance(plainSuccess(seed, y as InstanceRecord), T0 + 10),
        ]);
        expect(a.done && b.done).toBe(true);
        expect([...a.runs, ...b.runs].map((r) => [r.id, r.state])).toEqual([[seed.runId, 'SUCCESS']]);
        expect((await store().getRun(seed.runId))?.state).toBe('SUCCESS');
      }
    });

    it('thirty instances of one run finishing at once through two connections: each recorded, the run ends once, as SUCCESS', async () => {
      const n = 30;
      const seed = await seedFlat(store(), n);
      const running = await Promise.all(
        Array.from({ length: n }, async (_, i) =>
          runOn(store(), await addInstance(store(), seed, `t${i}`), `w${i % 3}`),
        ),
      );
      const results = await Promise.all(
        running.map((inst, i) => (i % 2 ? peer() : store()).finishInstance(plainSuccess(seed, inst), T0 + 10)),
      );
      expect(results.every((r) => r.done)).toBe(true);
      expect(results.flatMap((r) => r.runs).map((r) => r.state)).toEqual(['SUCCESS']);
      expect(new Set((await store().listInstances(seed.runId)).map((i) => i.state))).toEqual(new Set(['SUCCESS']));
    });

    it('a cancel racing the last finish through two connections: the run ends once, and the outcome agrees with it', async () => {
      for (let round = 0; round < 6; round++) {
        const seed = await seedFlat(store(), 1);
        const x = await runOn(store(), await addInstance(store(), seed, 't0'), 'w1');
        const [finished, cancelled] = await Promise.all([
          store().finishInstance(plainSuccess(seed, x), T0 + 10),
          peer().cancelRun(seed.runId, 'cancelled by alice', [], T0 + 10),
        ]);
        const ends = [...finished.runs, ...cancelled.runs].map((r) => r.state);
        expect(ends.length).toBe(1);
        const run = await store().getRun(seed.runId);
        expect(run?.state).toBe(ends[0]);
        // The instance is SUCCESS when the finish won (and the run succeeded), CANCELLED when the cancel did.
        expect((await mustGet(store(), x.id)).state).toBe(run?.state === 'SUCCESS' ? 'SUCCESS' : 'CANCELLED');
      }
    });

    it('the same outcome sent twice at once (a retried write) is recorded once, with one set of follow-ups', async () => {
      const seed = await seedJoin(store());
      await move(store(), await addInstance(store(), seed, 'y'), 'SUCCESS');
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      const results = await Promise.all([
        store().finishInstance(success(seed, x), T0 + 10),
        peer().finishInstance(success(seed, x), T0 + 10),
      ]);
      expect(results.map((r) => r.done).sort()).toEqual([false, true]);
      expect(results.flatMap((r) => r.created).map((i) => i.taskName)).toEqual(['z']);
    });
  });
}

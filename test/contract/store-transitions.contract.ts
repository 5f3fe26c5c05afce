// Store contract, part 6: the state machine's compound steps — start-run, finish-with-follow-ups,
// cancel-run, settle-run — each all or nothing, and what they guarantee to two callers racing
// on them through two connections.
import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import type { Finish, InstanceDraft, Settlement, Store } from '../../engine/ports/store.ts';
import {
  addInstance,
  createRun,
  graphOf,
  hourly,
  manualRun,
  move,
  mustGet,
  runOn,
  setRunState,
  T0,
  task,
  taskIds,
  workflow,
} from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';

const draft = (seed: Seeded, name: string, extra: Partial<InstanceDraft> = {}): InstanceDraft => ({
  taskId: seed.tasks.get(name) ?? -1,
  taskName: name,
  attempt: 1,
  state: 'WAITING',
  notBefore: T0,
  ...extra,
});

/** x and y, then z after both: the join that two finishing upstreams race on. */
async function seedJoin(
  store: Store,
  runState: 'RUNNING' | 'QUEUED' = 'RUNNING',
  only?: string,
  others: string[] = [],
): Promise<Seeded> {
  const name = others.length ? `join-${others.join('-')}` : 'join';
  const { workflowId } = await store.applyWorkflow(
    workflow(name, [task('x'), task('y'), task('z', ['x', 'y']), ...others.map((o) => task(o))]),
    T0,
  );
  const tasks = taskIds(await graphOf(store, workflowId));
  const run = await createRun(store, manualRun(workflowId, { state: runState, onlyTask: only }));
  if (!run) throw new Error('seed run was refused');
  return { workflowId, runId: run.id, tasks };
}

function settlement(seed: Seeded, roots = ['x', 'y']): Settlement {
  return { taskCount: seed.tasks.size, queuedRoots: roots.map((r) => draft(seed, r)) };
}

/** The finish a worker sends when its RUNNING instance succeeds: z once x and y both have. */
function success(seed: Seeded, inst: InstanceRecord): Finish {
  const other = inst.taskName === 'x' ? 'y' : 'x';
  return {
    id: inst.id,
    runId: inst.runId,
    guard: { from: ['RUNNING'], attempt: inst.attempt, workerId: inst.workerId },
    to: 'SUCCESS',
    outcome: { exitCode: 0, finishedAt: T0 + 10 },
    followUps: { advance: [{ draft: draft(seed, 'z'), needs: [seed.tasks.get(other) ?? -1] }] },
    settlement: settlement(seed),
  };
}

/** A run of n independent tasks t0…tn-1. */
async function seedFlat(store: Store, n: number): Promise<Seeded> {
  const { workflowId } = await store.applyWorkflow(
    workflow(
      `flat-${n}-${Math.random().toString(36).slice(2, 8)}`,
      Array.from({ length: n }, (_, i) => task(`t${i}`)),
    ),
    T0,
  );
  const tasks = taskIds(await graphOf(store, workflowId));
  const run = await createRun(store, manualRun(workflowId));
  if (!run) throw new Error('seed run was refused');
  return { workflowId, runId: run.id, tasks };
}

/** A RUNNING instance's success, with nothing downstream. */
function plainSuccess(seed: Seeded, inst: InstanceRecord): Finish {
  return { ...success(seed, inst), followUps: {}, settlement: { taskCount: seed.tasks.size, queuedRoots: [] } };
}

const states = async (store: Store, runId: number): Promise<string[]> =>
  (await store.listInstances(runId)).map((i) => `${i.taskName}#${i.attempt}:${i.state}`).sort();

export function transitionsContract(store: StoreGetter, peer: StoreGetter): void {
  describe('startRun', () => {
    it('creates the run and its root instances together, and says what it created', async () => {
      const { workflowId } = await store().applyWorkflow(
        workflow('join', [task('x'), task('y'), task('z', ['x', 'y'])]),
        T0,
      );
      const tasks = taskIds(await graphOf(store(), workflowId));
      const seed = { workflowId, runId: 0, tasks };
      const started = await store().startRun({
        run: manualRun(workflowId),
        roots: [draft(seed, 'x'), draft(seed, 'y')],
      });
      expect(started?.run).toMatchObject({ workflowId, workflowName: 'join', state: 'RUNNING', startedAt: T0 });
      expect(started?.created.map((i) => [i.taskName, i.state, i.attempt, i.runId])).toEqual([
        ['x', 'WAITING', 1, started?.run.id],
        ['y', 'WAITING', 1, started?.run.id],
      ]);
      // What it says it created is what the store holds.
      expect(await store().listInstances(started?.run.id ?? -1)).toEqual(started?.created);
    });

    it('applies the overlap policy: with a run active, a new one is SKIPPED or QUEUED, without instances', async () => {
      const seed = await seedJoin(store());
      const skip = await store().startRun({
        run: manualRun(seed.workflowId, { logicalTime: T0 + 1 }),
        roots: [draft(seed, 'x')],
        overlap: 'skip',
      });
      expect(skip?.run).toMatchObject({
        state: 'SKIPPED',
        reason: `run #${seed.runId} was still running (overlap policy: skip)`,
        finishedAt: T0,
      });
      expect(skip?.created).toEqual([]);
      const queue = await store().startRun({
        run: manualRun(seed.workflowId, { logicalTime: T0 + 2 }),
        roots: [draft(seed, 'x')],
        overlap: 'queue',
      });
      expect(queue?.run).toMatchObject({
        state: 'QUEUED',
        reason: `run #${seed.runId} was still running (overlap policy: queue)`,
      });
      // No policy (a person asked for this run): it starts whatever else runs.
      const manual = await store().startRun({
        run: manualRun(seed.workflowId, { logicalTime: T0 + 3 }),
        roots: [draft(seed, 'x')],
      });
      expect(manual?.run.state).toBe('RUNNING');
      expect(await states(store(), skip?.run.id ?? -1)).toEqual([]);
      expect(await states(store(), queue?.run.id ?? -1)).toEqual([]);
      expect(await states(store(), manual?.run.id ?? -1)).toEqual(['x#1:WAITING']);
    });

    it('a cron fire makes one run, with its roots once, and moves its schedule on', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('cronned', [task('x')], { schedule: hourly }), T0);
      const seed = { workflowId, runId: 0, tasks: taskIds(await graphOf(store(), workflowId)) };
      const scheduleId = (await store().listSchedules())[0]?.id;
      const fire = manualRun(workflowId, { trigger: 'cron', scheduleId, logicalTime: T0 + 3_600_000 });
      const first = await store().startRun({ run: fire, roots: [draft(seed, 'x')] });
      expect(
        await store().startRun({ run: { ...fire, triggeredBy: 'scheduler-2' }, roots: [draft(seed, 'x')] }),
      ).toBeUndefined();
      expect((await store().listRuns({})).map((r) => r.id)).toEqual([first?.run.id]);
      expect(await states(store(), first?.run.id ?? -1)).toEqual(['x#1:WAITING']);
      expect((await store().listSchedules())[0]?.lastFireAt).toBe(T0 + 3_600_000);
    });

    it('refuses a run for a workflow removed meanwhile, and creates nothing', async () => {
      const seed = await seedJoin(store());
      await store().removeWorkflow('join');
      await expect(
        store().startRun({ run: manualRun(seed.workflowId), roots: [draft(seed, 'x')] }),
      ).rejects.toMatchObject({ code: 'not_found' });
      expect(await store().listRuns({})).toEqual([]);
      expect(await store().countInstances(['WAITING'])).toBe(0);
    });

    it('two triggers racing under the skip policy through two connections start one run', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('race', [task('x')]), T0);
      const seed = { workflowId, runId: 0, tasks: taskIds(await graphOf(store(), workflowId)) };
      const starts = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? peer() : store()).startRun({
            run: manualRun(workflowId, { logicalTime: T0 + i }),
            roots: [draft(seed, 'x')],
            overlap: 'skip',
          }),
        ),
      );
      expect(starts.map((s) => s?.run.state).sort()).toEqual([
        'RUNNING',
        'SKIPPED',
        'SKIPPED',
        'SKIPPED',
        'SKIPPED',
        'SKIPPED',
      ]);
      expect(await store().countInstances(['WAITING'])).toBe(1);
    });
  });

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

  describe('cancelRun and settleRun', () => {
    it('cancel-run ends the run and its active instances in one step, and starts the next queued run', async () => {
      const seed = await seedJoin(store());
      const queued = await createRun(store(), manualRun(seed.workflowId, { state: 'QUEUED', logicalTime: T0 + 1 }));
      const x = await runOn(store(), await addInstance(store(), seed, 'x'), 'w1');
      const y = await addInstance(store(), seed, 'y');
      const done = await store().cancelRun(seed.runId, 'cancelled by alice', settlement(seed).queuedRoots, T0 + 50);
      expect(done.done).toBe(true);
      expect(done.ended.map((i) => [i.id, i.state, i.reason, i.workerId, i.finishedAt])).toEqual([
        [x.id, 'CANCELLED', 'cancelled by alice', 'w1', T0 + 50],
        [y.id, 'CANCELLED', 'cancelled by alice', undefined, T0 + 50],
      ]);
      expect(done.runs.map((r) => [r.id, r.state])).toEqual([
        [seed.runId, 'CANCELLED'],
        [queued?.id, 'RUNNING'],
      ]);
      expect(done.created.map((i) => [i.runId, i.taskName])).toEqual([
        [queued?.id, 'x'],
        [queued?.id, 'y'],
      ]);
      // The worker's outcome for x is refused now.
      expect((await store().finishInstance(success(seed, x), T0 + 60)).done).toBe(false);
      expect((await store().cancelRun(seed.runId, 'again', [], T0 + 70)).done).toBe(false);
    });

    it('settle-run ends a RUNNING run with nothing pending, and leaves one with pending work', async () => {
      const seed = await seedJoin(store());
      const x = await addInstance(store(), seed, 'x');
      expect((await store().settleRun(seed.runId, settlement(seed), T0 + 5)).done).toBe(false);
      await move(store(), x, 'FAILED');
      const settled = await store().settleRun(seed.runId, settlement(seed), T0 + 5);
      expect(settled.runs.map((r) => [r.state, r.finishedAt])).toEqual([['FAILED', T0 + 5]]);
      expect((await store().settleRun(seed.runId, settlement(seed), T0 + 6)).done).toBe(false);
    });
  });
}

// Store contract, part 6: the state machine's compound steps — start-run, cancel-run,
// settle-run — each all or nothing, and what they guarantee to two callers racing on them through
// two connections. Finishing an instance, with its follow-ups, is in store-finish.contract.ts.
import { describe, expect, it } from 'vitest';
import {
  addInstance,
  createRun,
  graphOf,
  hourly,
  manualRun,
  move,
  runOn,
  T0,
  task,
  taskIds,
  workflow,
} from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';
import { draft, seedJoin, settlement, states, success } from './store-transition-fixtures.ts';

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

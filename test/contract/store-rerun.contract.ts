// Store contract: rerun-task, one step. A task that failed for good runs again in its run: the
// run RUNNING again, the downstream's UPSTREAM_FAILED markers (and their logs) gone, the new
// attempt created; or, when the task moved on meanwhile, nothing at all. And add-instances, the
// start-up check's step that gives a run the first attempts it lacks.
import { describe, expect, it } from 'vitest';
import { HELD_FOR_UPSTREAM, type InstanceDraft, type RerunTask } from '../../engine/ports/store.ts';
import {
  addInstance,
  createRun,
  manualRun,
  move,
  runOn,
  seedRun,
  setRunState,
  T0,
  task,
  workflow,
} from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';

function attempt(seed: Seeded, name: string, n: number, extra: Partial<InstanceDraft> = {}): InstanceDraft {
  return {
    taskId: seed.tasks.get(name) ?? -1,
    taskName: name,
    attempt: n,
    state: 'WAITING',
    notBefore: T0 + 100,
    ...extra,
  };
}

/** etl's a failed for good: its downstream b and c are markers, and the run ended FAILED. */
async function failedRun(
  store: ReturnType<StoreGetter>,
): Promise<{ seed: Seeded; markers: number[]; failedId: number }> {
  const seed = await seedRun(store);
  const a = await move(store, await runOn(store, await addInstance(store, seed, 'a'), 'w1'), 'FAILED', {
    exitCode: 1,
    finishedAt: T0 + 10,
  });
  const markers = [];
  for (const name of ['b', 'c'])
    markers.push(
      (
        await addInstance(store, seed, name, {
          state: 'UPSTREAM_FAILED',
          handled: true,
          reason: 'upstream "a" ended FAILED',
        })
      ).id,
    );
  await store.appendLogs([{ instanceId: markers[0] ?? -1, seq: 1, stream: 'stdout', ts: T0, line: 'never ran' }]);
  await setRunState(store, seed.runId, 'FAILED', T0 + 10);
  return { seed, markers, failedId: a.id };
}

const rerunOf = (seed: Seeded, markers: number[], extra: Partial<RerunTask> = {}): RerunTask => ({
  runId: seed.runId,
  taskId: seed.tasks.get('a') ?? -1,
  latest: { attempt: 1, from: ['FAILED', 'TIMEOUT', 'CANCELLED'] },
  markers,
  draft: attempt(seed, 'a', 2),
  reason: 're-run of "a"',
  ...extra,
});

export function rerunContract(store: StoreGetter): void {
  describe('rerunTask', () => {
    it('runs an ended run again: its markers and their logs go, the new attempt comes, all in one step', async () => {
      const { seed, markers, failedId } = await failedRun(store());
      const result = await store().rerunTask(rerunOf(seed, markers), T0 + 100);
      expect(result.done).toBe(true);
      expect(result.created.map((i) => [i.taskName, i.attempt, i.state, i.notBefore, i.createdAt])).toEqual([
        ['a', 2, 'WAITING', T0 + 100, T0 + 100],
      ]);
      expect(result.runs.map((r) => [r.id, r.state, r.reason, r.finishedAt])).toEqual([
        [seed.runId, 'RUNNING', 're-run of "a"', undefined],
      ]);
      expect((await store().getRun(seed.runId))?.state).toBe('RUNNING');
      expect((await store().listInstances(seed.runId)).map((i) => [i.id, i.taskName, i.attempt, i.state])).toEqual([
        [failedId, 'a', 1, 'FAILED'],
        [result.created[0]?.id, 'a', 2, 'WAITING'],
      ]);
      expect(await store().readLogs(markers[0] ?? -1, 0, 10)).toEqual([]);
    });

    it('in a run still RUNNING it leaves the run as it is', async () => {
      const { seed, markers } = await failedRun(store());
      await setRunState(store(), seed.runId, 'RUNNING', null);
      const result = await store().rerunTask(rerunOf(seed, markers), T0 + 100);
      expect(result.done).toBe(true);
      expect(result.runs).toEqual([]);
      expect(result.created).toHaveLength(1);
    });

    it('writes nothing when the task moved on since it was judged: another attempt, or a state not re-runnable', async () => {
      const { seed, markers } = await failedRun(store());
      const before = await store().listInstances(seed.runId);
      expect(
        (await store().rerunTask(rerunOf(seed, markers, { latest: { attempt: 2, from: ['FAILED'] } }), T0 + 100)).done,
      ).toBe(false);
      expect(
        (await store().rerunTask(rerunOf(seed, markers, { latest: { attempt: 1, from: ['CANCELLED'] } }), T0 + 100))
          .done,
      ).toBe(false);
      expect((await store().rerunTask(rerunOf(seed, markers, { runId: seed.runId + 1000 }), T0 + 100)).done).toBe(
        false,
      );
      expect(await store().listInstances(seed.runId)).toEqual(before);
      expect((await store().getRun(seed.runId))?.state).toBe('FAILED');
      // Two re-runs of one judgement: the second finds attempt 2 and is refused.
      expect((await store().rerunTask(rerunOf(seed, markers), T0 + 100)).done).toBe(true);
      expect((await store().rerunTask(rerunOf(seed, markers), T0 + 101)).done).toBe(false);
      expect((await store().listInstances(seed.runId)).map((i) => i.attempt)).toEqual([1, 2]);
    });

    it('a new attempt with upstreams in other workflows is held for them in the same step', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('orders', [task('load')]), T0);
      // orders has a run, but its load has not succeeded: the new attempt waits for it.
      await createRun(store(), manualRun(workflowId, { logicalTime: T0 }));
      const { seed, markers } = await failedRun(store());
      const draft = attempt(seed, 'a', 2, {
        upstreams: { crossUpstream: [{ workflow: 'orders', task: 'load', date: 'latest' }], timezone: 'UTC' },
      });
      const result = await store().rerunTask(rerunOf(seed, markers, { draft }), T0 + 100);
      expect(result.created.map((i) => [i.attempt, i.notBefore, i.reason])).toEqual([
        [2, HELD_FOR_UPSTREAM, 'waiting for orders.load (its latest run)'],
      ]);
    });
  });

  describe('addInstances', () => {
    it('adds the missing first attempts to a RUNNING run, skipping one that exists, holding one that waits on another workflow', async () => {
      await store().applyWorkflow(workflow('orders', [task('load')]), T0);
      const seed = await seedRun(store());
      const a = await addInstance(store(), seed, 'a');
      const held = attempt(seed, 'c', 1, {
        upstreams: { crossUpstream: [{ workflow: 'orders', task: 'load', date: 'latest' }], timezone: 'UTC' },
      });
      const created = await store().addInstances(
        seed.runId,
        [attempt(seed, 'a', 1), attempt(seed, 'b', 1), held],
        T0 + 100,
      );
      expect(created.map((i) => [i.taskName, i.attempt, i.notBefore, i.reason])).toEqual([
        ['b', 1, T0 + 100, undefined],
        ['c', 1, HELD_FOR_UPSTREAM, 'waiting for orders.load (its latest run)'],
      ]);
      expect((await store().listInstances(seed.runId)).map((i) => i.id)).toEqual([a.id, ...created.map((i) => i.id)]);
    });

    it('adds nothing to a run that ended, or is gone', async () => {
      const seed = await seedRun(store());
      await setRunState(store(), seed.runId, 'FAILED', T0 + 10);
      expect(await store().addInstances(seed.runId, [attempt(seed, 'a', 1)], T0 + 100)).toEqual([]);
      expect(await store().addInstances(seed.runId + 1000, [attempt(seed, 'a', 1)], T0 + 100)).toEqual([]);
      expect(await store().listInstances(seed.runId)).toEqual([]);
    });
  });
}

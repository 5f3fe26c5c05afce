// Store contract: rerun-failed, one step (issue 23 part 7). A run that ended with failures runs
// its failed tasks again: the run RUNNING again with the reason, the downstream's instances (and
// their logs) cleared, each root's new attempt created; or, when the run or a root moved on since
// it was judged, nothing at all.
import { describe, expect, it } from 'vitest';
import type { InstanceDraft, RerunFailed } from '../../engine/ports/store.ts';
import { addInstance, move, runOn, seedRun, setRunState, T0 } from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';

function draft(seed: Seeded, name: string, n: number): InstanceDraft {
  return { taskId: seed.tasks.get(name) ?? -1, taskName: name, attempt: n, state: 'WAITING', notBefore: T0 + 100 };
}

/**
 * etl (a; b and c after a): a failed for good, b is its UPSTREAM_FAILED marker (with a line of
 * log), c ran anyway (as a cleanup would) and succeeded; the run ended FAILED.
 */
async function failedRun(store: ReturnType<StoreGetter>): Promise<{ seed: Seeded; a: number; b: number; c: number }> {
  const seed = await seedRun(store);
  const a = await move(store, await runOn(store, await addInstance(store, seed, 'a'), 'w1'), 'FAILED', {
    exitCode: 1,
    finishedAt: T0 + 10,
  });
  const b = await addInstance(store, seed, 'b', {
    state: 'UPSTREAM_FAILED',
    handled: true,
    reason: 'upstream "a" ended FAILED',
  });
  const c = await move(store, await runOn(store, await addInstance(store, seed, 'c'), 'w1'), 'SUCCESS', {
    exitCode: 0,
    finishedAt: T0 + 20,
  });
  for (const id of [b.id, c.id])
    await store.appendLogs([{ instanceId: id, seq: 1, stream: 'stdout', ts: T0, line: `log of ${id}` }]);
  await setRunState(store, seed.runId, 'FAILED', T0 + 20);
  return { seed, a: a.id, b: b.id, c: c.id };
}

const rerunOf = (seed: Seeded, cleared: number[], extra: Partial<RerunFailed> = {}): RerunFailed => ({
  runId: seed.runId,
  runState: 'FAILED',
  roots: [{ taskId: seed.tasks.get('a') ?? -1, attempt: 1, state: 'FAILED' }],
  cleared,
  drafts: [draft(seed, 'a', 2)],
  reason: 're-run of the failed tasks: a, b, c',
  ...extra,
});

export function rerunFailedContract(store: StoreGetter): void {
  describe('rerunFailed', () => {
    it('runs an ended run again: the downstream cleared with its logs, the root’s new attempt, all in one step', async () => {
      const { seed, a, b, c } = await failedRun(store());
      const result = await store().rerunFailed(rerunOf(seed, [b, c]), T0 + 100);
      expect(result.done).toBe(true);
      expect(result.created.map((i) => [i.taskName, i.attempt, i.state, i.notBefore])).toEqual([
        ['a', 2, 'WAITING', T0 + 100],
      ]);
      expect(result.runs.map((r) => [r.id, r.state, r.reason, r.finishedAt])).toEqual([
        [seed.runId, 'RUNNING', 're-run of the failed tasks: a, b, c', undefined],
      ]);
      expect((await store().getRun(seed.runId))?.state).toBe('RUNNING');
      expect((await store().listInstances(seed.runId)).map((i) => [i.id, i.taskName, i.attempt, i.state])).toEqual([
        [a, 'a', 1, 'FAILED'],
        [result.created[0]?.id, 'a', 2, 'WAITING'],
      ]);
      expect(await store().readLogs(b, 0, 10)).toEqual([]);
      expect(await store().readLogs(c, 0, 10)).toEqual([]);
      // The run is not final any more: the dispatcher finds the new attempt due.
      expect((await store().dueWaiting(T0 + 100, 10)).map((i) => i.id)).toEqual([result.created[0]?.id]);
    });

    it('several roots at once, each with its own next attempt', async () => {
      const seed = await seedRun(store());
      await move(store(), await runOn(store(), await addInstance(store(), seed, 'a'), 'w1'), 'SUCCESS');
      await move(store(), await runOn(store(), await addInstance(store(), seed, 'b'), 'w1'), 'FAILED');
      const b2 = await move(
        store(),
        await runOn(store(), await addInstance(store(), seed, 'b', { attempt: 2 }), 'w1'),
        'TIMEOUT',
      );
      const c = await move(store(), await runOn(store(), await addInstance(store(), seed, 'c'), 'w1'), 'FAILED');
      await setRunState(store(), seed.runId, 'FAILED', T0 + 20);
      const result = await store().rerunFailed(
        rerunOf(seed, [], {
          roots: [
            { taskId: b2.taskId, attempt: 2, state: 'TIMEOUT' },
            { taskId: c.taskId, attempt: 1, state: 'FAILED' },
          ],
          drafts: [draft(seed, 'b', 3), draft(seed, 'c', 2)],
        }),
        T0 + 100,
      );
      expect(result.done).toBe(true);
      expect((await store().listInstances(seed.runId)).map((i) => [i.taskName, i.attempt, i.state])).toEqual([
        ['a', 1, 'SUCCESS'],
        ['b', 1, 'FAILED'],
        ['b', 2, 'TIMEOUT'],
        ['c', 1, 'FAILED'],
        ['b', 3, 'WAITING'],
        ['c', 2, 'WAITING'],
      ]);
    });

    it('writes nothing when the run or a root moved on since it was judged', async () => {
      const { seed, b, c } = await failedRun(store());
      const before = await store().listInstances(seed.runId);
      const refused = [
        rerunOf(seed, [b, c], { runState: 'SUCCESS' }),
        rerunOf(seed, [b, c], { roots: [{ taskId: seed.tasks.get('a') ?? -1, attempt: 2, state: 'FAILED' }] }),
        rerunOf(seed, [b, c], { roots: [{ taskId: seed.tasks.get('a') ?? -1, attempt: 1, state: 'TIMEOUT' }] }),
        rerunOf(seed, [b, c], { runId: seed.runId + 1000 }),
      ];
      for (const r of refused) expect((await store().rerunFailed(r, T0 + 100)).done).toBe(false);
      expect(await store().listInstances(seed.runId)).toEqual(before);
      expect(await store().readLogs(b, 0, 10)).toHaveLength(1);
      expect((await store().getRun(seed.runId))?.state).toBe('FAILED');
      // Two re-runs of one judgement: the second finds the run RUNNING and is refused.
      expect((await store().rerunFailed(rerunOf(seed, [b, c]), T0 + 100)).done).toBe(true);
      expect((await store().rerunFailed(rerunOf(seed, [b, c]), T0 + 101)).done).toBe(false);
      expect((await store().listInstances(seed.runId)).map((i) => [i.taskName, i.attempt])).toEqual([
        ['a', 1],
        ['a', 2],
      ]);
    });
  });
}

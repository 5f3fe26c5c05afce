// Store contract: task outputs (issue 23 part 5). An instance's outputs are written by the finish
// step that records its outcome (and not when the guard refuses it), read back with the instance;
// and upstream-outputs finds what a starting task gets: its upstreams' latest SUCCESS in the run,
// and across workflows the SUCCESS in a run whose logical time is in the wait's window.
import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import type { Finish, Store } from '../../engine/ports/store.ts';
import { addInstance, createRun, manualRun, runOn, seedRun, T0 } from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';

const HOUR = 3_600_000;

function finish(inst: InstanceRecord, to: Finish['to'], outputs?: Record<string, string>, at = T0 + 10): Finish {
  return {
    id: inst.id,
    runId: inst.runId,
    guard: { from: ['RUNNING'], attempt: inst.attempt, workerId: inst.workerId },
    to,
    outcome: { exitCode: to === 'SUCCESS' ? 0 : 1, finishedAt: at },
    followUps: {},
    settlement: { taskCount: 3, queuedRoots: [] },
    ...(outputs && { outputs }),
  };
}

/** An attempt of `name` that ran and ended `to` with these outputs (through the finish step). */
async function ended(
  store: Store,
  seed: Seeded,
  name: string,
  to: Finish['to'],
  outputs?: Record<string, string>,
  extra: { attempt?: number; at?: number } = {},
): Promise<InstanceRecord> {
  const inst = await runOn(store, await addInstance(store, seed, name, { attempt: extra.attempt ?? 1 }), 'w1');
  expect((await store.finishInstance(finish(inst, to, outputs, extra.at), extra.at ?? T0 + 10)).done).toBe(true);
  return (await store.getInstance(inst.id)) as InstanceRecord;
}

/** A run of `seed`'s workflow at another logical time. */
async function otherRun(store: Store, seed: Seeded, logicalTime: number): Promise<Seeded> {
  const run = await createRun(store, manualRun(seed.workflowId, { logicalTime }));
  if (!run) throw new Error('run refused');
  return { ...seed, runId: run.id };
}

export function outputsContract(store: StoreGetter): void {
  describe('instance outputs', () => {
    it('the finish step stores them with the outcome; they come back with the instance and its run', async () => {
      const seed = await seedRun(store());
      const outputs = { rows: '42', file: 'a b.csv', json: '{"x":[1,"é"]}', empty: '' };
      const a = await ended(store(), seed, 'a', 'SUCCESS', outputs);
      expect(a.outputs).toEqual(outputs);
      const b = await ended(store(), seed, 'b', 'FAILED');
      expect(b.outputs).toBeUndefined();
      const listed = await store().listInstances(seed.runId);
      expect(listed.map((i) => [i.taskName, i.outputs])).toEqual([
        ['a', outputs],
        ['b', undefined],
      ]);
    });

    it('a finish the guard refuses writes no outputs', async () => {
      const seed = await seedRun(store());
      const inst = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      const stale = { ...finish(inst, 'SUCCESS', { rows: '1' }), guard: { from: ['RUNNING' as const], attempt: 2 } };
      expect((await store().finishInstance(stale, T0 + 10)).done).toBe(false);
      expect((await store().getInstance(inst.id))?.outputs).toBeUndefined();
    });
  });

  describe('upstreamOutputs', () => {
    it('in the run: each named task’s latest SUCCESS, only those with outputs', async () => {
      const seed = await seedRun(store());
      await ended(store(), seed, 'a', 'FAILED', { rows: 'failed try' });
      await ended(store(), seed, 'a', 'SUCCESS', { rows: '2' }, { attempt: 2 });
      await ended(store(), seed, 'b', 'SUCCESS');
      await ended(store(), seed, 'c', 'FAILED', { n: 'not a success' });
      // Another run of the workflow: its outputs are not this run's.
      const other = await otherRun(store(), seed, T0);
      await ended(store(), other, 'b', 'SUCCESS', { rows: 'other run' });
      const got = await store().upstreamOutputs({ runId: seed.runId, tasks: ['a', 'b', 'c', 'nope'], cross: [] });
      expect(got).toEqual({ sameRun: [{ task: 'a', outputs: { rows: '2' } }], otherWorkflows: [] });
    });

    it('across workflows: the SUCCESS in a run of the window, the last finished; a latest window; none for an unknown workflow', async () => {
      const orders = await seedRun(store(), 'orders');
      const dayBefore = await otherRun(store(), orders, T0 - 24 * HOUR);
      await ended(store(), dayBefore, 'a', 'SUCCESS', { day: 'before' });
      const sameDay = await otherRun(store(), orders, T0 + HOUR);
      await ended(store(), sameDay, 'a', 'SUCCESS', { day: 'same', try: '1' }, { at: T0 + 20 });
      const sameDayAgain = await otherRun(store(), orders, T0 + 2 * HOUR);
      await ended(store(), sameDayAgain, 'a', 'SUCCESS', { day: 'same', try: '2' }, { at: T0 + 30 });
      await ended(store(), sameDayAgain, 'b', 'FAILED', { b: 'failed' });
      const window = { from: T0, to: T0 + 24 * HOUR };
      const got = await store().upstreamOutputs({
        runId: -1,
        tasks: [],
        cross: [
          { workflow: 'orders', task: 'a', window },
          { workflow: 'orders', task: 'b', window },
          { workflow: 'orders', task: 'a', window: { from: T0 - 48 * HOUR, to: T0 - 12 * HOUR } },
          { workflow: 'nowhere', task: 'a', window },
        ],
      });
      expect(got).toEqual({
        sameRun: [],
        otherWorkflows: [
          { workflow: 'orders', task: 'a', outputs: { day: 'same', try: '2' } },
          { workflow: 'orders', task: 'a', outputs: { day: 'before' } },
        ],
      });
      // latest: from the upstream's latest run at or before the time, onwards.
      const latest = await store().upstreamOutputs({
        runId: -1,
        tasks: [],
        cross: [{ workflow: 'orders', task: 'a', window: { latestAtOrBefore: T0 - HOUR } }],
      });
      expect(latest.otherWorkflows.map((o) => o.outputs)).toEqual([{ day: 'same', try: '2' }]);
    });
  });
}

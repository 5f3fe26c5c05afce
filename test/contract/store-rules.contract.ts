// Store contract: trigger rules in finish-with-follow-ups. An end for good has its downstream
// decided by their run_if rules in the same step (each task once, a skip or a failure cascading,
// each task by its own rule), the rules stored with the definition, and the run's end counting a
// skipped task as no failure. Two upstreams of one task ending together through two connections
// decide it exactly once.
import { describe, expect, it } from 'vitest';
import type { InstanceRecord, InstanceState } from '../../engine/api/types.ts';
import { ruleGraph } from '../../engine/core/runs/follow-ups.ts';
import { indexWorkflow } from '../../engine/core/workflow/workflow-cache.ts';
import type { Finish, Store } from '../../engine/ports/store.ts';
import { addInstance, createRun, graphOf, manualRun, runOn, T0, task, taskIds, workflow } from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';
import { states } from './store-transition-fixtures.ts';

type Rules = Awaited<ReturnType<typeof seedRules>>;

/**
 * a and b, roots; load after a (all_success) and report after load; notice (one_failed) and
 * celebrate (none_failed) after a; tidy (all_done) after load and b; gate (when:) after a.
 */
async function seedRules(store: Store, name: string) {
  const { workflowId } = await store.applyWorkflow(
    workflow(name, [
      task('a'),
      task('b'),
      task('load', ['a']),
      task('report', ['load']),
      task('notice', ['a'], { runIf: 'one_failed' }),
      task('celebrate', ['a'], { runIf: 'none_failed' }),
      task('tidy', ['load', 'b'], { runIf: 'all_done' }),
      task('gate', ['a'], { when: { command: 'test -s rows.csv' } }),
    ]),
    T0,
  );
  const graph = await graphOf(store, workflowId);
  const wf = await indexWorkflow(graph, T0, async () => undefined);
  const run = await createRun(store, manualRun(workflowId));
  if (!run) throw new Error('seed run was refused');
  const seed: Seeded = { workflowId, runId: run.id, tasks: taskIds(graph) };
  return { seed, wf, graph: ruleGraph(wf) };
}

function ending(r: Rules, inst: InstanceRecord, to: Finish['to'], reason?: string): Finish {
  return {
    id: inst.id,
    runId: inst.runId,
    guard: { from: ['RUNNING'], attempt: inst.attempt, workerId: inst.workerId },
    to,
    outcome: { exitCode: to === 'SUCCESS' ? 0 : 1, finishedAt: T0 + 10, ...(reason && { reason }) },
    followUps: { decide: { taskId: inst.taskId, graph: r.graph } },
    settlement: { taskCount: r.seed.tasks.size, queuedRoots: [] },
  };
}

const made = (created: InstanceRecord[]) => created.map((i) => [i.taskName, i.state, i.reason ?? null]);

async function running(store: Store, r: Rules, name: string, worker = 'w1'): Promise<InstanceRecord> {
  return runOn(store, await addInstance(store, r.seed, name), worker);
}

export function rulesContract(store: StoreGetter, peer: StoreGetter): void {
  describe('finishInstance with trigger rules', () => {
    it('stores run_if and when: with the task definition', async () => {
      const r = await seedRules(store(), 'rules-stored');
      const byName = new Map((await graphOf(store(), r.seed.workflowId)).tasks.map((t) => [t.name, t]));
      expect(byName.get('notice')?.runIf).toBe('one_failed');
      expect(byName.get('tidy')?.runIf).toBe('all_done');
      expect(byName.get('gate')?.when).toEqual({ command: 'test -s rows.csv' });
      expect(byName.get('load')?.runIf).toBeUndefined();
      expect(byName.get('load')?.when).toBeUndefined();
    });

    it('a failure for good: each downstream by its rule, the failure cascading, an all_done task left to wait', async () => {
      const r = await seedRules(store(), 'rules-failure');
      const a = await running(store(), r, 'a');
      const step = await store().finishInstance(ending(r, a, 'FAILED', 'exit code 1'), T0 + 10);
      const failedA = 'upstream "a" ended FAILED';
      expect(made(step.created)).toEqual([
        ['load', 'UPSTREAM_FAILED', failedA],
        ['notice', 'WAITING', null],
        ['celebrate', 'UPSTREAM_FAILED', `${failedA} (run_if: none_failed)`],
        ['gate', 'UPSTREAM_FAILED', failedA],
        ['report', 'UPSTREAM_FAILED', failedA],
      ]);
      expect(step.created.filter((i) => i.state !== 'WAITING').every((i) => i.handled)).toBe(true);
      expect(step.runs).toEqual([]);
      // tidy waits for b: b's success decides it (all_done: load's UPSTREAM_FAILED counts as done).
      const b = await running(store(), r, 'b');
      expect(made((await store().finishInstance(ending(r, b, 'SUCCESS'), T0 + 20)).created)).toEqual([
        ['tidy', 'WAITING', null],
      ]);
    });

    it('a success: a one_failed task is skipped and its skip does not reach a task that waits for others', async () => {
      const r = await seedRules(store(), 'rules-success');
      const a = await running(store(), r, 'a');
      const step = await store().finishInstance(ending(r, a, 'SUCCESS'), T0 + 10);
      expect(made(step.created)).toEqual([
        ['load', 'WAITING', null],
        ['notice', 'SKIPPED', 'run_if: one_failed, and no upstream failed'],
        ['celebrate', 'WAITING', null],
        ['gate', 'WAITING', null],
      ]);
    });

    it('an instance ending SKIPPED (its when: said no): all_success downstream skipped, all_done decided once the rest ends', async () => {
      const r = await seedRules(store(), 'rules-skip');
      const a = await running(store(), r, 'a');
      const b = await running(store(), r, 'b');
      await store().finishInstance(ending(r, b, 'SUCCESS'), T0 + 5);
      await store().finishInstance(ending(r, a, 'SUCCESS'), T0 + 6);
      const load = (await store().listInstances(r.seed.runId)).find((i) => i.taskName === 'load') as InstanceRecord;
      const skipped = await store().finishInstance(
        ending(r, await runOn(store(), load, 'w1'), 'SKIPPED', 'when: exited 1: no rows'),
        T0 + 10,
      );
      expect(made(skipped.created)).toEqual([
        ['report', 'SKIPPED', 'upstream "load" ended SKIPPED (run_if: all_success)'],
        ['tidy', 'WAITING', null],
      ]);
      // The rest end: skipped tasks are no failure, so the run is SUCCESS.
      for (const name of ['celebrate', 'gate', 'tidy']) {
        const inst = (await store().listInstances(r.seed.runId)).find((i) => i.taskName === name) as InstanceRecord;
        const end = await store().finishInstance(ending(r, await runOn(store(), inst, 'w1'), 'SUCCESS'), T0 + 20);
        if (name === 'tidy') expect(end.runs.map((run) => run.state)).toEqual(['SUCCESS']);
        else expect(end.runs).toEqual([]);
      }
      expect(await states(store(), r.seed.runId)).toEqual([
        'a#1:SUCCESS',
        'b#1:SUCCESS',
        'celebrate#1:SUCCESS',
        'gate#1:SUCCESS',
        'load#1:SKIPPED',
        'notice#1:SKIPPED',
        'report#1:SKIPPED',
        'tidy#1:SUCCESS',
      ]);
    });

    it('a run with a failure is FAILED even when its all_done and one_failed tasks succeeded', async () => {
      const r = await seedRules(store(), 'rules-failed-run');
      const end = async (name: string, to: InstanceState & Finish['to']) => {
        const list = await store().listInstances(r.seed.runId);
        const inst = list.find((i) => i.taskName === name) ?? (await addInstance(store(), r.seed, name));
        return store().finishInstance(ending(r, await runOn(store(), inst, 'w1'), to), T0 + 30);
      };
      await end('a', 'FAILED');
      await end('b', 'SUCCESS');
      await end('notice', 'SUCCESS');
      const last = await end('tidy', 'SUCCESS');
      expect(last.runs.map((run) => [run.id, run.state])).toEqual([[r.seed.runId, 'FAILED']]);
    });

    it('a scoped run (one task with its downstream): an upstream outside the scope is not waited for', async () => {
      const r = await seedRules(store(), 'rules-scope');
      // The run is b and its downstream (tidy): tidy's other upstream, load, is not part of it.
      const scope = new Set(['b', 'tidy'].map((n) => r.seed.tasks.get(n) ?? -1));
      const b = await running(store(), r, 'b');
      const step = ending(r, b, 'SUCCESS');
      const scoped = { ...step, followUps: { decide: { taskId: b.taskId, graph: r.graph, scope } } };
      expect(made((await store().finishInstance(scoped, T0 + 10)).created)).toEqual([['tidy', 'WAITING', null]]);
      // Without the scope, tidy waits for load, which has no instance.
      const whole = await seedRules(store(), 'rules-scope-whole');
      await running(store(), whole, 'a'); // the run goes on meanwhile
      const b2 = await running(store(), whole, 'b');
      expect((await store().finishInstance(ending(whole, b2, 'SUCCESS'), T0 + 10)).created).toEqual([]);
    });

    it('two upstreams of an all_done task ending together through two connections: decided exactly once', async () => {
      for (let round = 0; round < 6; round++) {
        const { workflowId } = await store().applyWorkflow(
          workflow(`rules-join-${round}`, [task('x'), task('y'), task('j', ['x', 'y'], { runIf: 'all_done' })]),
          T0,
        );
        const graph = await graphOf(store(), workflowId);
        const wf = await indexWorkflow(graph, T0, async () => undefined);
        const run = await createRun(store(), manualRun(workflowId));
        const r: Rules = {
          seed: { workflowId, runId: run?.id ?? -1, tasks: taskIds(graph) },
          wf,
          graph: ruleGraph(wf),
        };
        const x = await running(store(), r, 'x', 'w1');
        const y = await running(store(), r, 'y', 'w2');
        const [a, b] = await Promise.all([
          store().finishInstance(ending(r, x, 'FAILED'), T0 + 10),
          peer().finishInstance(ending(r, y, 'SUCCESS'), T0 + 10),
        ]);
        expect(a.done && b.done).toBe(true);
        // Never twice (the key) and never zero (each saw the other's end, or the other saw its own).
        expect([...a.created, ...b.created].map((i) => [i.taskName, i.state])).toEqual([['j', 'WAITING']]);
      }
    });
  });
}

// Store contract: sub-workflows (`call:` tasks). A call is stored with its task and read back in
// the graph the engine runs from. start-call, one step: the calling instance RUNNING on no worker
// with its child run, created RUNNING with its roots and linked both ways; or nothing at all when
// the instance moved on or its run ended. And the look for child runs nobody waits for.
import { describe, expect, it } from 'vitest';
import type { StartCall, Store } from '../../engine/ports/store.ts';
import {
  addInstance,
  createRun,
  graphOf,
  manualRun,
  move,
  mustGet,
  setRunState,
  T0,
  task,
  taskIds,
  workflow,
} from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';

/** parent: prep, then report calling child; child: x and y (roots), z after both. A RUNNING parent run. */
async function seedCall(store: Store): Promise<{ parent: Seeded; child: Seeded }> {
  const c = await store.applyWorkflow(workflow('child', [task('x'), task('y'), task('z', ['x', 'y'])]), T0);
  const p = await store.applyWorkflow(
    workflow('parent', [task('prep'), task('report', ['prep'], { command: '', call: { workflow: 'child' } })]),
    T0,
  );
  const run = await createRun(store, manualRun(p.workflowId, { logicalTime: T0 - 3_600_000 }));
  if (!run) throw new Error('seed run was refused');
  return {
    parent: { workflowId: p.workflowId, runId: run.id, tasks: taskIds(await graphOf(store, p.workflowId)) },
    child: { workflowId: c.workflowId, runId: 0, tasks: taskIds(await graphOf(store, c.workflowId)) },
  };
}

function startOf(parent: Seeded, child: Seeded, instanceId: number, attempt = 1): StartCall {
  return {
    instance: { id: instanceId, runId: parent.runId, attempt },
    run: manualRun(child.workflowId, {
      trigger: 'call',
      triggeredBy: `run #${parent.runId} (parent.report)`,
      logicalTime: T0 - 3_600_000,
      createdAt: T0 + 5,
      parentRunId: parent.runId,
      parentInstanceId: instanceId,
    }),
    roots: ['x', 'y'].map((name) => ({
      taskId: child.tasks.get(name) ?? -1,
      taskName: name,
      attempt: 1,
      state: 'WAITING' as const,
      notBefore: T0 + 5,
    })),
  };
}

export function callsContract(store: StoreGetter): void {
  describe('call: tasks', () => {
    it('stores a task call with its params and reads it back in the graph and the spec', async () => {
      const spec = workflow('parent', [
        task('load'),
        task('report', ['load'], { command: '', call: { workflow: 'reports', params: { region: 'eu' } } }),
      ]);
      const { workflowId } = await store().applyWorkflow(spec, T0);
      const graph = await graphOf(store(), workflowId);
      const byName = new Map(graph.tasks.map((t) => [t.name, t]));
      expect(byName.get('report')?.call).toEqual({ workflow: 'reports', params: { region: 'eu' } });
      expect(byName.get('load')?.call).toBeUndefined();
      expect((await store().getWorkflowSpec('parent'))?.tasks[1]?.call).toEqual(spec.tasks[1]?.call);
      // Applied again without the call: the column is cleared, not kept from before.
      await store().applyWorkflow(workflow('parent', [task('load'), task('report', ['load'])]), T0 + 1);
      expect((await graphOf(store(), workflowId)).tasks.find((t) => t.name === 'report')?.call).toBeUndefined();
    });

    it('start-call: the calling instance RUNNING on no worker, its child run RUNNING with its roots, linked both ways', async () => {
      const { parent, child } = await seedCall(store());
      // a requeued instance may still name the worker it once went to: a call holds none
      const report = await move(store(), await addInstance(store(), parent, 'report'), 'WAITING', { workerId: 'w1' });
      expect(report.workerId).toBe('w1');
      const started = await store().startCall(startOf(parent, child, report.id), T0 + 5);
      expect(started).toBeDefined();
      const childRunId = started?.run.id as number;
      expect(started?.run).toMatchObject({
        workflowName: 'child',
        state: 'RUNNING',
        trigger: 'call',
        logicalTime: T0 - 3_600_000,
        parentRunId: parent.runId,
        parentInstanceId: report.id,
        startedAt: T0 + 5,
      });
      expect(started?.created.map((i) => `${i.taskName}:${i.state}:${i.runId === childRunId}`)).toEqual([
        'x:WAITING:true',
        'y:WAITING:true',
      ]);
      const inst = await mustGet(store(), report.id);
      expect(inst).toMatchObject({ state: 'RUNNING', childRunId, startedAt: T0 + 5 });
      expect(inst.workerId).toBeUndefined();
      expect(started?.instance).toEqual(inst);
      expect(await store().getRun(childRunId)).toEqual(started?.run);
      expect((await store().listInstances(childRunId)).map((i) => i.taskName)).toEqual(['x', 'y']);
      // a RUNNING instance of no worker is nobody's load
      expect([...(await store().activeCountByWorker()).values()].reduce((a, b) => a + b, 0)).toBe(0);
    });

    it('start-call writes nothing when the instance moved on, or when its run is no longer RUNNING', async () => {
      const { parent, child } = await seedCall(store());
      const report = await addInstance(store(), parent, 'report');
      const before = (await store().listRuns({})).length;
      // a stale attempt
      expect(await store().startCall(startOf(parent, child, report.id, 2), T0 + 5)).toBeUndefined();
      // started once: a second start (another dispatcher) finds it RUNNING
      expect(await store().startCall(startOf(parent, child, report.id), T0 + 5)).toBeDefined();
      expect(await store().startCall(startOf(parent, child, report.id), T0 + 6)).toBeUndefined();
      expect((await store().listRuns({})).length).toBe(before + 1);
      // a cancelled parent run starts no child
      const other = await addInstance(store(), parent, 'report', { attempt: 2 });
      await setRunState(store(), parent.runId, 'CANCELLED', T0 + 7);
      expect(await store().startCall(startOf(parent, child, other.id, 2), T0 + 8)).toBeUndefined();
      expect((await mustGet(store(), other.id)).state).toBe('WAITING');
      expect((await store().listRuns({})).length).toBe(before + 1);
    });

    it('start-call of a workflow removed meanwhile is refused whole: the instance stays WAITING', async () => {
      const { parent, child } = await seedCall(store());
      const report = await addInstance(store(), parent, 'report');
      await store().removeWorkflow('child');
      await expect(store().startCall(startOf(parent, child, report.id), T0 + 5)).rejects.toThrow('no longer exists');
      expect(await mustGet(store(), report.id)).toMatchObject({ state: 'WAITING' });
      expect((await mustGet(store(), report.id)).childRunId).toBeUndefined();
    });

    it('names the active child runs whose caller no longer waits for them', async () => {
      const { parent, child } = await seedCall(store());
      const first = await addInstance(store(), parent, 'report');
      const a = (await store().startCall(startOf(parent, child, first.id), T0 + 5))?.run.id as number;
      expect(await store().orphanedChildRuns(10)).toEqual([]);
      // the caller ends (its parent cancelled, say) while the child still runs
      await move(store(), await mustGet(store(), first.id), 'CANCELLED', { finishedAt: T0 + 6 });
      expect(await store().orphanedChildRuns(10)).toEqual([a]);
      // once the child ends, it is nobody's concern
      await setRunState(store(), a, 'CANCELLED', T0 + 7);
      expect(await store().orphanedChildRuns(10)).toEqual([]);
      // a caller that FAILED with its child: the child running again is a re-run someone asked for
      const failed = await addInstance(store(), parent, 'report', { attempt: 3 });
      const f = (await store().startCall(startOf(parent, child, failed.id, 3), T0 + 7))?.run.id as number;
      await move(store(), await mustGet(store(), failed.id), 'FAILED', { finishedAt: T0 + 7 });
      expect(await store().orphanedChildRuns(10)).toEqual([]);
      await setRunState(store(), f, 'FAILED', T0 + 7);
      // a child whose calling instance is gone (its workflow removed with its runs)
      const second = await addInstance(store(), parent, 'report', { attempt: 2 });
      const b = (await store().startCall(startOf(parent, child, second.id, 2), T0 + 8))?.run.id as number;
      expect(await store().orphanedChildRuns(10)).toEqual([]);
      await store().removeWorkflow('parent');
      expect(await store().orphanedChildRuns(10)).toEqual([b]);
    });
  });
}

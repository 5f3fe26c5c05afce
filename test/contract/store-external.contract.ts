// Store contract: a monitor's runs (design.md §13) — its schedule keeps its grace; a run reported
// from outside is created RUNNING or already ended with its one instance (task id
// EXTERNAL_TASK_ID, no worker); a missed fire is recorded once per (schedule, fire); an end goes
// through finish-with-follow-ups like any outcome and settles the run.
import { describe, expect, it } from 'vitest';
import { EXTERNAL_TASK_ID } from '../../engine/ports/store.ts';
import { hourly, T0, workflow } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

export function externalRunsContract(store: StoreGetter): void {
  describe('monitors and external runs', () => {
    const monitor = () =>
      store().applyWorkflow(workflow('backup', [], { schedule: hourly, monitor: { graceMs: 120_000 } }), T0);

    it("a monitor's schedule keeps its grace; a plain schedule has none", async () => {
      await monitor();
      await store().applyWorkflow(workflow('etl', [], { schedule: hourly }), T0);
      const byName = new Map((await store().listSchedules()).map((s) => [s.workflowName, s]));
      expect(byName.get('backup')?.monitorGraceMs).toBe(120_000);
      expect(byName.get('etl')?.monitorGraceMs).toBeUndefined();
      expect((await store().getWorkflowSpec('backup'))?.monitor).toEqual({ graceMs: 120_000 });
    });

    it('a start is a RUNNING run with one unowned instance; its end settles the run', async () => {
      const { workflowId } = await monitor();
      const started = await store().startExternalRun({
        workflowId,
        taskName: 'backup',
        triggeredBy: 'ax ping by root@db1',
        startedAt: T0 + 1000,
        state: 'RUNNING',
        logicalTime: T0 + 1000,
      });
      expect(started?.run).toMatchObject({
        workflowName: 'backup',
        state: 'RUNNING',
        trigger: 'external',
        triggeredBy: 'ax ping by root@db1',
        startedAt: T0 + 1000,
      });
      expect(started?.run.finishedAt).toBeUndefined();
      expect(started?.instance).toMatchObject({ taskId: EXTERNAL_TASK_ID, taskName: 'backup', state: 'RUNNING' });
      expect(started?.instance.workerId).toBeUndefined();
      expect(await store().listInstances(started?.run.id as number)).toEqual([started?.instance]);
      expect(await store().pendingInstanceCount(started?.run.id as number)).toBe(1);
      const result = await store().finishInstance(
        {
          id: started?.instance.id as number,
          runId: started?.run.id as number,
          guard: { from: ['RUNNING'], attempt: 1 },
          to: 'SUCCESS',
          outcome: { exitCode: 0, finishedAt: T0 + 5000 },
          followUps: {},
          settlement: { taskCount: 1, queuedRoots: [] },
        },
        T0 + 5000,
      );
      expect(result.runs).toMatchObject([{ id: started?.run.id, state: 'SUCCESS', finishedAt: T0 + 5000 }]);
    });

    it('an ended report is created final and handled; a missed fire once per (schedule, fire)', async () => {
      const { workflowId } = await monitor();
      const scheduleId = (await store().listSchedules())[0]?.id as number;
      const miss = {
        workflowId,
        taskName: 'backup',
        triggeredBy: 'monitor',
        startedAt: T0 + 3_720_000,
        state: 'FAILED' as const,
        reason: 'missed: no ping by 01:02',
        logicalTime: T0 + 3_600_000,
        scheduleId,
      };
      const first = await store().startExternalRun(miss);
      expect(first?.run).toMatchObject({
        state: 'FAILED',
        reason: 'missed: no ping by 01:02',
        scheduleId,
        startedAt: T0 + 3_720_000,
        finishedAt: T0 + 3_720_000,
      });
      expect(first?.instance).toMatchObject({ state: 'FAILED', handled: true, reason: 'missed: no ping by 01:02' });
      expect(await store().startExternalRun(miss)).toBeUndefined();
      expect(await store().listRuns({ workflowName: 'backup' })).toHaveLength(1);
      const done = await store().startExternalRun({
        ...miss,
        state: 'SUCCESS',
        scheduleId: undefined,
        reason: undefined,
        exitCode: 0,
        startedAt: T0 + 10,
        logicalTime: T0 + 10,
      });
      expect(done?.instance).toMatchObject({ state: 'SUCCESS', exitCode: 0, startedAt: T0 + 10, finishedAt: T0 + 10 });
      expect(await store().unhandledFinished(10)).toEqual([]);
    });
  });
}

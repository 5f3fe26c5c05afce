// Store contract: the runs page across workflows (issue 24) — listRuns by owner, trigger and
// creation time, and the calendar's quarter-hour counts.
import { describe, expect, it } from 'vitest';
import { createRun, manualRun, setRunState, T0, task, workflow } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

const HOUR = 3_600_000;
/** a quarter hour's start (T0 is 800 s into one) */
const Q0 = T0 + 100_000;

export function runListContract(store: StoreGetter): void {
  describe('listRuns across workflows', () => {
    it('filters by owner, trigger and the creation time range, newest first', async () => {
      const etl = await store().applyWorkflow(workflow('etl', [task('a')], { owner: 'data' }), T0);
      const web = await store().applyWorkflow(workflow('web', [task('a')], { owner: 'ops' }), T0);
      const made: { id: number; wf: string; trigger: string; at: number }[] = [];
      const plan = [
        { wf: etl.workflowId, name: 'etl', trigger: 'cron' as const, at: T0 },
        { wf: web.workflowId, name: 'web', trigger: 'manual' as const, at: T0 + HOUR },
        { wf: etl.workflowId, name: 'etl', trigger: 'manual' as const, at: T0 + 2 * HOUR },
        { wf: web.workflowId, name: 'web', trigger: 'event' as const, at: T0 + 3 * HOUR },
      ];
      for (const p of plan) {
        const run = await createRun(
          store(),
          manualRun(p.wf, { trigger: p.trigger, createdAt: p.at, logicalTime: p.at }),
        );
        made.push({ id: run?.id ?? -1, wf: p.name, trigger: p.trigger, at: p.at });
      }
      const ids = (filter: Parameters<ReturnType<StoreGetter>['listRuns']>[0]) =>
        store()
          .listRuns(filter)
          .then((runs) => runs.map((r) => r.id));
      const [a, b, c, d] = made.map((m) => m.id);
      expect(await ids({ owner: 'data' })).toEqual([c, a]);
      expect(await ids({ owner: 'nobody' })).toEqual([]);
      expect(await ids({ triggers: ['manual'] })).toEqual([c, b]);
      expect(await ids({ triggers: ['cron', 'event'] })).toEqual([d, a]);
      // from inclusive, to exclusive, on created_at
      expect(await ids({ createdFrom: T0 + HOUR, createdTo: T0 + 3 * HOUR })).toEqual([c, b]);
      expect(await ids({ createdFrom: T0 + 3 * HOUR })).toEqual([d]);
      // combined with the older filters and the keyset page
      expect(await ids({ owner: 'ops', triggers: ['manual', 'event'], states: ['RUNNING'] })).toEqual([d, b]);
      expect(await ids({ owner: 'ops', beforeId: d })).toEqual([b]);
      expect(await ids({ workflowName: 'etl', createdTo: T0 + HOUR })).toEqual([a]);
    });
  });

  describe('runCounts', () => {
    it('counts runs per quarter hour × workflow × state in [from, to)', async () => {
      const etl = await store().applyWorkflow(workflow('etl', [task('a')], { owner: 'data' }), Q0);
      const web = await store().applyWorkflow(workflow('web', [task('a')], { owner: 'ops' }), Q0);
      // Q0 is a quarter hour's start; the two etl runs 5 minutes apart share a bucket
      const runs = [
        { wf: etl.workflowId, at: Q0, state: 'SUCCESS' as const },
        { wf: etl.workflowId, at: Q0 + 300_000, state: 'SUCCESS' as const },
        { wf: etl.workflowId, at: Q0 + 600_000, state: 'FAILED' as const },
        { wf: web.workflowId, at: Q0 + 960_000, state: 'RUNNING' as const },
        { wf: web.workflowId, at: Q0 + 24 * HOUR, state: 'SUCCESS' as const },
      ];
      for (const [i, r] of runs.entries()) {
        const run = await createRun(store(), manualRun(r.wf, { createdAt: r.at, logicalTime: T0 + i }));
        if (r.state !== 'RUNNING') await setRunState(store(), run?.id ?? -1, r.state, r.at + 1000);
      }
      const sorted = (rows: Awaited<ReturnType<ReturnType<StoreGetter>['runCounts']>>) =>
        [...rows].sort(
          (x, y) => x.bucket - y.bucket || x.workflow.localeCompare(y.workflow) || (x.state < y.state ? -1 : 1),
        );
      expect(sorted(await store().runCounts({ from: Q0, to: Q0 + 24 * HOUR }))).toEqual([
        { bucket: Q0, workflow: 'etl', state: 'FAILED', count: 1 },
        { bucket: Q0, workflow: 'etl', state: 'SUCCESS', count: 2 },
        { bucket: Q0 + 900_000, workflow: 'web', state: 'RUNNING', count: 1 },
      ]);
      expect(await store().runCounts({ from: Q0, to: Q0 + 25 * HOUR, owner: 'ops' })).toHaveLength(2);
      expect(await store().runCounts({ from: Q0, to: Q0 + 25 * HOUR, workflowName: 'web', owner: 'data' })).toEqual([]);
      expect(await store().runCounts({ from: Q0 + 24 * HOUR, to: Q0 + 25 * HOUR })).toEqual([
        { bucket: Q0 + 24 * HOUR, workflow: 'web', state: 'SUCCESS', count: 1 },
      ]);
    });
  });
}

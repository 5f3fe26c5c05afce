// Store contract, part 1: definitions (workflows, tasks, edges, schedules).
import { describe, expect, it } from 'vitest';
import type { TaskSpec, WorkflowSpec } from '../../engine/api/types.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import {
  createRun,
  edgeNames,
  graphOf,
  hourly,
  manualRun,
  setRunState,
  T0,
  task,
  taskIds,
  workflow,
} from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

const fullTask: TaskSpec = {
  name: 'extract',
  command: 'python extract.py --day "$AX_LOGICAL_TIME"',
  cwd: '/srv/etl',
  env: { REGION: 'eu', TOKEN_FILE: '/run/token' },
  timeoutMs: 3_600_000,
  retries: 3,
  retryBackoff: { kind: 'exponential', delayMs: 30_000, maxDelayMs: 600_000 },
  labels: ['linux', 'gpu'],
  upstream: [],
  owner: 'data-team',
  logLimitBytes: 200 * 1024 * 1024,
};

export function definitionsContract(store: StoreGetter): void {
  describe('applyWorkflow', () => {
    it('creates version 1 and reports a change', async () => {
      const res = await store().applyWorkflow(workflow('etl', [task('a')]), T0);
      expect(res).toMatchObject({ version: 1, changed: true });
      expect(await store().findWorkflowId('etl')).toBe(res.workflowId);
      expect(await store().findWorkflowId('nope')).toBeUndefined();
    });

    it('re-applying the identical spec changes nothing, whatever the key order', async () => {
      const spec = workflow('etl', [task('a'), task('b', ['a'])], { description: 'nightly', schedule: hourly });
      const first = await store().applyWorkflow(spec, T0);
      expect(await store().applyWorkflow(structuredClone(spec), T0 + 1000)).toEqual({ ...first, changed: false });
      const reordered = Object.fromEntries(Object.entries(spec).reverse()) as unknown as WorkflowSpec;
      expect(await store().applyWorkflow(reordered, T0 + 2000)).toEqual({ ...first, changed: false });
      expect((await graphOf(store(), first.workflowId)).schedule?.lastFireAt).toBe(T0);
    });

    it('a changed spec bumps the version and keeps the workflow id', async () => {
      const first = await store().applyWorkflow(workflow('etl', [task('a')]), T0);
      const second = await store().applyWorkflow(
        workflow('etl', [task('a', [], { command: 'echo changed' })]),
        T0 + 1000,
      );
      expect(second).toEqual({ workflowId: first.workflowId, version: 2, changed: true });
      expect((await graphOf(store(), first.workflowId)).version).toBe(2);
    });

    it('with an actor, a change and its audit entry are written together; no change, no entry', async () => {
      await store().applyWorkflow(workflow('audited', [task('a')]), T0, 'alice@laptop');
      await store().applyWorkflow(workflow('audited', [task('a')]), T0 + 1000, 'bob@laptop');
      await store().applyWorkflow(
        workflow('audited', [task('a', [], { command: 'echo v2' })]),
        T0 + 2000,
        'carol@laptop',
      );
      const entries = (await store().listAudit(100)).filter((e) => e.object === 'workflow:audited');
      expect(entries.map((e) => [e.at, e.actor, e.action, e.detail, e.note])).toEqual([
        [T0 + 2000, 'carol@laptop', 'workflow.apply', 'version 2', null],
        [T0, 'alice@laptop', 'workflow.apply', 'version 1', null],
      ]);
    });

    it('an actor with a note: the audit entry has the name as its actor and the note beside it', async () => {
      await store().applyWorkflow(workflow('noted', [task('a')]), T0, {
        name: 'alice@box (API token)',
        note: 'deploy pipeline',
      });
      const [entry] = (await store().listAudit(100)).filter((e) => e.object === 'workflow:noted');
      expect([entry?.actor, entry?.note, entry?.detail]).toEqual([
        'alice@box (API token)',
        'deploy pipeline',
        'version 1',
      ]);
    });

    it('keeps task ids of kept names, drops removed tasks and replaces the edges', async () => {
      const { workflowId } = await store().applyWorkflow(
        workflow('etl', [task('a'), task('b', ['a']), task('c', ['b'])]),
        T0,
      );
      const before = taskIds(await graphOf(store(), workflowId));
      expect(edgeNames(await graphOf(store(), workflowId))).toEqual(['a>b', 'b>c']);

      await store().applyWorkflow(
        workflow('etl', [task('a', [], { command: 'echo a2' }), task('c', ['a']), task('d', ['c'])]),
        T0 + 1000,
      );
      const graph = await graphOf(store(), workflowId);
      const after = taskIds(graph);
      expect([...after.keys()]).toEqual(['a', 'c', 'd']);
      expect(after.get('a')).toBe(before.get('a'));
      expect(after.get('c')).toBe(before.get('c'));
      expect([...before.values()]).not.toContain(after.get('d'));
      expect(edgeNames(graph)).toEqual(['a>c', 'c>d']);
      expect(graph.tasks.find((t) => t.name === 'a')?.command).toBe('echo a2');
    });

    it('stores every task field and returns the applied spec', async () => {
      const spec = workflow('etl', [fullTask, task('load', ['extract'])], {
        description: 'nightly load',
        owner: 'bob',
        schedule: { cron: '*/30 * * * * *', timezone: 'Asia/Shanghai', misfire: 'all', overlap: 'queue' },
        onEvent: 'files.arrived',
        routing: 'least_busy',
      });
      const { workflowId } = await store().applyWorkflow(spec, T0);
      expect(await store().getWorkflowSpec('etl')).toEqual(spec);
      expect(await store().getWorkflowSpec('nope')).toBeUndefined();

      const graph = await graphOf(store(), workflowId);
      const { upstream: _upstream, ...definition } = fullTask;
      expect(graph.tasks[0]).toEqual({ ...definition, id: graph.tasks[0]?.id, workflowId });
      expect(graph).toMatchObject({
        id: workflowId,
        name: 'etl',
        enabled: true,
        version: 1,
        routing: 'least_busy',
        onEvent: 'files.arrived',
      });
      expect(graph.schedule).toMatchObject({ ...spec.schedule, workflowId, workflowName: 'etl', lastFireAt: T0 });
      expect(await store().getWorkflowGraph(workflowId + 1000)).toBeUndefined();
    });

    it('drops the schedule when the spec drops it', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      expect(await store().listSchedules()).toHaveLength(1);
      await store().applyWorkflow(workflow('etl', [task('a')]), T0 + 1000);
      expect((await graphOf(store(), workflowId)).schedule).toBeUndefined();
      expect(await store().listSchedules()).toEqual([]);
      expect((await store().listWorkflows())[0]?.schedule).toBeUndefined();
    });

    it('a cron change restarts the schedule at the apply time; an unrelated change does not', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      await store().applyWorkflow(
        workflow('etl', [task('a')], { schedule: { ...hourly, cron: '*/5 * * * *' } }),
        T0 + 5000,
      );
      const moved = (await graphOf(store(), workflowId)).schedule;
      expect(moved).toMatchObject({ cron: '*/5 * * * *', lastFireAt: T0 + 5000 });

      await store().applyWorkflow(
        workflow('etl', [task('a')], { schedule: { ...hourly, cron: '*/5 * * * *' }, description: 'now documented' }),
        T0 + 9000,
      );
      const kept = (await graphOf(store(), workflowId)).schedule;
      expect(kept?.lastFireAt).toBe(T0 + 5000);
      expect(kept?.id).toBe(moved?.id);
    });

    it('applies a 5,000-task workflow with all its edges', async () => {
      const tasks = Array.from({ length: 5000 }, (_, i) =>
        task(`t${i}`, i === 0 ? [] : i % 100 === 0 ? ['t0', `t${i - 1}`] : [`t${i - 1}`]),
      );
      const spec = workflow('big', tasks);
      const { workflowId, changed } = await store().applyWorkflow(spec, T0);
      expect(changed).toBe(true);
      const graph = await graphOf(store(), workflowId);
      expect(graph.tasks).toHaveLength(5000);
      expect(new Set(graph.tasks.map((t) => t.id)).size).toBe(5000);
      expect(graph.tasks.map((t) => t.name)).toEqual(tasks.map((t) => t.name));
      const expected = tasks.flatMap((t) => t.upstream.map((u) => `${u}>${t.name}`)).sort();
      expect(expected).toHaveLength(4999 + 49);
      expect(edgeNames(graph)).toEqual(expected);
      expect(await store().getWorkflowSpec('big')).toEqual(spec);
      expect((await store().applyWorkflow(spec, T0 + 1000)).changed).toBe(false);
    });

    it('a big graph read while an apply changes it comes back whole, of one version', async () => {
      const v1 = Array.from({ length: 5000 }, (_, i) => task(`t${i}`, i === 0 ? [] : [`t${i - 1}`]));
      const { workflowId } = await store().applyWorkflow(workflow('moving', v1), T0);
      // version 2: the chain reversed and 100 tasks fewer
      const v2 = Array.from({ length: 4900 }, (_, i) => task(`t${4899 - i}`, i === 0 ? [] : [`t${4900 - i}`]));
      const reading = store().getWorkflowGraph(workflowId);
      // The read goes a page at a time; on SQLite this apply lands between its pages (one
      // connection, turns of the event loop between pages); on MySQL it may land before the
      // read's end or after it, on a connection of its own.
      await store().applyWorkflow(workflow('moving', v2), T0 + 1);
      const graph = await reading;
      if (!graph) throw new Error('no graph');
      const spec = graph.version === 2 ? v2 : v1;
      expect(graph.tasks.map((t) => t.name)).toEqual(spec.map((t) => t.name));
      expect(edgeNames(graph)).toEqual(spec.flatMap((t) => t.upstream.map((u) => `${u}>${t.name}`)).sort());
    });
  });

  describe('listWorkflows', () => {
    it('summarises each workflow, sorted by name, with its latest run', async () => {
      const zeta = await store().applyWorkflow(
        workflow('zeta', [task('a'), task('b', ['a'])], { schedule: hourly, owner: 'zoe' }),
        T0,
      );
      await store().applyWorkflow(workflow('alpha', [task('a'), task('b'), task('c')], { description: 'three' }), T0);
      const first = await createRun(store(), manualRun(zeta.workflowId, { logicalTime: T0 + 1 }));
      const latest = await createRun(store(), manualRun(zeta.workflowId, { logicalTime: T0 + 2 }));
      expect(first && latest).toBeTruthy();
      await setRunState(store(), latest?.id ?? -1, 'FAILED', T0 + 50);
      await (store() as SqlStore).db
        .updateTable('workflow_run')
        .set({ started_at: T0 + 10 })
        .where('id', '=', latest?.id ?? -1)
        .execute();

      const list = await store().listWorkflows();
      expect(list.map((w) => w.name)).toEqual(['alpha', 'zeta']);
      expect(list[0]).toMatchObject({ name: 'alpha', description: 'three', enabled: true, version: 1, taskCount: 3 });
      expect(list[0]?.schedule).toBeUndefined();
      expect(list[0]?.lastRun).toBeUndefined();
      expect(list[1]).toMatchObject({ id: zeta.workflowId, owner: 'zoe', taskCount: 2, schedule: hourly });
      expect(list[1]?.lastRun).toEqual({
        id: latest?.id,
        state: 'FAILED',
        logicalTime: T0 + 2,
        startedAt: T0 + 10,
        finishedAt: T0 + 50,
      });
    });

    it('is empty on a fresh store', async () => {
      expect(await store().listWorkflows()).toEqual([]);
      expect(await store().listSchedules()).toEqual([]);
    });
  });

  describe('setWorkflowEnabled', () => {
    it('returns false for an unknown workflow', async () => {
      expect(await store().setWorkflowEnabled('nope', false, T0)).toBe(false);
    });

    it('hides a disabled workflow from the schedules and resumes from now when re-enabled', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      await store().applyWorkflow(workflow('other', [task('a')], { schedule: hourly }), T0);
      expect(await store().setWorkflowEnabled('etl', false, T0 + 10)).toBe(true);
      expect((await store().listSchedules()).map((s) => s.workflowName)).toEqual(['other']);
      expect((await graphOf(store(), workflowId)).enabled).toBe(false);
      expect((await store().listWorkflows()).find((w) => w.name === 'etl')?.enabled).toBe(false);

      // Fires that fell while it was disabled are not missed fires.
      expect(await store().setWorkflowEnabled('etl', true, T0 + 7_200_000)).toBe(true);
      const schedule = (await store().listSchedules()).find((s) => s.workflowName === 'etl');
      expect(schedule).toMatchObject({ workflowId, lastFireAt: T0 + 7_200_000 });
    });

    it('stamps a workflow with its version and switch, for cheap change checks', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')]), T0);
      expect(await store().getWorkflowStamp(workflowId)).toEqual({ version: 1, enabled: true });
      await store().applyWorkflow(workflow('etl', [task('a'), task('b')]), T0);
      await store().setWorkflowEnabled('etl', false, T0);
      expect(await store().getWorkflowStamp(workflowId)).toEqual({ version: 2, enabled: false });
      expect(await store().getWorkflowStamp(workflowId + 1000)).toBeUndefined();
    });

    it('enabling a workflow that is already enabled keeps its missed fires', async () => {
      await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      expect(await store().setWorkflowEnabled('etl', true, T0 + 7_200_000)).toBe(true);
      expect((await store().listSchedules())[0]?.lastFireAt).toBe(T0);
    });
  });

  describe('schedules', () => {
    it('setScheduleLastFire records the latest fire and never moves it back', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      const id = (await graphOf(store(), workflowId)).schedule?.id ?? -1;
      await store().setScheduleLastFire(id, T0 + 3_600_000);
      await store().setScheduleLastFire(id, T0 + 1_800_000);
      expect(await store().listSchedules()).toEqual([
        { ...hourly, id, workflowId, workflowName: 'etl', lastFireAt: T0 + 3_600_000 },
      ]);
    });

    it('advanceScheduleLastFire moves the last fire on only from the one the caller saw: a second decision is refused', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      const id = (await graphOf(store(), workflowId)).schedule?.id ?? -1;
      expect(await store().advanceScheduleLastFire(id, T0, T0 + 3 * 3_600_000)).toBe(true);
      // Another scheduler decided on the same view (last fire T0): refused, nothing moves.
      expect(await store().advanceScheduleLastFire(id, T0, T0 + 2 * 3_600_000)).toBe(false);
      expect((await store().listSchedules())[0]?.lastFireAt).toBe(T0 + 3 * 3_600_000);
    });

    it("a cron run moves its schedule's last fire time with it, in one write; a duplicate fire or a manual run does not", async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      const scheduleId = (await graphOf(store(), workflowId)).schedule?.id ?? -1;
      const fire = (at: number) =>
        manualRun(workflowId, { trigger: 'cron', triggeredBy: 'cron', scheduleId, logicalTime: at });
      const lastFire = async () => (await store().listSchedules())[0]?.lastFireAt;
      expect(await createRun(store(), fire(T0 + 3_600_000))).toMatchObject({ scheduleId, logicalTime: T0 + 3_600_000 });
      expect(await lastFire()).toBe(T0 + 3_600_000);
      // never backwards; a fire that already has its run changes nothing
      expect(await createRun(store(), fire(T0 + 1_800_000))).toBeDefined();
      expect(await lastFire()).toBe(T0 + 3_600_000);
      expect(await createRun(store(), fire(T0 + 3_600_000))).toBeUndefined();
      await createRun(store(), manualRun(workflowId, { logicalTime: T0 + 7_200_000 }));
      expect(await lastFire()).toBe(T0 + 3_600_000);
    });

    it('setScheduleError records why a schedule cannot fire, and clears it', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      const id = (await graphOf(store(), workflowId)).schedule?.id ?? -1;
      await store().setScheduleError(id, 'unknown time zone');
      expect((await store().listSchedules())[0]?.error).toBe('unknown time zone');
      expect((await store().listWorkflows())[0]?.scheduleError).toBe('unknown time zone');
      await store().setScheduleError(id, null);
      expect((await store().listSchedules())[0]?.error).toBeUndefined();
    });
  });

  describe('removeWorkflow', () => {
    it('removes the workflow with its runs, instances and logs, and nothing else', async () => {
      const gone = await store().applyWorkflow(workflow('gone', [task('a')], { schedule: hourly }), T0);
      const kept = await store().applyWorkflow(workflow('kept', [task('a')]), T0);
      const seed = async (workflowId: number) => {
        const run = await createRun(store(), manualRun(workflowId));
        const taskId = (await graphOf(store(), workflowId)).tasks[0]?.id ?? -1;
        const inst = await store().createInstance({
          runId: run?.id ?? -1,
          workflowId,
          taskId,
          taskName: 'a',
          attempt: 1,
          state: 'WAITING',
          notBefore: T0,
          createdAt: T0,
        });
        const instanceId = inst?.id ?? -1;
        await store().appendLogs([{ instanceId, seq: 1, stream: 'stdout', ts: T0, line: `from ${workflowId}` }]);
        return { runId: run?.id ?? -1, instanceId };
      };
      const g = await seed(gone.workflowId);
      const k = await seed(kept.workflowId);

      expect(await store().removeWorkflow('gone')).toBe(true);
      expect(await store().findWorkflowId('gone')).toBeUndefined();
      expect(await store().getWorkflowGraph(gone.workflowId)).toBeUndefined();
      expect(await store().getRun(g.runId)).toBeUndefined();
      expect(await store().getInstance(g.instanceId)).toBeUndefined();
      expect(await store().readLogs(g.instanceId, 0, 100)).toEqual([]);
      expect(await store().listSchedules()).toEqual([]);
      expect((await store().listRuns({})).map((r) => r.id)).toEqual([k.runId]);

      expect(await store().getInstance(k.instanceId)).toBeDefined();
      expect(await store().readLogs(k.instanceId, 0, 100)).toHaveLength(1);
      expect((await store().listWorkflows()).map((w) => w.name)).toEqual(['kept']);
    });

    it('returns false for an unknown workflow', async () => {
      expect(await store().removeWorkflow('nope')).toBe(false);
    });

    it('lets the name be applied again as a new workflow', async () => {
      await store().applyWorkflow(workflow('etl', [task('a')]), T0);
      await store().applyWorkflow(workflow('etl', [task('a', [], { command: 'echo 2' })]), T0);
      await store().removeWorkflow('etl');
      const again = await store().applyWorkflow(workflow('etl', [task('a')]), T0 + 1);
      expect(again).toMatchObject({ version: 1, changed: true });
    });
  });

  describe('workflowsForEvent', () => {
    it('returns the enabled workflows listening for the event', async () => {
      const a = await store().applyWorkflow(workflow('a', [task('x')], { onEvent: 'files.arrived' }), T0);
      await store().applyWorkflow(workflow('b', [task('x')], { onEvent: 'files.arrived' }), T0);
      const c = await store().applyWorkflow(workflow('c', [task('x')], { onEvent: 'files.arrived' }), T0);
      await store().applyWorkflow(workflow('d', [task('x')], { onEvent: 'other' }), T0);
      await store().applyWorkflow(workflow('e', [task('x')]), T0);
      await store().setWorkflowEnabled('b', false, T0);
      const found = await store().workflowsForEvent('files.arrived');
      expect([...found].sort((x, y) => x - y)).toEqual([a.workflowId, c.workflowId].sort((x, y) => x - y));
      expect(await store().workflowsForEvent('nobody.listens')).toEqual([]);
    });
  });

  describe('workflowsForEngineStart', () => {
    it('returns the enabled workflows with on: engine_start, and not one whose command only names it', async () => {
      const a = await store().applyWorkflow(workflow('a', [task('x')], { onEngineStart: true }), T0);
      await store().applyWorkflow(workflow('b', [task('x')], { onEngineStart: true }), T0);
      await store().setWorkflowEnabled('b', false, T0);
      const look = { ...task('x'), command: `echo '"onEngineStart":true'` };
      await store().applyWorkflow(workflow('c', [look]), T0);
      await store().applyWorkflow(workflow('d', [task('x')], { onEvent: 'files.arrived' }), T0);
      expect(await store().workflowsForEngineStart()).toEqual([a.workflowId]);
      const listed = new Map((await store().listWorkflows()).map((w) => [w.name, w.onEngineStart]));
      expect([...listed]).toEqual([
        ['a', true],
        ['b', true],
        ['c', undefined],
        ['d', undefined],
      ]);
      await store().applyWorkflow(workflow('a', [task('x')]), T0 + 1);
      expect(await store().workflowsForEngineStart()).toEqual([]);
    });
  });
}

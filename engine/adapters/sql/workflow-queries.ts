// Definitions read and managed: workflows and their graphs, schedules, dependencies across
// workflows, enabling and removing (applying one is apply-workflow.ts).
import type { Kysely, Transaction } from 'kysely';
import type { ParamSpec, RunState, UpstreamDate, WorkflowSpec, WorkflowSummary } from '../../api/types.ts';
import type { CrossDependencyRow, ScheduleRecord, TaskDefinition, WorkflowGraph } from '../../ports/store.ts';
import { hasEngineStart, num, scheduleFromRow, taskFromRow } from './rows.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Cross-workflow dependencies by their upstream's workflow, or by the workflow that has them. */
export async function crossDependencies(
  db: Db,
  filter: { upstreamWorkflow?: string; workflow?: string },
): Promise<CrossDependencyRow[]> {
  let q = db
    .selectFrom('cross_dependency')
    .innerJoin('workflow', 'workflow.id', 'cross_dependency.workflow_id')
    .innerJoin('task_definition', 'task_definition.id', 'cross_dependency.task_id')
    .leftJoin('workflow as up', 'up.name', 'cross_dependency.upstream_workflow')
    .leftJoin('task_definition as up_task', (j) =>
      j.onRef('up_task.workflow_id', '=', 'up.id').onRef('up_task.name', '=', 'cross_dependency.upstream_task'),
    )
    .select([
      'workflow.name as workflow',
      'task_definition.name as task',
      'upstream_workflow',
      'upstream_task',
      'date_rule',
      'up.id as up_id',
      'up_task.id as up_task_id',
    ]);
  if (filter.upstreamWorkflow !== undefined) q = q.where('upstream_workflow', '=', filter.upstreamWorkflow);
  if (filter.workflow !== undefined) q = q.where('workflow.name', '=', filter.workflow);
  const rows = await q
    .orderBy('workflow.name')
    .orderBy('task_definition.position')
    .orderBy('cross_dependency.position')
    .execute();
  return rows.map((r) => ({
    workflow: r.workflow,
    task: r.task,
    upstreamWorkflow: r.upstream_workflow,
    upstreamTask: r.upstream_task === '' ? null : r.upstream_task,
    date: r.date_rule as UpstreamDate,
    upstreamMissing: r.up_id === null || (r.upstream_task !== '' && r.up_task_id === null),
  }));
}

export async function getWorkflowSpec(db: Db, name: string): Promise<WorkflowSpec | undefined> {
  const row = await db.selectFrom('workflow').select('spec_json').where('name', '=', name).executeTakeFirst();
  return row ? (JSON.parse(row.spec_json) as WorkflowSpec) : undefined;
}

/** Rows of a graph read at a time; a turn of the event loop between pages. */
const GRAPH_PAGE = 1_000;

/**
 * The workflow's graph, read a page at a time so that a 100k-task graph does not hold the
 * engine's thread for a second (SQLite reads are synchronous). The pages are separate reads: when
 * an apply changed the workflow meanwhile (its version moved), the graph is read again.
 */
/**
 * A task's `simulate:` has no column: it is read from the spec as applied, and only when the
 * spec has one (a simulated worker's runner reads it; a large spec without any is not parsed).
 */
function addSimulations(specJson: string, tasks: TaskDefinition[]): void {
  if (!specJson.includes('"simulate"')) return;
  const spec = JSON.parse(specJson) as WorkflowSpec;
  const byName = new Map(tasks.map((t) => [t.name, t]));
  for (const t of spec.tasks) {
    const task = t.simulate && byName.get(t.name);
    if (task) task.simulate = t.simulate;
  }
}

export async function getWorkflowGraph(db: Db, workflowId: number): Promise<WorkflowGraph | undefined> {
  for (;;) {
    const wf = await db.selectFrom('workflow').selectAll().where('id', '=', workflowId).executeTakeFirst();
    if (!wf) return undefined;
    const tasks: TaskDefinition[] = [];
    for (let after = -1; ;) {
      const page = await db
        .selectFrom('task_definition')
        .selectAll()
        .where('workflow_id', '=', workflowId)
        .where('position', '>', after)
        .orderBy('position')
        .limit(GRAPH_PAGE)
        .execute();
      for (const row of page) tasks.push(taskFromRow(row));
      if (page.length < GRAPH_PAGE) break;
      after = (page[page.length - 1] as { position: number }).position;
      await turn();
    }
    const edges: WorkflowGraph['edges'] = [];
    for (let up = -1, down = -1; ;) {
      const page = await db
        .selectFrom('task_dependency')
        .select(['upstream_task_id', 'downstream_task_id'])
        .where('workflow_id', '=', workflowId)
        .where((eb) =>
          eb.or([
            eb('upstream_task_id', '>', up),
            eb.and([eb('upstream_task_id', '=', up), eb('downstream_task_id', '>', down)]),
          ]),
        )
        .orderBy('upstream_task_id')
        .orderBy('downstream_task_id')
        .limit(GRAPH_PAGE)
        .execute();
      for (const e of page) edges.push({ upstreamTaskId: e.upstream_task_id, downstreamTaskId: e.downstream_task_id });
      if (page.length < GRAPH_PAGE) break;
      const last = page[page.length - 1] as { upstream_task_id: number; downstream_task_id: number };
      [up, down] = [last.upstream_task_id, last.downstream_task_id];
      await turn();
    }
    const cross = await db
      .selectFrom('cross_dependency')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .orderBy('task_id')
      .orderBy('position')
      .execute();
    const byId = new Map(tasks.map((t) => [t.id, t]));
    addSimulations(wf.spec_json, tasks);
    for (const c of cross) {
      const t = byId.get(c.task_id);
      if (!t) continue;
      (t.crossUpstream ??= []).push({
        workflow: c.upstream_workflow,
        ...(c.upstream_task !== '' && { task: c.upstream_task }),
        date: c.date_rule as UpstreamDate,
      });
      t.waitTimeoutMs = num(c.wait_timeout_ms);
    }
    const schedule = await db
      .selectFrom('schedule_plan')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .executeTakeFirst();
    const stamp = await db.selectFrom('workflow').select('version').where('id', '=', workflowId).executeTakeFirst();
    if (stamp && stamp.version !== wf.version) continue;
    return {
      id: wf.id,
      name: wf.name,
      enabled: wf.enabled === 1,
      version: wf.version,
      routing: wf.routing as WorkflowGraph['routing'],
      onEvent: wf.on_event ?? undefined,
      ...(wf.params_json !== null &&
        wf.params_json !== undefined && { params: JSON.parse(wf.params_json) as ParamSpec[] }),
      tasks,
      edges,
      schedule: schedule ? scheduleFromRow(schedule, wf.name) : undefined,
    };
  }
}

function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export async function listWorkflows(db: Db): Promise<WorkflowSummary[]> {
  const wfs = await db.selectFrom('workflow').selectAll().orderBy('name').execute();
  const counts = await db
    .selectFrom('task_definition')
    .select(['workflow_id', db.fn.countAll<number>().as('n')])
    .groupBy('workflow_id')
    .execute();
  const schedules = await db.selectFrom('schedule_plan').selectAll().execute();
  const lastRuns = await db
    .selectFrom('workflow_run')
    .select(['id', 'workflow_id', 'state', 'logical_time', 'started_at', 'finished_at'])
    .where(
      'id',
      'in',
      db
        .selectFrom('workflow_run')
        .select((eb) => eb.fn.max('id').as('id'))
        .groupBy('workflow_id'),
    )
    .execute();
  const countOf = new Map(counts.map((c) => [c.workflow_id, num(c.n)]));
  const scheduleOf = new Map(schedules.map((s) => [s.workflow_id, s]));
  const lastOf = new Map(lastRuns.map((r) => [r.workflow_id, r]));
  return wfs.map((w) => {
    const s = scheduleOf.get(w.id);
    const last = lastOf.get(w.id);
    return {
      id: w.id,
      name: w.name,
      description: w.description ?? undefined,
      owner: w.owner ?? undefined,
      enabled: w.enabled === 1,
      version: w.version,
      taskCount: countOf.get(w.id) ?? 0,
      onEvent: w.on_event ?? undefined,
      ...(hasEngineStart(w.spec_json) && { onEngineStart: true }),
      schedule: s
        ? ({
            cron: s.cron,
            timezone: s.timezone,
            misfire: s.misfire,
            overlap: s.overlap,
          } as WorkflowSummary['schedule'])
        : undefined,
      scheduleError: s?.error ?? undefined,
      ...(s?.monitor_grace_ms !== null &&
        s?.monitor_grace_ms !== undefined && { monitor: { graceMs: num(s.monitor_grace_ms) } }),
      lastRun: last
        ? {
            id: last.id,
            state: last.state as RunState,
            logicalTime: num(last.logical_time),
            ...(last.started_at !== null && { startedAt: num(last.started_at) }),
            finishedAt: last.finished_at === null ? undefined : num(last.finished_at),
          }
        : undefined,
    };
  });
}

export async function setWorkflowEnabled(db: Db, name: string, enabled: boolean, now: number): Promise<boolean> {
  const wf = await db.selectFrom('workflow').select(['id', 'enabled']).where('name', '=', name).executeTakeFirst();
  if (!wf) return false;
  if ((wf.enabled === 1) === enabled) return true;
  await db
    .updateTable('workflow')
    .set({ enabled: enabled ? 1 : 0, updated_at: now })
    .where('id', '=', wf.id)
    .execute();
  if (enabled) {
    // Fires that fell while disabled are not "missed": the schedule resumes from now.
    await db
      .updateTable('schedule_plan')
      .set({ last_fire_at: now })
      .where('workflow_id', '=', wf.id)
      .where('last_fire_at', '<', now)
      .execute();
  }
  return true;
}

export async function removeWorkflow(db: Kysely<Database>, name: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const wf = await trx.selectFrom('workflow').select('id').where('name', '=', name).executeTakeFirst();
    if (!wf) return false;
    const instanceIds = trx.selectFrom('task_instance').select('id').where('workflow_id', '=', wf.id);
    await trx.deleteFrom('execution_log_chunk').where('instance_id', 'in', instanceIds).execute();
    for (const table of [
      'task_instance',
      'workflow_run',
      'task_dependency',
      'task_definition',
      'schedule_plan',
      'cross_dependency',
      'upstream_wait',
    ] as const) {
      await trx.deleteFrom(table).where('workflow_id', '=', wf.id).execute();
    }
    await trx.deleteFrom('workflow').where('id', '=', wf.id).execute();
    return true;
  });
}

export async function listSchedules(db: Db): Promise<ScheduleRecord[]> {
  const rows = await db
    .selectFrom('schedule_plan')
    .innerJoin('workflow', 'workflow.id', 'schedule_plan.workflow_id')
    .selectAll('schedule_plan')
    .select('workflow.name as workflow_name')
    .where('workflow.enabled', '=', 1)
    .where('schedule_plan.enabled', '=', 1)
    .execute();
  return rows.map((r) => scheduleFromRow(r, r.workflow_name));
}

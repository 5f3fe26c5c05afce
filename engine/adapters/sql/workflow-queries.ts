// Definitions: workflows, tasks, dependencies, schedules.
import type { Kysely, Transaction } from 'kysely';
import { type Actor, actorName, actorNote } from '../../api/actor.ts';
import {
  DEFAULT_WAIT_TIMEOUT_MS,
  type RunState,
  type UpstreamDate,
  type WorkflowSpec,
  type WorkflowSummary,
} from '../../api/types.ts';
import type {
  ApplyResult,
  CrossDependencyRow,
  ScheduleRecord,
  TaskDefinition,
  WorkflowGraph,
} from '../../ports/store.ts';
import { canonicalJson, chunks, num, scheduleFromRow, taskFromRow } from './rows.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export async function applyWorkflow(
  db: Kysely<Database>,
  spec: WorkflowSpec,
  now: number,
  actor?: Actor,
): Promise<ApplyResult> {
  const specJson = canonicalJson(spec);
  return db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('workflow').selectAll().where('name', '=', spec.name).executeTakeFirst();
    if (existing && existing.spec_json === specJson)
      return { workflowId: existing.id, version: existing.version, changed: false };

    const columns = {
      description: spec.description ?? null,
      owner: spec.owner ?? null,
      routing: spec.routing,
      on_event: spec.onEvent ?? null,
      spec_json: specJson,
      updated_at: now,
    };
    let workflowId: number;
    let version: number;
    if (existing) {
      workflowId = existing.id;
      version = existing.version + 1;
      await trx
        .updateTable('workflow')
        .set({ ...columns, version })
        .where('id', '=', workflowId)
        .execute();
    } else {
      version = 1;
      const inserted = await trx
        .insertInto('workflow')
        .values({ ...columns, name: spec.name, enabled: 1, version, created_at: now })
        .executeTakeFirstOrThrow();
      workflowId = Number(inserted.insertId);
    }
    await replaceTasks(trx, workflowId, spec);
    await replaceSchedule(trx, workflowId, spec, now);
    if (actor !== undefined) {
      await trx
        .insertInto('audit_log')
        .values({
          at: now,
          actor: actorName(actor),
          note: actorNote(actor),
          action: 'workflow.apply',
          object: `workflow:${spec.name}`,
          detail: `version ${version}`,
        })
        .execute();
    }
    return { workflowId, version, changed: true };
  });
}

/** Task ids stay stable for tasks that keep their name: history refers to them. */
async function replaceTasks(trx: Transaction<Database>, workflowId: number, spec: WorkflowSpec): Promise<void> {
  const old = await trx
    .selectFrom('task_definition')
    .select(['id', 'name'])
    .where('workflow_id', '=', workflowId)
    .execute();
  const oldIds = new Map(old.map((t) => [t.name, t.id]));
  const wanted = new Set(spec.tasks.map((t) => t.name));
  const removed = old.filter((t) => !wanted.has(t.name)).map((t) => t.id);
  for (const ids of chunks(removed)) await trx.deleteFrom('task_definition').where('id', 'in', ids).execute();

  const rows = spec.tasks.map((t, position) => ({
    workflow_id: workflowId,
    name: t.name,
    command: t.command,
    cwd: t.cwd ?? null,
    env_json: JSON.stringify(t.env),
    timeout_ms: t.timeoutMs ?? null,
    retries: t.retries,
    retry_backoff_json: JSON.stringify(t.retryBackoff),
    labels_json: JSON.stringify(t.labels),
    owner: t.owner ?? null,
    log_limit_bytes: t.logLimitBytes ?? null,
    position,
  }));
  const fresh = rows.filter((r) => !oldIds.has(r.name));
  for (const r of rows) {
    const id = oldIds.get(r.name);
    if (id !== undefined) await trx.updateTable('task_definition').set(r).where('id', '=', id).execute();
  }
  for (const part of chunks(fresh)) await trx.insertInto('task_definition').values(part).execute();

  const all = await trx
    .selectFrom('task_definition')
    .select(['id', 'name'])
    .where('workflow_id', '=', workflowId)
    .execute();
  const ids = new Map(all.map((t) => [t.name, t.id]));
  await trx.deleteFrom('task_dependency').where('workflow_id', '=', workflowId).execute();
  const edges = spec.tasks.flatMap((t) =>
    t.upstream.map((u) => ({
      workflow_id: workflowId,
      upstream_task_id: ids.get(u) as number,
      downstream_task_id: ids.get(t.name) as number,
    })),
  );
  for (const part of chunks(edges)) await trx.insertInto('task_dependency').values(part).execute();
  await trx.deleteFrom('cross_dependency').where('workflow_id', '=', workflowId).execute();
  const cross = spec.tasks.flatMap((t) =>
    (t.crossUpstream ?? []).map((u, position) => ({
      workflow_id: workflowId,
      task_id: ids.get(t.name) as number,
      upstream_workflow: u.workflow,
      upstream_task: u.task ?? '',
      date_rule: u.date,
      wait_timeout_ms: t.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
      position,
    })),
  );
  for (const part of chunks(cross)) await trx.insertInto('cross_dependency').values(part).execute();
}

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

async function replaceSchedule(
  trx: Transaction<Database>,
  workflowId: number,
  spec: WorkflowSpec,
  now: number,
): Promise<void> {
  const existing = await trx
    .selectFrom('schedule_plan')
    .selectAll()
    .where('workflow_id', '=', workflowId)
    .executeTakeFirst();
  if (!spec.schedule) {
    if (existing) await trx.deleteFrom('schedule_plan').where('id', '=', existing.id).execute();
    return;
  }
  const s = spec.schedule;
  const row = {
    cron: s.cron,
    timezone: s.timezone,
    misfire: s.misfire,
    overlap: s.overlap,
    trigger_type: 'cron',
    enabled: 1,
  };
  if (!existing) {
    // A new schedule starts now: nothing before it counts as missed.
    await trx
      .insertInto('schedule_plan')
      .values({ ...row, workflow_id: workflowId, last_fire_at: now })
      .execute();
    return;
  }
  const timingChanged = existing.cron !== s.cron || existing.timezone !== s.timezone;
  await trx
    .updateTable('schedule_plan')
    .set(timingChanged ? { ...row, last_fire_at: Math.max(num(existing.last_fire_at), now), error: null } : row)
    .where('id', '=', existing.id)
    .execute();
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
    .select(['id', 'workflow_id', 'state', 'logical_time', 'finished_at'])
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
      schedule: s
        ? ({
            cron: s.cron,
            timezone: s.timezone,
            misfire: s.misfire,
            overlap: s.overlap,
          } as WorkflowSummary['schedule'])
        : undefined,
      scheduleError: s?.error ?? undefined,
      lastRun: last
        ? {
            id: last.id,
            state: last.state as RunState,
            logicalTime: num(last.logical_time),
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
    await trx.deleteFrom('execution_log').where('instance_id', 'in', instanceIds).execute();
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

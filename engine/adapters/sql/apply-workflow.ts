// Applying a workflow definition, in one transaction: the workflow row (its version moves only
// when the spec changed), its tasks (ids kept by name), dependencies, schedule, and the audit entry.
import type { Kysely, Transaction } from 'kysely';
import { type Actor, actorName, actorNote } from '../../api/actor.ts';
import { DEFAULT_WAIT_TIMEOUT_MS, type WorkflowSpec } from '../../api/types.ts';
import type { ApplyResult } from '../../ports/store.ts';
import { canonicalJson, chunks, num } from './rows.ts';
import { insertedId } from './inserts.ts';
import type { Database } from './schema.ts';

export async function applyWorkflow(
  db: Kysely<Database>,
  spec: WorkflowSpec,
  now: number,
  actor?: Actor,
): Promise<ApplyResult> {
  return db.transaction().execute((trx) => writeWorkflow(trx, spec, now, actor));
}

/** The apply's writes inside a transaction the caller holds (one workflow, or several: apply-workflows.ts). */
export async function writeWorkflow(
  trx: Transaction<Database>,
  spec: WorkflowSpec,
  now: number,
  actor?: Actor,
): Promise<ApplyResult> {
  const specJson = canonicalJson(spec);
  const existing = await trx.selectFrom('workflow').selectAll().where('name', '=', spec.name).executeTakeFirst();
  if (existing && existing.spec_json === specJson)
    return { workflowId: existing.id, version: existing.version, changed: false };

  const columns = {
    description: spec.description ?? null,
    owner: spec.owner ?? null,
    routing: spec.routing,
    on_event: spec.onEvent ?? null,
    spec_json: specJson,
    params_json: spec.params && spec.params.length > 0 ? JSON.stringify(spec.params) : null,
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
    workflowId = await insertedId(
      trx,
      trx.insertInto('workflow').values({ ...columns, name: spec.name, enabled: 1, version, created_at: now }),
    );
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
    run_if: t.runIf ?? null,
    when_json: t.when ? JSON.stringify(t.when) : null,
    call_json: t.call ? JSON.stringify(t.call) : null,
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
    trigger_type: spec.monitor ? 'monitor' : 'cron',
    monitor_grace_ms: spec.monitor?.graceMs ?? null,
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

// Waits across workflows, as parts of the compound state changes (finish-instance.ts, …):
// holding a new instance for its upstreams in other workflows, releasing the instances an
// upstream's SUCCESS was the last wait of, and naming those its failure for good leaves without
// hope. One `upstream_wait` row per upstream still awaited; a release deletes it, and the
// instance whose last row goes becomes due (notBefore from HELD_FOR_UPSTREAM to now).
//
// Concurrency (MySQL). Every read here is a locking read, as in finish-instance.ts (a plain
// read would take the REPEATABLE READ snapshot early):
// - holding reads the upstream's rows (its runs in the window, their instances) in share mode,
//   so an upstream finishing at that moment either committed first (its SUCCESS is seen: no
//   wait) or waits for the hold to commit (and then finds the wait row and releases it);
// - a release locks the wait rows it deletes, then reads the waiter's other rows with a locking
//   read: two upstreams releasing one waiter's last two rows wait for each other (InnoDB rolls
//   one back and it runs again, seeing the other's delete), so the waiter is released once.
import type { Kysely, Selectable } from 'kysely';
import type { InstanceRecord } from '../../api/types.ts';
import { waitingReason } from '../../core/workflow/cross-upstream.ts';
import { HELD_FOR_UPSTREAM, type UpstreamWaitDraft, type WaiterNotice } from '../../ports/store.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks, instanceFromRow, reasonColumnsOf } from './rows.ts';
import type { Database, WorkflowRunTable } from './schema.ts';
import { exclusive, shared, type Trx } from './transaction.ts';

/** Did `task` (or, null, the whole run) of the workflow succeed in a run whose logical time is in [from, to)? */
async function succeededIn(
  trx: Trx,
  dialect: SqlDialectName,
  workflowId: number,
  task: string | null,
  from: number,
  to: number,
): Promise<boolean> {
  const runs = await shared(
    trx
      .selectFrom('workflow_run')
      .select(['id', 'state', 'only_task'])
      .where('workflow_id', '=', workflowId)
      .where('logical_time', '>=', from)
      .where('logical_time', '<', to),
    dialect,
  ).execute();
  // the whole workflow: a run of all its tasks that succeeded (a run of one task is not the workflow's)
  if (task === null) return runs.some((r) => r.state === 'SUCCESS' && r.only_task === null);
  for (const ids of chunks(runs.map((r) => r.id))) {
    const rows = await shared(
      trx.selectFrom('task_instance').select(['id', 'state']).where('run_id', 'in', ids).where('task_name', '=', task),
      dialect,
    ).execute();
    if (rows.some((r) => r.state === 'SUCCESS')) return true;
  }
  return false;
}

/**
 * Holds a WAITING instance created with notBefore HELD_FOR_UPSTREAM for those of its waits not
 * yet satisfied, or releases it at once when every one is. Part of the caller's step.
 */
export async function holdForUpstreams(
  trx: Trx,
  dialect: SqlDialectName,
  inst: { id: number; runId: number; workflowId: number },
  waits: UpstreamWaitDraft[],
  now: number,
): Promise<{ notBefore: number; reason: string | null; reason_code: string | null }> {
  const pending: { w: UpstreamWaitDraft; from: number; to: number }[] = [];
  for (const w of waits) {
    const up = await shared(
      trx.selectFrom('workflow').select('id').where('name', '=', w.workflow),
      dialect,
    ).executeTakeFirst();
    let from: number;
    let to: number;
    if ('latestAtOrBefore' in w.window) {
      const last = up
        ? await shared(
            trx
              .selectFrom('workflow_run')
              .select('logical_time')
              .where('workflow_id', '=', up.id)
              .where('logical_time', '<=', w.window.latestAtOrBefore)
              .orderBy('logical_time', 'desc')
              .limit(1),
            dialect,
          ).executeTakeFirst()
        : undefined;
      [from, to] = [last ? Number(last.logical_time) : 0, HELD_FOR_UPSTREAM];
    } else [from, to] = [w.window.from, w.window.to];
    if (up && (await succeededIn(trx, dialect, up.id, w.task, from, to))) continue;
    pending.push({ w, from, to });
  }
  if (pending.length === 0) {
    await trx
      .updateTable('task_instance')
      .set({ not_before: now })
      .where('id', '=', inst.id)
      .where('not_before', '=', HELD_FOR_UPSTREAM)
      .execute();
    return { notBefore: now, reason: null, reason_code: null };
  }
  const rows = pending.map(({ w, from, to }) => ({
    instance_id: inst.id,
    run_id: inst.runId,
    workflow_id: inst.workflowId,
    upstream_workflow: w.workflow,
    upstream_task: w.task ?? '',
    window_from: from,
    window_to: to,
    label: w.label,
    deadline: w.deadline,
  }));
  await trx.insertInto('upstream_wait').values(rows).execute();
  const columns = reasonColumnsOf(waitingReason(pending.map((p) => p.w.label)));
  await trx.updateTable('task_instance').set(columns).where('id', '=', inst.id).execute();
  return { notBefore: HELD_FOR_UPSTREAM, ...columns };
}

function matching(trx: Trx, workflow: string, task: string | null, logicalTime: number) {
  return trx
    .selectFrom('upstream_wait')
    .select(['id', 'instance_id', 'label'])
    .where('upstream_workflow', '=', workflow)
    .where('upstream_task', '=', task ?? '')
    .where('window_from', '<=', logicalTime)
    .where('window_to', '>', logicalTime)
    .orderBy('id');
}

/**
 * `task` (null: the whole run) of `workflow` succeeded in a run of logical time `logicalTime`:
 * the waits it satisfies are deleted, and the instances left with none become due. Returns them.
 */
export async function releaseWaiters(
  trx: Trx,
  dialect: SqlDialectName,
  workflow: string,
  task: string | null,
  logicalTime: number,
  now: number,
): Promise<InstanceRecord[]> {
  const rows = await exclusive(matching(trx, workflow, task, logicalTime), dialect).execute();
  if (rows.length === 0) return [];
  for (const ids of chunks(rows.map((r) => r.id)))
    await trx.deleteFrom('upstream_wait').where('id', 'in', ids).execute();
  const released: InstanceRecord[] = [];
  for (const instanceId of new Set(rows.map((r) => r.instance_id))) {
    const left = await exclusive(
      trx.selectFrom('upstream_wait').select('label').where('instance_id', '=', instanceId).orderBy('id'),
      dialect,
    ).execute();
    if (left.length > 0) {
      await trx
        .updateTable('task_instance')
        .set(reasonColumnsOf(waitingReason(left.map((l) => l.label))))
        .where('id', '=', instanceId)
        .where('state', '=', 'WAITING')
        .execute();
      continue;
    }
    const res = await trx
      .updateTable('task_instance')
      .set({ not_before: now, reason: null, reason_code: null })
      .where('id', '=', instanceId)
      .where('state', '=', 'WAITING')
      .where('not_before', '=', HELD_FOR_UPSTREAM)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) continue;
    const row = await shared(
      trx.selectFrom('task_instance').selectAll().where('id', '=', instanceId),
      dialect,
    ).executeTakeFirst();
    if (row) released.push(instanceFromRow(row));
  }
  return released;
}

/** How other workflows' waits name a run: its workflow's name and its logical time (none once the workflow is gone). */
export async function runAsAwaited(
  trx: Trx,
  dialect: SqlDialectName,
  run: Pick<Selectable<WorkflowRunTable>, 'workflow_id' | 'logical_time'>,
): Promise<{ workflow: string; at: number } | undefined> {
  const wf = await shared(
    trx.selectFrom('workflow').select('name').where('id', '=', run.workflow_id),
    dialect,
  ).executeTakeFirst();
  return wf && { workflow: wf.name, at: Number(run.logical_time) };
}

/** A waiter with several wait rows matching is named once, with its first row's label. */
function oncePerInstance(rows: { instance_id: number; label: string }[]): WaiterNotice[] {
  const seen = new Set<number>();
  return rows
    .filter((r) => !seen.has(r.instance_id) && seen.add(r.instance_id))
    .map((r) => ({ instanceId: r.instance_id, label: r.label }));
}

/** The instances waiting for what just failed for good, and what each waited for. */
export async function waitersOf(
  trx: Trx,
  dialect: SqlDialectName,
  workflow: string,
  task: string | null,
  logicalTime: number,
): Promise<WaiterNotice[]> {
  const rows = await shared(matching(trx, workflow, task, logicalTime), dialect).execute();
  return oncePerInstance(rows);
}

/**
 * The instances waiting for any task (or the whole) of `workflow` in a run of logical time
 * `logicalTime`: that run was cancelled, so what it had not done yet it will not do.
 */
export async function waitersOfRun(
  trx: Trx,
  dialect: SqlDialectName,
  workflow: string,
  logicalTime: number,
): Promise<WaiterNotice[]> {
  const rows = await shared(
    trx
      .selectFrom('upstream_wait')
      .select(['id', 'instance_id', 'label'])
      .where('upstream_workflow', '=', workflow)
      .where('window_from', '<=', logicalTime)
      .where('window_to', '>', logicalTime)
      .orderBy('id'),
    dialect,
  ).execute();
  return oncePerInstance(rows);
}

/** A waiter that ended (released, failed, cancelled) waits no more. */
export async function dropWaits(trx: Trx, by: 'instance_id' | 'run_id', id: number): Promise<void> {
  await trx.deleteFrom('upstream_wait').where(by, '=', id).execute();
}

export async function expiredWaits(db: Kysely<Database>, now: number, limit: number): Promise<WaiterNotice[]> {
  const rows = await db
    .selectFrom('upstream_wait')
    .select(['instance_id', 'label'])
    .where('deadline', '<=', now)
    .orderBy('deadline')
    .orderBy('id')
    .limit(limit * 4)
    .execute();
  const out: WaiterNotice[] = [];
  const seen = new Set<number>();
  for (const r of rows) {
    if (seen.has(r.instance_id)) continue;
    seen.add(r.instance_id);
    const inst = await db
      .selectFrom('task_instance')
      .select('state')
      .where('id', '=', r.instance_id)
      .executeTakeFirst();
    // Left by a waiter that ended some other way (its run cancelled, removed): nothing waits.
    if (inst?.state !== 'WAITING')
      await db.deleteFrom('upstream_wait').where('instance_id', '=', r.instance_id).execute();
    else if (out.push({ instanceId: r.instance_id, label: r.label }) >= limit) break;
  }
  return out;
}

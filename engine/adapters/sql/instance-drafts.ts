// Parts shared by the compound state changes (start-run.ts, finish-instance.ts, settle-run.ts,
// cancel-run.ts, rerun-task.ts): inserting a step's new instances, each held for its upstreams
// in other workflows when it has some, and the reads that decide a join or a run's end. Always
// inside the caller's transaction.
import { sql, type Kysely } from 'kysely';
import type { InstanceRecord, InstanceState, RunRecord } from '../../api/types.ts';
import { waitDrafts } from '../../core/workflow/cross-upstream.ts';
import { HELD_FOR_UPSTREAM, type InstanceDraft } from '../../ports/store.ts';
import { memoQuery, slot } from './memo-query.ts';
import { mayCollide, isPostgres } from './inserts.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks, instanceFromRow, reasonColumns } from './rows.ts';
import { getRun, isUniqueViolation } from './run-queries.ts';
import type { Database } from './schema.ts';
import { shared, type Trx } from './transaction.ts';
import { holdForUpstreams } from './upstream-waits.ts';

export const ACTIVE: InstanceState[] = ['WAITING', 'DISPATCHED', 'RUNNING'];

/**
 * Inserts the drafts into the run; one that exists already (a step run twice) is skipped. A
 * draft with upstreams in other workflows is created held and, in this step, waits for those
 * that have not succeeded in the window the run's logical time gives (or is released at once).
 */
export async function insertDrafts(
  trx: Trx,
  dialect: SqlDialectName,
  run: { id: number; workflow_id: number; logical_time: number },
  drafts: InstanceDraft[],
  now: number,
): Promise<InstanceRecord[]> {
  const created: InstanceRecord[] = [];
  for (const d of drafts) {
    const final = d.state !== 'WAITING';
    const held = !final && d.upstreams !== undefined;
    const values = {
      run_id: run.id,
      workflow_id: run.workflow_id,
      task_id: d.taskId,
      task_name: d.taskName,
      attempt: d.attempt,
      state: d.state,
      ...reasonColumns(d.reason, d.reasonCode),
      not_before: held ? HELD_FOR_UPSTREAM : d.notBefore,
      created_at: now,
      finished_at: final ? now : null,
      // A marker created final (UPSTREAM_FAILED) leads to nothing more.
      handled: final ? 1 : 0,
      failovers: d.failovers ?? 0,
    };
    try {
      const columns = Object.keys(values);
      const returning = isPostgres(trx);
      const res = await mayCollide(trx, () =>
        memoQuery(
          trx,
          'insert-instance',
          (d) => {
            const q = d
              .insertInto('task_instance')
              .values(Object.fromEntries(columns.map((c, i) => [c, slot(i)])) as typeof values);
            return returning ? q.returning('id') : q;
          },
          Object.values(values),
        ),
      );
      const id = Number(returning ? (res.rows[0] as unknown as { id: number }).id : res.insertId);
      const upstreams = held ? d.upstreams : undefined;
      const hold = upstreams
        ? await holdForUpstreams(
            trx,
            dialect,
            { id, runId: run.id, workflowId: run.workflow_id },
            waitDrafts(upstreams, Number(run.logical_time), upstreams.timezone, now),
            now,
          )
        : undefined;
      created.push(
        instanceFromRow({
          ...values,
          ...(hold && { not_before: hold.notBefore, reason: hold.reason, reason_code: hold.reason_code }),
          id,
          worker_id: null,
          pid: null,
          exit_code: null,
          dispatched_at: null,
          started_at: null,
          heartbeat_at: null,
          failed_over: 0,
        }),
      );
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  return created;
}

/**
 * Of taskIds, those with a SUCCESS instance in the run: by the (run, task, attempt) key, so
 * O(taskIds). SQLite would pick the (run_id, state) index and walk every SUCCESS of the run;
 * `+state` (a no-op there) keeps it off that index. MySQL picks the key by itself, and `+state`
 * would make it compare numbers.
 */
export async function succeededAmong(
  trx: Kysely<Database>,
  dialect: SqlDialectName,
  runId: number,
  taskIds: number[],
  locking = false,
): Promise<Set<number>> {
  const out = new Set<number>();
  const state = dialect === 'sqlite' ? sql<string>`+state` : sql<string>`state`;
  // PostgreSQL's locking read waits for a row another step is changing and returns its new
  // version, but only among the rows its condition matched before the wait: a state condition
  // would pass over an upstream another finish is turning SUCCESS right now. Its state is
  // filtered here instead, after the wait.
  const afterLock = locking && dialect === 'postgres';
  for (const ids of chunks(taskIds)) {
    let q = trx
      .selectFrom('task_instance')
      .select(['task_id', 'state'])
      .where('run_id', '=', runId)
      .where('task_id', 'in', ids);
    if (!afterLock) q = q.where(state, '=', 'SUCCESS');
    const rows = await (locking ? shared(q, dialect) : q).execute();
    for (const r of rows) if (r.state === 'SUCCESS') out.add(r.task_id);
  }
  return out;
}

export async function runRecord(trx: Trx, id: number): Promise<RunRecord> {
  return (await getRun(trx, id)) as RunRecord;
}

/** One pending (WAITING, DISPATCHED, RUNNING) instance of the run, if it has any. */
export function pendingQuery(trx: Kysely<Database>, runId: number) {
  return trx.selectFrom('task_instance').select('id').where('run_id', '=', runId).where('state', 'in', ACTIVE).limit(1);
}

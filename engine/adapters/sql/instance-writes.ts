// The single-instance writes, each a compare-and-set on the instance's state, attempt and (when
// the guard names one) its worker: the worker's RUNNING and pid, an instance sent back to the
// queue, the "waiting: …" reason a dispatcher shows. One statement each, so no transaction of
// their own; those asked for together share a commit (group-commit.ts).
import type { ReasonCode } from '../../api/reason-code.ts';
import { reasonColumns } from './rows.ts';
import type { Kysely, Updateable } from 'kysely';
import type { InstanceLaunch } from '../../api/types.ts';
import type { InstanceGuard, Outcome } from '../../ports/store.ts';
import { groupCommit, groupCommitNetworked } from './group-commit.ts';
import { memoQuery, slot } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import type { Database, TaskInstanceTable } from './schema.ts';

/** An outcome's fields as the instance's columns (`reason: null` clears it). */
export function outcomeColumns(outcome: Outcome): Updateable<TaskInstanceTable> {
  const out: Updateable<TaskInstanceTable> = {};
  if (outcome.reason !== undefined) Object.assign(out, reasonColumns(outcome.reason, outcome.reasonCode));
  if (outcome.exitCode !== undefined) out.exit_code = outcome.exitCode;
  if (outcome.finishedAt !== undefined) out.finished_at = outcome.finishedAt;
  if (outcome.failedOver !== undefined) out.failed_over = outcome.failedOver ? 1 : 0;
  return out;
}

/**
 * The compare-and-set of one instance: `values` written only while it is in one of guard.from,
 * at guard.attempt (and held by guard.workerId when given). True when it was.
 */
export async function guardedInstanceUpdate(
  db: Kysely<Database>,
  values: Updateable<TaskInstanceTable>,
  id: number,
  guard: InstanceGuard,
): Promise<boolean> {
  const columns = Object.keys(values);
  // Slots: the values in column order, then the id, attempt, worker id and the states it may be in.
  const n = columns.length;
  const res = await memoQuery(
    db,
    `instance-cas:${columns.join(',')}:${guard.from.length}:${guard.workerId !== undefined}`,
    (d) => {
      let q = d
        .updateTable('task_instance')
        // Nothing to write is still a guarded check ("do I still own it?"); `SET state = state`
        // keeps the statement valid, since an empty SET is a syntax error.
        .set((eb) => (n > 0 ? Object.fromEntries(columns.map((c, i) => [c, slot(i)])) : { state: eb.ref('state') }))
        .where('id', '=', slot(n))
        .where(
          'state',
          'in',
          guard.from.map((_, i) => slot(n + 3 + i)),
        )
        .where('attempt', '=', slot(n + 1));
      if (guard.workerId !== undefined) q = q.where('worker_id', '=', slot(n + 2));
      return q;
    },
    [...Object.values(values), id, guard.attempt, guard.workerId, ...guard.from],
  );
  return Number(res.numAffectedRows ?? 0) > 0;
}

/** One write of the task path: it shares a commit with those asked for with it (group-commit.ts). */
function write(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  values: Updateable<TaskInstanceTable>,
  id: number,
  guard: InstanceGuard,
): Promise<boolean> {
  const work = (trx: Kysely<Database>) => guardedInstanceUpdate(trx, values, id, guard);
  if (dialect === 'sqlite') return groupCommit(db, work);
  return groupCommitNetworked(db, work, { alone: () => work(db) });
}

/** DISPATCHED → RUNNING by its worker: started (and first heartbeat) at `startedAt`. */
export function markRunning(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  id: number,
  guard: InstanceGuard,
  startedAt: number,
): Promise<boolean> {
  return write(db, dialect, { state: 'RUNNING', started_at: startedAt, heartbeat_at: startedAt }, id, guard);
}

/** The process a RUNNING instance runs as (its group is killed by pid after a crash), and what it ran. */
export function recordPid(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  id: number,
  guard: InstanceGuard,
  pid: number | undefined,
  launch?: InstanceLaunch,
): Promise<boolean> {
  return write(
    db,
    dialect,
    { ...(pid !== undefined && { pid }), ...(launch && { launch_json: JSON.stringify(launch) }) },
    id,
    guard,
  );
}

/** Back to WAITING (never started: its worker refused it, was lost, or restarted), with why. */
export function requeueInstance(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  id: number,
  guard: InstanceGuard,
  reason: string,
  reasonCode?: ReasonCode,
): Promise<boolean> {
  return write(db, dialect, { state: 'WAITING', ...reasonColumns(reason, reasonCode) }, id, guard);
}

/** A WAITING instance at `attempt` shows why it still waits (`waiting: no worker …`). */
export function setWaitingReason(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  id: number,
  attempt: number,
  reason: string,
  reasonCode?: ReasonCode,
): Promise<boolean> {
  return write(db, dialect, reasonColumns(reason, reasonCode), id, { from: ['WAITING'], attempt });
}

// start-call, one transaction; and the look for child runs nobody waits for.
// In: a call: task's instance (its run and attempt), the child run to create, its roots.
// Out: undefined when the instance is no longer WAITING at that attempt or its run is no longer
// RUNNING (nothing written); else the instance RUNNING with no worker and its child_run_id set,
// the child run RUNNING (parent_run_id, parent_instance_id) and its roots.
// Locks (MySQL): the parent run's row SHARED (as a finish takes it: a cancel of the parent waits
// for the start, then finds the instance RUNNING and its child to cancel), the instance's row by
// its compare-and-set, then the child workflow's row exclusively (as start-run takes it, so a
// workflow being removed gets no run).
import { sql, type Kysely } from 'kysely';
import { AxError } from '../../api/errors.ts';
import type { CallStarted, StartCall } from '../../ports/store.ts';
import { insertDrafts, runRecord } from './instance-drafts.ts';
import { guardedInstanceUpdate } from './instance-writes.ts';
import type { SqlDialectName } from './migrations.ts';
import { instanceFromRow } from './rows.ts';
import { insertRun } from './run-queries.ts';
import type { Database } from './schema.ts';
import { exclusive, lockRun, transact } from './transaction.ts';

export async function startCall(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  call: StartCall,
  now: number,
): Promise<CallStarted | undefined> {
  return transact(
    db,
    async (trx) => {
      const parent = await lockRun(trx, dialect, call.instance.runId, 'share');
      if (parent?.state !== 'RUNNING') return undefined;
      const started = await guardedInstanceUpdate(
        trx,
        // no worker: it holds no slot and no backstop judges it by a worker's heartbeats
        { state: 'RUNNING', worker_id: null, started_at: now, heartbeat_at: now, reason: null, reason_code: null },
        call.instance.id,
        { from: ['WAITING'], attempt: call.instance.attempt },
      );
      if (!started) return undefined;
      const workflow = await exclusive(
        trx.selectFrom('workflow').select('id').where('id', '=', call.run.workflowId),
        dialect,
      ).executeTakeFirst();
      // Thrown, so the instance's move above is rolled back with it: the caller fails the task.
      if (!workflow) throw new AxError('not_found', `workflow ${call.run.workflowId} no longer exists`);
      const id = await insertRun(trx, { ...call.run, state: 'RUNNING' });
      if (id === undefined) throw new Error(`the child run of instance ${call.instance.id} was refused`);
      await trx.updateTable('task_instance').set({ child_run_id: id }).where('id', '=', call.instance.id).execute();
      const created = await insertDrafts(
        trx,
        dialect,
        { id, workflow_id: call.run.workflowId, logical_time: call.run.logicalTime },
        call.roots,
        now,
      );
      const row = await trx
        .selectFrom('task_instance')
        .selectAll()
        .where('id', '=', call.instance.id)
        .executeTakeFirstOrThrow();
      return { instance: instanceFromRow(row), run: await runRecord(trx, id), created };
    },
    dialect,
  );
}

/**
 * Child runs RUNNING or QUEUED whose calling instance is gone, was cancelled or timed out, or
 * waits for another child. A caller that FAILED with its child is left out: the child runs again
 * only when someone re-ran its task, which is theirs to do.
 */
export async function orphanedChildRuns(db: Kysely<Database>, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('workflow_run as r')
    .leftJoin('task_instance as i', 'i.id', 'r.parent_instance_id')
    .select('r.id')
    .where('r.state', 'in', ['RUNNING', 'QUEUED'])
    .where('r.parent_instance_id', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('i.id', 'is', null),
        eb('i.state', 'in', ['CANCELLED', 'TIMEOUT']),
        eb(sql`coalesce(i.child_run_id, 0)`, '!=', eb.ref('r.id')),
      ]),
    )
    .orderBy('r.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

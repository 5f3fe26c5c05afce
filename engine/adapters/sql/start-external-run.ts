// start-external-run, one transaction (design.md §13): a monitor's run as reported from outside,
// or the record of a fire nobody reported.
// In: the monitor's workflow, who reported it (a host), when it started, and the state it is
// created in: RUNNING (a `start`), SUCCESS or FAILED (a run that started and ended at once, or a
// missed fire, which carries its schedule and fire time).
// Out: the run and its one instance as created; undefined when that schedule's fire already has
// a run (a miss is recorded once, whichever scheduler saw it, before or after a restart).
// Locks (MySQL): the workflow's row in share mode, so the run is never created for a workflow
// being removed.
import type { Kysely } from 'kysely';
import { AxError } from '../../api/errors.ts';
import type { InstanceRecord, RunRecord } from '../../api/types.ts';
import { EXTERNAL_TASK_ID, type ExternalRunStart } from '../../ports/store.ts';
import { runRecord } from './instance-drafts.ts';
import { insertedId } from './inserts.ts';
import type { SqlDialectName } from './migrations.ts';
import { instanceFromRow, reasonColumns } from './rows.ts';
import { insertRun } from './run-queries.ts';
import type { Database } from './schema.ts';
import { shared, transact } from './transaction.ts';

export async function startExternalRun(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  start: ExternalRunStart,
): Promise<{ run: RunRecord; instance: InstanceRecord } | undefined> {
  return transact(
    db,
    async (trx) => {
      const workflow = await shared(
        trx.selectFrom('workflow').select(['id']).where('id', '=', start.workflowId),
        dialect,
      ).executeTakeFirst();
      if (!workflow) throw new AxError('not_found', `workflow ${start.workflowId} no longer exists`);
      const ended = start.state !== 'RUNNING';
      const finishedAt = ended ? (start.finishedAt ?? start.startedAt) : null;
      const runId = await insertRun(trx, {
        workflowId: start.workflowId,
        state: start.state,
        trigger: 'external',
        triggeredBy: start.triggeredBy,
        logicalTime: start.logicalTime,
        scheduleId: start.scheduleId,
        ...(ended && { reason: start.reason, reasonCode: start.reasonCode }),
        createdAt: start.startedAt,
      });
      if (runId === undefined) return undefined;
      // insertRun stamps only a RUNNING run's start: an external run has started, whatever its state.
      await trx
        .updateTable('workflow_run')
        .set({ started_at: start.startedAt, finished_at: finishedAt })
        .where('id', '=', runId)
        .execute();
      const row = {
        run_id: runId,
        workflow_id: start.workflowId,
        task_id: EXTERNAL_TASK_ID,
        task_name: start.taskName,
        attempt: 1,
        state: start.state,
        worker_id: null,
        pid: null,
        exit_code: start.exitCode ?? null,
        ...reasonColumns(start.reason, start.reasonCode),
        not_before: start.startedAt,
        created_at: start.startedAt,
        dispatched_at: null,
        started_at: start.startedAt,
        finished_at: finishedAt,
        heartbeat_at: null,
        handled: ended ? 1 : 0,
      };
      const id = await insertedId(trx, trx.insertInto('task_instance').values(row));
      const instance = instanceFromRow({ ...row, id, failovers: 0, failed_over: 0 });
      return { run: await runRecord(trx, runId), instance };
    },
    dialect,
  );
}

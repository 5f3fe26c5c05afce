// rerun-task, one transaction: a task that failed for good runs again in its run, with its
// downstream.
// In: the run, the task with its latest attempt as the caller judged it (its attempt number and
// the states a re-run is allowed from), the downstream's UPSTREAM_FAILED and SKIPPED instances to
// remove (decided by what the task did: decided again once it ends), the new attempt's draft, and the reason the run shows while it runs again.
// Out: done false, with nothing written, when the run is gone or the task's latest attempt is
// no longer the one judged (another re-run, a retry came meanwhile); else the new attempt
// (created held, and held or released in this step, when it waits on other workflows) and the
// run when it moved back to RUNNING.
// Locks (MySQL): the run's row exclusively, then the task's latest attempt's row.
// All of it or none: a crash between the run's move, the markers' removal and the new attempt
// must not leave a RUNNING run with nothing to run.
import type { Kysely } from 'kysely';
import type { RerunTask, TransitionResult } from '../../ports/store.ts';
import { insertDrafts, runRecord } from './instance-drafts.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks, reasonColumns } from './rows.ts';
import type { Database } from './schema.ts';
import { exclusive, lockRun, transact } from './transaction.ts';

export async function rerunTask(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  rerun: RerunTask,
  now: number,
): Promise<TransitionResult> {
  return transact(
    db,
    async (trx) => {
      const result: TransitionResult = {
        done: false,
        created: [],
        ended: [],
        runs: [],
      };
      const run = await lockRun(trx, dialect, rerun.runId);
      if (!run) return result;
      const latest = await exclusive(
        trx
          .selectFrom('task_instance')
          .select(['id', 'attempt', 'state'])
          .where('run_id', '=', run.id)
          .where('task_id', '=', rerun.taskId)
          .orderBy('attempt', 'desc')
          .limit(1),
        dialect,
      ).executeTakeFirst();
      if (!latest || latest.attempt !== rerun.latest.attempt || !(rerun.latest.from as string[]).includes(latest.state))
        return result;
      result.done = true;
      if (run.state !== 'RUNNING') {
        await trx
          .updateTable('workflow_run')
          .set({ state: 'RUNNING', ...reasonColumns(rerun.reason, rerun.reasonCode), finished_at: null })
          .where('id', '=', run.id)
          .execute();
        result.runs.push(await runRecord(trx, run.id));
      }
      for (const ids of chunks(rerun.markers)) {
        await trx.deleteFrom('execution_log_chunk').where('instance_id', 'in', ids).execute();
        await trx
          .deleteFrom('task_instance')
          .where('id', 'in', ids)
          .where('run_id', '=', run.id)
          .where('state', 'in', ['UPSTREAM_FAILED', 'SKIPPED'])
          .execute();
      }
      result.created.push(...(await insertDrafts(trx, dialect, run, [rerun.draft], now)));
      return result;
    },
    dialect,
  );
}

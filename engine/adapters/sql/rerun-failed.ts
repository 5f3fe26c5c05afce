// rerun-failed, one transaction: the failed tasks of a run that has ended run again in it, with
// their downstream (issue 23 part 7).
// In: the run and the final state the caller judged it in; the roots (failed tasks with no
// failed upstream) with their latest attempts as judged; the downstream's instances to clear;
// the roots' new attempts; the reason the run shows while it runs again.
// Out: done false, with nothing written, when the run is gone, no longer in the judged state, or
// a root's latest attempt is no longer the one judged (a re-run came meanwhile); else the run
// RUNNING again, the cleared instances gone with their logs and waits, the new attempts.
// Locks (MySQL): the run's row exclusively, then the roots' latest attempts' rows.
// All of it or none: a crash between the run's move, the clearing and the new attempts must not
// leave a RUNNING run with nothing to run, nor a downstream that will never be decided again.
import type { Kysely } from 'kysely';
import type { RerunFailed, TransitionResult } from '../../ports/store.ts';
import { insertDrafts, runRecord } from './instance-drafts.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks, reasonColumns } from './rows.ts';
import type { Database } from './schema.ts';
import { exclusive, lockRun, transact } from './transaction.ts';

export async function rerunFailed(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  rerun: RerunFailed,
  now: number,
): Promise<TransitionResult> {
  return transact(
    db,
    async (trx) => {
      const result: TransitionResult = { done: false, created: [], ended: [], runs: [] };
      const run = await lockRun(trx, dialect, rerun.runId);
      if (!run || run.state !== rerun.runState) return result;
      for (const root of rerun.roots) {
        const latest = await exclusive(
          trx
            .selectFrom('task_instance')
            .select(['attempt', 'state'])
            .where('run_id', '=', run.id)
            .where('task_id', '=', root.taskId)
            .orderBy('attempt', 'desc')
            .limit(1),
          dialect,
        ).executeTakeFirst();
        if (latest?.attempt !== root.attempt || latest.state !== root.state) return result;
      }
      result.done = true;
      await trx
        .updateTable('workflow_run')
        .set({ state: 'RUNNING', ...reasonColumns(rerun.reason, rerun.reasonCode), finished_at: null })
        .where('id', '=', run.id)
        .execute();
      result.runs.push(await runRecord(trx, run.id));
      for (const ids of chunks(rerun.cleared)) {
        await trx.deleteFrom('execution_log_chunk').where('instance_id', 'in', ids).execute();
        await trx.deleteFrom('upstream_wait').where('instance_id', 'in', ids).execute();
        await trx.deleteFrom('task_instance').where('id', 'in', ids).where('run_id', '=', run.id).execute();
      }
      result.created.push(...(await insertDrafts(trx, dialect, run, rerun.drafts, now)));
      return result;
    },
    dialect,
  );
}

// start-run, one transaction.
// In: the new run (its trigger, logical time, schedule), its root drafts, the overlap policy.
// Out: the run as created (RUNNING, or QUEUED / SKIPPED by the overlap policy) and the roots it
// created (none unless RUNNING); undefined when (schedule, logical time) already has a run.
// Locks (MySQL): the workflow's row exclusively, so two triggers of one workflow decide the
// overlap one after the other, and a run is never created for a workflow being removed.
// Also: a cron fire moves its schedule's last fire to its logical time (never backwards).
// A backfill's run (backfillId): the backfill's row is locked and must be RUNNING, else no run
// (undefined), so a cancelled backfill gets no run after its cancel; (backfill, logical time) is
// unique, so a time's run is created once.
import { because } from '../../api/reasons.ts';
import type { Kysely } from 'kysely';
import { AxError } from '../../api/errors.ts';
import type { InstanceRecord, RunRecord, RunState } from '../../api/types.ts';
import type { StartRun } from '../../ports/store.ts';
import { insertDrafts, runRecord } from './instance-drafts.ts';
import type { SqlDialectName } from './migrations.ts';
import { insertRun } from './run-queries.ts';
import type { Database } from './schema.ts';
import { exclusive, transact } from './transaction.ts';

export async function startRun(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  start: StartRun,
): Promise<{ run: RunRecord; created: InstanceRecord[] } | undefined> {
  const { run, roots, overlap } = start;
  return transact(
    db,
    async (trx) => {
      let state: RunState = run.state;
      let reason = run.reason;
      let reasonCode = run.reasonCode;
      const workflow = await exclusive(
        trx.selectFrom('workflow').select(['id', 'name']).where('id', '=', run.workflowId),
        dialect,
      ).executeTakeFirst();
      if (!workflow) throw new AxError('not_found', `workflow ${run.workflowId} no longer exists`);
      if (run.backfillId !== undefined) {
        const backfill = await exclusive(
          trx.selectFrom('backfill').select('state').where('id', '=', run.backfillId),
          dialect,
        ).executeTakeFirst();
        if (backfill?.state !== 'RUNNING') return undefined;
      }
      if (overlap && state === 'RUNNING') {
        const active = await trx
          .selectFrom('workflow_run')
          .select(['id', 'state'])
          .where('workflow_id', '=', run.workflowId)
          .where('state', 'in', ['RUNNING', 'QUEUED'])
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (active) {
          state = overlap === 'queue' ? 'QUEUED' : 'SKIPPED';
          ({ reason, reasonCode } = because('overlap', {
            run: active.id,
            state: active.state.toLowerCase(),
            policy: overlap,
          }));
        }
      }
      const id = await insertRun(trx, { ...run, state, reason, reasonCode });
      if (id === undefined) return undefined;
      // A cron fire and its schedule's last_fire_at go in together: a fire that ran must not still
      // count as missed (the misfire policy would act on it). Never backwards.
      if (run.scheduleId !== undefined && run.trigger === 'cron') {
        await trx
          .updateTable('schedule_plan')
          .set({ last_fire_at: run.logicalTime })
          .where('id', '=', run.scheduleId)
          .where('last_fire_at', '<', run.logicalTime)
          .execute();
      }
      const created =
        state === 'RUNNING' && roots.length > 0
          ? await insertDrafts(
              trx,
              dialect,
              { id, workflow_id: run.workflowId, logical_time: run.logicalTime },
              roots,
              run.createdAt,
            )
          : [];
      return { run: await runRecord(trx, id), created };
    },
    dialect,
  );
}

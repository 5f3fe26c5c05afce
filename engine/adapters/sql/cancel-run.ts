// cancel-run, one transaction.
// In: a run, the reason, and the roots the workflow's oldest QUEUED run starts with.
// Out: done false when the run had ended (nothing written); else the run CANCELLED, every one of
// its WAITING, DISPATCHED and RUNNING instances CANCELLED (reported as they are now, so their
// workers' outcome writes are refused), the queued run started, and the instances of other
// workflows that waited for what this run will now not do.
// Locks (MySQL): the run's row exclusively, then its active instances' rows.
import type { ReasonCode } from '../../api/reason-code.ts';
import type { Kysely, Selectable } from 'kysely';
import type { InstanceDraft, TransitionResult } from '../../ports/store.ts';
import { ACTIVE, runRecord } from './instance-drafts.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks, instanceFromRow, reasonColumns } from './rows.ts';
import type { Database, WorkflowRunTable } from './schema.ts';
import { startQueued } from './settle-run.ts';
import { exclusive, lockRun, transact, type Trx } from './transaction.ts';
import { dropWaits, runAsAwaited, waitersOf, waitersOfRun } from './upstream-waits.ts';

export async function cancelRun(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  runId: number,
  reason: string,
  reasonCode: ReasonCode | undefined,
  queuedRoots: InstanceDraft[],
  now: number,
): Promise<TransitionResult> {
  return transact(
    db,
    async (trx) => {
      const result: TransitionResult = { done: false, created: [], ended: [], runs: [] };
      const run = await lockRun(trx, dialect, runId);
      if (!run || (run.state !== 'RUNNING' && run.state !== 'QUEUED')) return result;
      await trx
        .updateTable('workflow_run')
        .set({ state: 'CANCELLED', ...reasonColumns(reason, reasonCode), finished_at: now })
        .where('id', '=', runId)
        .execute();
      result.done = true;
      result.runs.push(await runRecord(trx, runId));
      await dropWaits(trx, 'run_id', runId);
      const active = await exclusive(
        trx
          .selectFrom('task_instance')
          .selectAll()
          .where('run_id', '=', runId)
          .where('state', 'in', ACTIVE)
          .orderBy('id'),
        dialect,
      ).execute();
      for (const ids of chunks(active.map((r) => r.id))) {
        await trx
          .updateTable('task_instance')
          .set({ state: 'CANCELLED', ...reasonColumns(reason, reasonCode), finished_at: now, handled: 1 })
          .where('id', 'in', ids)
          .execute();
      }
      result.ended.push(
        ...active.map((r) =>
          instanceFromRow({
            ...r,
            state: 'CANCELLED',
            ...reasonColumns(reason, reasonCode),
            finished_at: now,
            handled: 1,
          }),
        ),
      );
      await cancelAcrossWorkflows(trx, dialect, run, result);
      await startQueued(trx, dialect, run.workflow_id, queuedRoots, now, result);
      return result;
    },
    dialect,
  );
}

/** A cancelled run will not do what other workflows still wait for from it: they are named. */
async function cancelAcrossWorkflows(
  trx: Trx,
  dialect: SqlDialectName,
  run: Selectable<WorkflowRunTable>,
  result: TransitionResult,
): Promise<void> {
  const awaited = await runAsAwaited(trx, dialect, run);
  if (!awaited) return;
  const { workflow, at } = awaited;
  const waiters =
    run.only_task === null
      ? await waitersOfRun(trx, dialect, workflow, at)
      : await waitersOf(trx, dialect, workflow, run.only_task, at);
  if (waiters.length > 0) (result.failedWaiters ??= []).push(...waiters);
}

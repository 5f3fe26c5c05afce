// settle-run, one transaction, and the run's end as part of other steps (finish, cancel).
// In: a run, how it is judged (its task count) and the roots the workflow's oldest QUEUED run
// starts with should this run end.
// Out: done when the run ended; the runs moved (the ended one, a queued one started), the
// instances created (the started run's roots), and across workflows the waiters its SUCCESS
// released or its failure leaves without hope.
// Locks (MySQL): the run's row exclusively, as the step's first statement, so its first plain
// read already sees every step that held the lock before; the queued run's row exclusively.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { RunState } from '../../api/types.ts';
import type { InstanceDraft, Settlement, TransitionResult } from '../../ports/store.ts';
import { insertDrafts, pendingQuery, runRecord } from './instance-drafts.ts';
import { memoQuery, slot } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import type { Database, WorkflowRunTable } from './schema.ts';
import { exclusive, lockRun, transact, type Trx } from './transaction.ts';
import { releaseWaiters, runAsAwaited, waitersOf } from './upstream-waits.ts';

export async function settleRun(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  runId: number,
  settlement: Settlement,
  now: number,
): Promise<TransitionResult> {
  return transact(
    db,
    async (trx) => {
      const result: TransitionResult = { done: false, created: [], ended: [], runs: [] };
      const run = await lockRun(trx, dialect, runId);
      if (run?.state !== 'RUNNING') return result;
      await settle(trx, dialect, run, settlement, now, result);
      result.done = result.runs.length > 0;
      return result;
    },
    dialect,
  );
}

/** Ends the locked RUNNING run if nothing of it is pending, then starts the next queued one. Part of the caller's step. */
export async function settle(
  trx: Trx,
  dialect: SqlDialectName,
  run: Selectable<WorkflowRunTable>,
  { taskCount, queuedRoots }: Settlement,
  now: number,
  result: TransitionResult,
): Promise<void> {
  if ((await memoQuery(trx, 'pending', (d) => pendingQuery(d, slot(0)), [run.id])).rows.length > 0) return;
  const succeeded = await trx
    .selectFrom('task_instance')
    .select(sql<number>`count(distinct task_id)`.as('n'))
    .where('run_id', '=', run.id)
    .where('state', 'in', ['SUCCESS', 'SKIPPED'])
    .executeTakeFirstOrThrow();
  // SUCCESS when every task it was to run succeeded or was skipped: one that failed for good (or was
  // cancelled, or never ran because of a failure) fails the run, whatever its all_done or one_failed
  // tasks did. A run of one task with its downstream: every task it reached (downstream-scope.ts).
  const needed =
    run.only_task === null ? taskCount : Number(run.with_downstream) === 1 ? await tasksReached(trx, run.id) : 1;
  const state: RunState = Number(succeeded.n) >= needed && needed > 0 ? 'SUCCESS' : 'FAILED';
  await trx
    .updateTable('workflow_run')
    .set({ state, finished_at: now })
    .where('id', '=', run.id)
    .where('state', '=', 'RUNNING')
    .execute();
  result.runs.push(await runRecord(trx, run.id));
  if (run.only_task === null) await settleAcrossWorkflows(trx, dialect, run, state, now, result);
  await startQueued(trx, dialect, run.workflow_id, queuedRoots, now, result);
}

/** how many tasks of the run have an instance */
async function tasksReached(trx: Trx, runId: number): Promise<number> {
  const row = await trx
    .selectFrom('task_instance')
    .select(sql<number>`count(distinct task_id)`.as('n'))
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A run's end as other workflows' whole-run waits see it: its SUCCESS releases them, its failure names them. */
async function settleAcrossWorkflows(
  trx: Trx,
  dialect: SqlDialectName,
  run: Selectable<WorkflowRunTable>,
  state: RunState,
  now: number,
  result: TransitionResult,
): Promise<void> {
  const awaited = await runAsAwaited(trx, dialect, run);
  if (!awaited) return;
  const { workflow, at } = awaited;
  if (state === 'SUCCESS')
    (result.released ??= []).push(...(await releaseWaiters(trx, dialect, workflow, null, at, now)));
  else (result.failedWaiters ??= []).push(...(await waitersOf(trx, dialect, workflow, null, at)));
}

/**
 * The workflow's oldest QUEUED run starts (overlap policy `queue`) once none of its runs is
 * RUNNING; with its roots, due now, in the caller's transaction.
 */
export async function startQueued(
  trx: Trx,
  dialect: SqlDialectName,
  workflowId: number,
  roots: InstanceDraft[],
  now: number,
  result: TransitionResult,
): Promise<void> {
  const running = await trx
    .selectFrom('workflow_run')
    .select('id')
    .where('workflow_id', '=', workflowId)
    .where('state', '=', 'RUNNING')
    .limit(1)
    .executeTakeFirst();
  if (running) return;
  const next = await exclusive(
    trx
      .selectFrom('workflow_run')
      .select(['id', 'workflow_id', 'logical_time'])
      .where('workflow_id', '=', workflowId)
      .where('state', '=', 'QUEUED')
      .orderBy('id')
      .limit(1),
    dialect,
  ).executeTakeFirst();
  if (!next) return;
  await trx
    .updateTable('workflow_run')
    .set({ state: 'RUNNING', started_at: now })
    .where('id', '=', next.id)
    .where('state', '=', 'QUEUED')
    .execute();
  result.runs.push(await runRecord(trx, next.id));
  const due = roots.map((d) => ({ ...d, notBefore: now }));
  result.created.push(...(await insertDrafts(trx, dialect, next, due, now)));
}

// The state machine's compound steps (SPEC §4), each one transaction, fenced and complete:
// start-run (the run and its roots), finish-with-follow-ups (an outcome, what it leads to, the
// run's end and the next queued run), cancel-run. A crash leaves either all of a step or none of
// it, so nothing has to find and repair half-done sequences afterwards.
//
// Concurrency (MySQL; SQLite has one writer at a time anyway). Steps that change a run itself
// (settle, cancel) hold the run's row exclusively (`FOR UPDATE`), taken as the transaction's
// first statement, so their first plain read (MySQL takes the REPEATABLE READ snapshot there)
// already sees every step that held the lock before them.
// Finishing an instance holds the run's row shared (`LOCK IN SHARE MODE`), so instances of one
// run finish side by side (under an exclusive lock they queued, one transaction at a time, and a
// team's throughput was one run-row lock hold per task), and every read that decides something
// is a locking read, which sees the latest committed rows and waits for rows another finish is
// changing (no plain read comes before them, so no snapshot is taken early):
// - a downstream task is ready when all its upstreams succeeded: read locking, so two upstreams
//   finishing together wait for each other (InnoDB ends the deadlock by rolling one back, and it
//   runs again and sees the other's SUCCESS): the join is made exactly once;
// - the run ends when nothing of it is pending: first a look that skips rows being changed by
//   others (`SKIP LOCKED`): an active row nobody is changing means the run goes on, and that
//   row's own finish will look again. Only when none is left does the finish take the run's row
//   exclusively (waiting for every other finish of the run to commit) and look again, plainly.
//   Two last finishes both asking deadlock; the one rolled back runs again after the other.
import { sql, type Kysely, type Transaction } from 'kysely';
import { AxError } from '../../api/errors.ts';
import type { InstanceRecord, InstanceState, RunRecord, RunState } from '../../api/types.ts';
import type { Finish, InstanceDraft, Settlement, StartRun, TransitionResult } from '../../ports/store.ts';
import { groupCommit } from './group-commit.ts';
import { memoQuery, slot } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks, instanceFromRow } from './rows.ts';
import { getRun, guardedInstanceUpdate, instancePatchColumns, insertRun, isUniqueViolation } from './run-queries.ts';
import type { Database, WorkflowRunTable } from './schema.ts';
import type { Selectable } from 'kysely';
import { dropWaits, holdForUpstreams, releaseWaiters, waitersOf, waitersOfRun } from './upstream-waits.ts';

type Trx = Transaction<Database>;

const ACTIVE: InstanceState[] = ['WAITING', 'DISPATCHED', 'RUNNING'];

function isDeadlock(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
}

/** How many times a step InnoDB rolled back as a deadlock's victim is run again. */
const DEADLOCK_ATTEMPTS = 10;

/**
 * Runs a step as one transaction. InnoDB may pick it as a deadlock's victim and roll it back
 * whole; it is then simply run again, after a short random pause so the same pair does not
 * collide again at once.
 */
export async function transact<T>(db: Kysely<Database>, work: (trx: Trx) => Promise<T>, dialect?: SqlDialectName): Promise<T> {
  // SQLite has no deadlocks; its writes of one turn share a commit.
  if (dialect === 'sqlite') return groupCommit(db, work);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (!isDeadlock(err) || attempt >= DEADLOCK_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt));
    }
  }
}

/** The run's row, locked on MySQL: exclusively, or shared (by a finish). */
async function lockRun(trx: Trx, dialect: SqlDialectName, runId: number, mode: 'update' | 'share' = 'update'): Promise<Selectable<WorkflowRunTable> | undefined> {
  const how = dialect !== 'mysql' ? 'plain' : mode;
  const { rows } = await memoQuery(
    trx,
    `lock-run:${how}`,
    (d) => {
      const q = d.selectFrom('workflow_run').selectAll().where('id', '=', slot(0));
      return how === 'plain' ? q : how === 'update' ? q.forUpdate() : q.modifyEnd(sql`lock in share mode`);
    },
    [runId],
  );
  return rows[0];
}

/** Inserts the drafts into the run; one that exists already (a step run twice) is skipped. */
async function insertDrafts(trx: Trx, dialect: SqlDialectName, run: { id: number; workflow_id: number; logical_time: number }, drafts: InstanceDraft[], now: number): Promise<InstanceRecord[]> {
  const created: InstanceRecord[] = [];
  for (const d of drafts) {
    const final = d.state !== 'WAITING';
    const values = {
      run_id: run.id,
      workflow_id: run.workflow_id,
      task_id: d.taskId,
      task_name: d.taskName,
      attempt: d.attempt,
      state: d.state,
      reason: d.reason ?? null,
      not_before: d.notBefore,
      created_at: now,
      finished_at: final ? now : null,
      // A marker created final (UPSTREAM_FAILED) leads to nothing more.
      handled: final ? 1 : 0,
      failovers: d.failovers ?? 0,
    };
    try {
      const columns = Object.keys(values);
      const res = await memoQuery(trx, 'insert-instance', (d) => d.insertInto('task_instance').values(Object.fromEntries(columns.map((c, i) => [c, slot(i)])) as typeof values), Object.values(values));
      const id = Number(res.insertId);
      // Upstreams in other workflows: held until they succeed (issue 13; upstream-waits.ts).
      const held = d.waits ? await holdForUpstreams(trx, dialect, { id, runId: run.id, workflowId: run.workflow_id }, d.waits(Number(run.logical_time)), now) : undefined;
      created.push(
        instanceFromRow({
          ...values,
          ...(held && { not_before: held.notBefore, reason: held.reason }),
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
export async function succeededAmong(trx: Kysely<Database>, dialect: SqlDialectName, runId: number, taskIds: number[], locking = false): Promise<Set<number>> {
  const out = new Set<number>();
  const state = dialect === 'sqlite' ? sql<string>`+state` : sql<string>`state`;
  for (const ids of chunks(taskIds)) {
    const q = trx.selectFrom('task_instance').select('task_id').where('run_id', '=', runId).where('task_id', 'in', ids).where(state, '=', 'SUCCESS');
    const rows = await (locking && dialect === 'mysql' ? q.modifyEnd(sql`lock in share mode`) : q).execute();
    for (const r of rows) out.add(r.task_id);
  }
  return out;
}

async function runRecord(trx: Trx, id: number): Promise<RunRecord> {
  return (await getRun(trx, id)) as RunRecord;
}

/**
 * The workflow's oldest QUEUED run starts (overlap policy `queue`) once none of its runs is
 * RUNNING; with its roots, in the caller's transaction.
 */
async function startQueued(trx: Trx, dialect: SqlDialectName, workflowId: number, roots: Settlement['queuedRoots'], now: number, result: TransitionResult): Promise<void> {
  const running = await trx.selectFrom('workflow_run').select('id').where('workflow_id', '=', workflowId).where('state', '=', 'RUNNING').limit(1).executeTakeFirst();
  if (running) return;
  const q = trx.selectFrom('workflow_run').select(['id', 'workflow_id', 'logical_time']).where('workflow_id', '=', workflowId).where('state', '=', 'QUEUED').orderBy('id').limit(1);
  const next = dialect === 'mysql' ? await q.forUpdate().executeTakeFirst() : await q.executeTakeFirst();
  if (!next) return;
  await trx.updateTable('workflow_run').set({ state: 'RUNNING', started_at: now }).where('id', '=', next.id).where('state', '=', 'QUEUED').execute();
  result.runs.push(await runRecord(trx, next.id));
  result.created.push(...(await insertDrafts(trx, dialect, next, roots(), now)));
}

export async function startRun(db: Kysely<Database>, dialect: SqlDialectName, start: StartRun): Promise<{ run: RunRecord; created: InstanceRecord[] } | undefined> {
  const { run, roots, overlap } = start;
  return transact(db, async (trx) => {
    let state: RunState = run.state;
    let reason = run.reason;
    // The workflow's row orders the triggers of one workflow (the overlap check and the insert
    // are one step) against its removal: a run is never created for a workflow just removed.
    const wf = trx.selectFrom('workflow').select(['id', 'name']).where('id', '=', run.workflowId);
    const workflow = dialect === 'mysql' ? await wf.forUpdate().executeTakeFirst() : await wf.executeTakeFirst();
    if (!workflow) throw new AxError('not_found', `workflow ${run.workflowId} no longer exists`);
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
        reason = `run #${active.id} was still ${active.state.toLowerCase()} (overlap policy: ${overlap})`;
      }
    }
    const id = await insertRun(trx, { ...run, state, reason });
    if (id === undefined) return undefined;
    // A cron fire and its schedule's last_fire_at go in together: a fire that ran must not still
    // count as missed (the misfire policy would act on it). Never backwards.
    if (run.scheduleId !== undefined && run.trigger === 'cron') {
      await trx.updateTable('schedule_plan').set({ last_fire_at: run.logicalTime }).where('id', '=', run.scheduleId).where('last_fire_at', '<', run.logicalTime).execute();
    }
    const created = state === 'RUNNING' && roots.length > 0 ? await insertDrafts(trx, dialect, { id, workflow_id: run.workflowId, logical_time: run.logicalTime }, roots, run.createdAt) : [];
    return { run: await runRecord(trx, id), created };
  }, dialect);
}

export async function finishInstance(db: Kysely<Database>, dialect: SqlDialectName, finish: Finish, now: number): Promise<TransitionResult> {
  const shared = dialect === 'mysql';
  return transact(db, async (trx) => {
    const result: TransitionResult = { done: false, created: [], ended: [], runs: [] };
    const run = await lockRun(trx, dialect, finish.runId, 'share');
    const { guard } = finish;
    if (!(await guardedInstanceUpdate(trx, { ...instancePatchColumns(finish.patch), state: finish.to, handled: 1 }, finish.id, guard))) return result;
    result.done = true;
    if (run) await followAcrossWorkflows(trx, dialect, finish, run, now, result);
    if (!run || run.state !== 'RUNNING') return result;

    const { followUps } = finish;
    const wholeGraph = run.only_task === null;
    const drafts: InstanceDraft[] = [];
    if (followUps.retry) drafts.push(followUps.retry);
    if (wholeGraph && followUps.upstreamFailed) drafts.push(...followUps.upstreamFailed);
    if (wholeGraph && followUps.advance?.length) {
      const needs = [...new Set(followUps.advance.flatMap((a) => a.needs))];
      const done = needs.length > 0 ? await succeededAmong(trx, dialect, run.id, needs, shared) : new Set<number>();
      for (const a of followUps.advance) if (a.needs.every((n) => done.has(n))) drafts.push(a.draft);
    }
    result.created.push(...(await insertDrafts(trx, dialect, run, drafts, now)));
    // Tasks of this run that will not run now: so are those of other workflows waiting for them.
    for (const marker of result.created) {
      if (marker.state !== 'UPSTREAM_FAILED' || !finish.asUpstream) continue;
      (result.failedWaiters ??= []).push(...(await waitersOf(trx, dialect, finish.asUpstream.workflow, marker.taskName, Number(run.logical_time))));
    }
    if (result.created.some((i) => i.state === 'WAITING')) return result;
    if (shared) {
      // Another active instance nobody is finishing right now: the run goes on (its finish looks again).
      const untouched = await memoQuery(trx, 'pending-skip-locked', (d) => pendingQuery(d, slot(0)).modifyEnd(sql`lock in share mode skip locked`), [run.id]);
      if (untouched.rows.length > 0) return result;
      await lockRun(trx, dialect, run.id, 'update');
    }
    await settle(trx, dialect, run, finish.settlement, now, result);
    return result;
  }, dialect);
}

/**
 * The finish's part across workflows (issue 13): a waiter that ends (cancelled, failed by its
 * wait) drops its waits; the upstream's SUCCESS releases the waiters it was the last wait of, in
 * this step; its failure for good names its waiters for the caller to end UPSTREAM_FAILED.
 */
async function followAcrossWorkflows(trx: Trx, dialect: SqlDialectName, finish: Finish, run: Selectable<WorkflowRunTable>, now: number, result: TransitionResult): Promise<void> {
  if (finish.guard.from.includes('WAITING')) await dropWaits(trx, 'instance_id', finish.id);
  const up = finish.asUpstream;
  if (!up) return;
  if (finish.to === 'SUCCESS') (result.released ??= []).push(...(await releaseWaiters(trx, dialect, up.workflow, up.task, Number(run.logical_time), now)));
  else if (!finish.followUps.retry) (result.failedWaiters ??= []).push(...(await waitersOf(trx, dialect, up.workflow, up.task, Number(run.logical_time))));
}

/** A run's end as other workflows' whole-run waits see it: its SUCCESS releases them, its failure names them. */
async function settleAcrossWorkflows(trx: Trx, dialect: SqlDialectName, run: Selectable<WorkflowRunTable>, state: RunState, now: number, result: TransitionResult): Promise<void> {
  const q = trx.selectFrom('workflow').select('name').where('id', '=', run.workflow_id);
  const wf = await (dialect === 'mysql' ? q.modifyEnd(sql`lock in share mode`) : q).executeTakeFirst();
  if (!wf) return;
  const at = Number(run.logical_time);
  if (state === 'SUCCESS') (result.released ??= []).push(...(await releaseWaiters(trx, dialect, wf.name, null, at, now)));
  else (result.failedWaiters ??= []).push(...(await waitersOf(trx, dialect, wf.name, null, at)));
}

/** A cancelled run will not do what other workflows still wait for from it: they are named (issue 13). */
async function cancelAcrossWorkflows(trx: Trx, dialect: SqlDialectName, run: Selectable<WorkflowRunTable>, result: TransitionResult): Promise<void> {
  const q = trx.selectFrom('workflow').select('name').where('id', '=', run.workflow_id);
  const wf = await (dialect === 'mysql' ? q.modifyEnd(sql`lock in share mode`) : q).executeTakeFirst();
  if (!wf) return;
  const at = Number(run.logical_time);
  const waiters = run.only_task === null ? await waitersOfRun(trx, dialect, wf.name, at) : await waitersOf(trx, dialect, wf.name, run.only_task, at);
  if (waiters.length > 0) (result.failedWaiters ??= []).push(...waiters);
}

function pendingQuery(trx: Kysely<Database>, runId: number) {
  return trx.selectFrom('task_instance').select('id').where('run_id', '=', runId).where('state', 'in', ACTIVE).limit(1);
}

export async function settleRun(db: Kysely<Database>, dialect: SqlDialectName, runId: number, settlement: Settlement, now: number): Promise<TransitionResult> {
  return transact(db, async (trx) => {
    const result: TransitionResult = { done: false, created: [], ended: [], runs: [] };
    const run = await lockRun(trx, dialect, runId);
    if (run?.state !== 'RUNNING') return result;
    await settle(trx, dialect, run, settlement, now, result);
    result.done = result.runs.length > 0;
    return result;
  }, dialect);
}

/** Ends the locked RUNNING run if nothing of it is pending, then starts the next queued one. */
async function settle(
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
    .where('state', '=', 'SUCCESS')
    .executeTakeFirstOrThrow();
  const needed = run.only_task === null ? taskCount : 1;
  const state: RunState = Number(succeeded.n) >= needed && needed > 0 ? 'SUCCESS' : 'FAILED';
  await trx.updateTable('workflow_run').set({ state, finished_at: now }).where('id', '=', run.id).where('state', '=', 'RUNNING').execute();
  result.runs.push(await runRecord(trx, run.id));
  if (run.only_task === null) await settleAcrossWorkflows(trx, dialect, run, state, now, result);
  await startQueued(trx, dialect, run.workflow_id, queuedRoots, now, result);
}

export async function cancelRun(db: Kysely<Database>, dialect: SqlDialectName, runId: number, reason: string, queuedRoots: Settlement['queuedRoots'], now: number): Promise<TransitionResult> {
  return transact(db, async (trx) => {
    const result: TransitionResult = { done: false, created: [], ended: [], runs: [] };
    const run = await lockRun(trx, dialect, runId);
    if (!run || (run.state !== 'RUNNING' && run.state !== 'QUEUED')) return result;
    await trx.updateTable('workflow_run').set({ state: 'CANCELLED', reason, finished_at: now }).where('id', '=', runId).execute();
    result.done = true;
    result.runs.push(await runRecord(trx, runId));
    await dropWaits(trx, 'run_id', runId);
    const activeQuery = trx.selectFrom('task_instance').selectAll().where('run_id', '=', runId).where('state', 'in', ACTIVE).orderBy('id');
    const active = dialect === 'mysql' ? await activeQuery.forUpdate().execute() : await activeQuery.execute();
    for (const ids of chunks(active.map((r) => r.id))) {
      await trx.updateTable('task_instance').set({ state: 'CANCELLED', reason, finished_at: now, handled: 1 }).where('id', 'in', ids).execute();
    }
    // Reported as what they are now, so followers and their workers see CANCELLED.
    result.ended.push(...active.map((r) => instanceFromRow({ ...r, state: 'CANCELLED', reason, finished_at: now, handled: 1 })));
    await cancelAcrossWorkflows(trx, dialect, run, result);
    await startQueued(trx, dialect, run.workflow_id, queuedRoots, now, result);
    return result;
  }, dialect);
}

// finish-with-follow-ups, one transaction.
// In: the instance, its guard and final state with the outcome's fields; its follow-ups as the
// caller worked them out from the graph (a retry, the downstream to advance once its other
// upstreams succeeded, or the downstream failed); the run's settlement; the task as other
// workflows name it.
// With rules (followUps.decide), each downstream task is decided by its run_if rule, a skip or a
// failure cascading through the graph (decide-downstream.ts), in this same transaction.
// Out: done false when the guard refused (nothing written); else the instances created, the
// runs moved (this one ended, a queued one started), the waiters in other workflows its SUCCESS
// released or its failure for good leaves without hope.
// Locks (MySQL): the run's row SHARED, so instances of one run finish side by side (under an
// exclusive lock a team's throughput was one run-row lock hold per task), and every read that
// decides something is a locking read (no plain read comes first, so no snapshot is taken early):
// - a downstream task is ready when all its upstreams succeeded: read locking, so two upstreams
//   finishing together wait for each other (InnoDB ends the deadlock by rolling one back, and it
//   runs again and sees the other's SUCCESS): the join is made exactly once;
// - the run ends when nothing of it is pending: first a look that skips rows being changed by
//   others (`SKIP LOCKED`): an active row nobody is changing means the run goes on, and that
//   row's own finish will look again. Only when none is left does the finish take the run's row
//   exclusively (waiting for every other finish of the run to commit) and look again, plainly.
//   Two last finishes both asking deadlock; the one rolled back runs again after the other.
import type { Kysely, Selectable } from 'kysely';
import type { Finish, InstanceDraft, TransitionResult } from '../../ports/store.ts';
import { guardedInstanceUpdate, outcomeColumns } from './instance-writes.ts';
import { decideDownstream } from './decide-downstream.ts';
import { insertDrafts, pendingQuery, succeededAmong } from './instance-drafts.ts';
import { memoQuery, slot } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import type { Database, WorkflowRunTable } from './schema.ts';
import { settle } from './settle-run.ts';
import { lockRun, locksRows, shareLock, transact, type Trx } from './transaction.ts';
import { dropWaits, releaseWaiters, waitersOf } from './upstream-waits.ts';

export async function finishInstance(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  finish: Finish,
  now: number,
): Promise<TransitionResult> {
  const shared = locksRows(dialect);
  return transact(
    db,
    async (trx) => {
      const result: TransitionResult = { done: false, created: [], ended: [], runs: [] };
      const run = await lockRun(trx, dialect, finish.runId, 'share');
      if (
        !(await guardedInstanceUpdate(
          trx,
          {
            ...outcomeColumns(finish.outcome),
            state: finish.to,
            handled: 1,
            ...(finish.outputs && { outputs_json: JSON.stringify(finish.outputs) }),
          },
          finish.id,
          finish.guard,
        ))
      )
        return result;
      result.done = true;
      if (run) await followAcrossWorkflows(trx, dialect, finish, run, now, result);
      if (!run || run.state !== 'RUNNING') return result;

      const { followUps } = finish;
      // a run of one task advances only with its downstream (downstream-scope.ts)
      const wholeGraph = run.only_task === null || Number(run.with_downstream) === 1;
      const drafts: InstanceDraft[] = [];
      if (followUps.retry) drafts.push(followUps.retry);
      if (wholeGraph && followUps.upstreamFailed) drafts.push(...followUps.upstreamFailed);
      if (wholeGraph && followUps.advance?.length) {
        const needs = [...new Set(followUps.advance.flatMap((a) => a.needs))];
        const done = needs.length > 0 ? await succeededAmong(trx, dialect, run.id, needs, shared) : new Set<number>();
        for (const a of followUps.advance) if (a.needs.every((n) => done.has(n))) drafts.push(a.draft);
      }
      result.created.push(...(await insertDrafts(trx, dialect, run, drafts, now)));
      if (wholeGraph && followUps.decide) {
        const ended = {
          state: finish.to,
          reason: finish.outcome.reason ?? undefined,
          reasonCode: finish.outcome.reasonCode ?? undefined,
        };
        result.created.push(...(await decideDownstream(trx, dialect, run, ended, followUps.decide, now)));
      }
      // Tasks of this run that will not run now: so are those of other workflows waiting for them.
      for (const marker of result.created) {
        if (marker.state !== 'UPSTREAM_FAILED' || !finish.asUpstream) continue;
        (result.failedWaiters ??= []).push(
          ...(await waitersOf(trx, dialect, finish.asUpstream.workflow, marker.taskName, Number(run.logical_time))),
        );
      }
      if (result.created.some((i) => i.state === 'WAITING')) return result;
      if (shared) {
        // Another active instance nobody is finishing right now: the run goes on (its finish looks again).
        const untouched = await memoQuery(
          trx,
          'pending-skip-locked',
          (d) => pendingQuery(d, slot(0)).modifyEnd(shareLock(dialect, true)),
          [run.id],
        );
        if (untouched.rows.length > 0) return result;
        await lockRun(trx, dialect, run.id, 'update');
      }
      await settle(trx, dialect, run, finish.settlement, now, result);
      return result;
    },
    dialect,
    { group: true },
  );
}

/**
 * The finish's part across workflows: a waiter that ends (cancelled, failed by its wait) drops
 * its waits; the upstream's SUCCESS releases the waiters it was the last wait of, in this step;
 * its failure for good names its waiters for the caller to end UPSTREAM_FAILED.
 */
async function followAcrossWorkflows(
  trx: Trx,
  dialect: SqlDialectName,
  finish: Finish,
  run: Selectable<WorkflowRunTable>,
  now: number,
  result: TransitionResult,
): Promise<void> {
  if (finish.guard.from.includes('WAITING')) await dropWaits(trx, 'instance_id', finish.id);
  const up = finish.asUpstream;
  if (!up) return;
  if (finish.to === 'SUCCESS')
    (result.released ??= []).push(
      ...(await releaseWaiters(trx, dialect, up.workflow, up.task, Number(run.logical_time), now)),
    );
  // A skipped task neither releases nor fails those waiting for it: they wait for a run that does it.
  else if (!finish.followUps.retry && finish.to !== 'SKIPPED')
    (result.failedWaiters ??= []).push(
      ...(await waitersOf(trx, dialect, up.workflow, up.task, Number(run.logical_time))),
    );
}

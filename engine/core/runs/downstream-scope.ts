// A manual run of one task with its downstream (`ax run W --task T --downstream`): the run is T
// and every task downstream of it. It starts with T alone (RunRecord.onlyTask stays T); a success
// advances the downstream as in a whole run, except that a task waits only for its upstreams
// inside the run: one outside it (not downstream of T) is not part of this run and never comes.
// A failure or a skip decides its downstream by their trigger rules as usual; the run is SUCCESS
// when every task it reached succeeded or was skipped (settle-run.ts).
import type { FollowUps } from '../../ports/store.ts';
import { downstreamClosure } from '../model/dag.ts';
import type { CachedWorkflow } from '../workflow/workflow-cache.ts';

/** the task ids of a run from each start task, per loaded graph */
const scopes = new WeakMap<CachedWorkflow, Map<number, Set<number>>>();

/** T and everything downstream of it, by task id. */
export function downstreamScope(wf: CachedWorkflow, startTaskId: number): Set<number> {
  let byStart = scopes.get(wf);
  if (!byStart) scopes.set(wf, (byStart = new Map()));
  let scope = byStart.get(startTaskId);
  if (!scope)
    byStart.set(startTaskId, (scope = new Set([startTaskId, ...downstreamClosure(startTaskId, wf.downstream)])));
  return scope;
}

/**
 * The follow-ups within the run's scope: each advance waits only for upstreams inside it, and the
 * trigger rules' decisions (decide-downstream.ts) neither wait for an upstream outside it nor
 * decide a task outside it.
 */
export function withinScope(followUps: FollowUps, scope: ReadonlySet<number>): FollowUps {
  const scoped: FollowUps = { ...followUps };
  if (followUps.advance)
    scoped.advance = followUps.advance.map((a) => ({ ...a, needs: a.needs.filter((id) => scope.has(id)) }));
  if (followUps.decide) scoped.decide = { ...followUps.decide, scope };
  return scoped;
}

/** Whether a finish's follow-ups depend on the run's scope: a join (a downstream with other upstreams), or any decision by rule. */
export const needsScope = (followUps: FollowUps): boolean =>
  followUps.decide !== undefined || (followUps.advance?.some((a) => a.needs.length > 0) ?? false);

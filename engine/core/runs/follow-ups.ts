// What a run's instances are made of and lead to: the draft of a task's next instance (held for
// its upstreams in other workflows on a first attempt), and what an instance ending leads to (a
// retry, a fail-over, or its downstream decided by their trigger rules). Pure decisions.
import type { InstanceRecord, InstanceState } from '../../api/types.ts';
import {
  HELD_FOR_UPSTREAM,
  type Finish,
  type FollowUps,
  type InstanceDraft,
  type RuleGraph,
  type RuleNode,
  type TaskDefinition,
} from '../../ports/store.ts';
import { retryDelay } from '../model/backoff.ts';
import { formatDuration } from '../model/duration.ts';
import type { CachedWorkflow } from '../workflow/workflow-cache.ts';

const FAILED_STATES: InstanceState[] = ['FAILED', 'TIMEOUT'];

/** A finish's follow-ups, with the retry line to say in the failed attempt's log and the fail-over cap alert. */
export type FollowUpPlan = { followUps: FollowUps; announce?: (attempt: number) => string; capped?: string };

/**
 * A task's instance to create. A first attempt of a task with upstreams in other workflows is
 * created held, waiting for them by the run's logical time in the workflow's zone (UTC without
 * a schedule); retries do not wait again.
 */
export function instanceDraft(
  task: TaskDefinition,
  attempt: number,
  notBefore: number,
  failovers = 0,
  wf?: CachedWorkflow,
): InstanceDraft {
  const draft: InstanceDraft = {
    taskId: task.id,
    taskName: task.name,
    attempt,
    state: 'WAITING',
    notBefore,
    failovers,
  };
  if (attempt !== 1 || !task.crossUpstream?.length || !wf) return draft;
  const upstreams = {
    crossUpstream: task.crossUpstream,
    timezone: wf.graph.schedule?.timezone ?? 'UTC',
    waitTimeoutMs: task.waitTimeoutMs,
  };
  return { ...draft, notBefore: HELD_FOR_UPSTREAM, upstreams };
}

/**
 * What an instance ending in `to` leads to. A failed attempt gets its next one if it has one: a
 * fail-over (the worker died, not the task) runs again at once without spending a retry, up to
 * the cap; past it, it counts as a failed try, with an alert. `failovers` counts the free
 * fail-overs before an attempt, so the tries spent so far are the attempts that were not free.
 * An end for good (a success, a skip, a failure with no next attempt, a cancel) has its
 * downstream decided by their run_if rules, in the store step (decide-downstream.ts).
 */
export function planFollowUps(
  inst: InstanceRecord,
  to: Finish['to'],
  failedOver: boolean,
  wf: CachedWorkflow,
  task: TaskDefinition,
  now: number,
  final: boolean,
  maxFailovers: number,
): FollowUpPlan {
  const decide = { taskId: task.id, graph: ruleGraph(wf) };
  if (to === 'SUCCESS' || to === 'SKIPPED') return { followUps: { decide } };
  let capped: string | undefined;
  if (FAILED_STATES.includes(to) && !final) {
    const free = inst.failovers ?? 0;
    if (failedOver) {
      if (free < maxFailovers) return { followUps: { retry: instanceDraft(task, inst.attempt + 1, now, free + 1) } };
      capped = `task "${task.name}" of run #${inst.runId} failed over more than ${maxFailovers} times (the cap): this fail-over counts as a failed try`;
    }
    const tries = inst.attempt - free;
    if (tries <= task.retries) {
      const delay = retryDelay(task.retryBackoff, tries);
      // A fail-over is not announced (not even one past the cap), as its lost worker may still be writing.
      const announce = failedOver
        ? undefined
        : (attempt: number) =>
            `retrying in ${formatDuration(delay)} (attempt ${attempt} of ${task.retries + 1 + free})`;
      return { followUps: { retry: instanceDraft(task, inst.attempt + 1, now + delay, free) }, announce, capped };
    }
  }
  return { followUps: { decide }, capped };
}

const ruleGraphs = new WeakMap<CachedWorkflow, RuleGraph>();

/**
 * The workflow's tasks as a store step decides their trigger rules: built a node at a time as
 * steps reach them, kept with the workflow's version (a step reaches the downstream of one task,
 * not the whole graph).
 */
export function ruleGraph(wf: CachedWorkflow): RuleGraph {
  let graph = ruleGraphs.get(wf);
  if (graph) return graph;
  const nodes = new Map<number, RuleNode>();
  graph = {
    get(id: number): RuleNode | undefined {
      let node = nodes.get(id);
      const task = wf.tasks.get(id);
      if (node || !task) return node;
      node = {
        name: task.name,
        runIf: task.runIf ?? 'all_success',
        upstream: wf.upstream.get(id) ?? [],
        downstream: wf.downstream.get(id) ?? [],
        draft: instanceDraft(task, 1, 0, 0, wf),
      };
      nodes.set(id, node);
      return node;
    },
  };
  ruleGraphs.set(wf, graph);
  return graph;
}

// The Store port's transition shapes: what a compound step is given (a new run, an
// instance draft with its waits on other workflows, its follow-ups and the run's settlement, the
// guard of every instance write, a claim's candidates) and what it reports back. The Store
// interface itself is in store.ts, which re-exports these.
import type { ReasonCode } from '../api/reason-code.ts';
import type { CrossUpstream, InstanceRecord, InstanceState, RunIfRule, RunRecord, RunState } from '../api/types.ts';

/**
 * One upstream in another workflow an instance waits for: a SUCCESS of `task` (null: the whole
 * run) of `workflow` in a run whose logical time is in the window releases it. `latestAtOrBefore`:
 * the window starts at the upstream's latest run at or before that time (any run when none) and
 * has no end.
 */
export interface UpstreamWaitDraft {
  workflow: string;
  task: string | null;
  window: { from: number; to: number } | { latestAtOrBefore: number };
  /** what it waits for, as the reason says: `orders-etl.load of 2026-11-30` */
  label: string;
  /** past this, the wait fails (wait_timeout) */
  deadline: number;
}

/** A wait past its deadline, or a waiter whose upstream failed for good: the waiter and why. */
export interface WaiterNotice {
  instanceId: number;
  label: string;
}

/** A run to create: a RunRecord's own fields (with scheduleId, (scheduleId, logicalTime) is unique: a cron fire makes at most one run). */
export type NewRun = Pick<
  RunRecord,
  | 'workflowId'
  | 'state'
  | 'trigger'
  | 'triggeredBy'
  | 'logicalTime'
  | 'scheduleId'
  | 'onlyTask'
  | 'withDownstream'
  | 'eventPayload'
  | 'params'
  | 'reason'
  | 'reasonCode'
  | 'createdAt'
  | 'parentRunId'
  | 'parentInstanceId'
  | 'backfillId'
>;

export interface NewInstance {
  runId: number;
  workflowId: number;
  taskId: number;
  taskName: string;
  attempt: number;
  state: InstanceState;
  notBefore: number;
  reason?: string;
  reasonCode?: ReasonCode;
  createdAt: number;
  /** instances created already final (UPSTREAM_FAILED) are created handled */
  handled?: boolean;
  /** fail-overs of the task in this run before this attempt */
  failovers?: number;
}

/** An instance a transition creates in its run: the run and workflow are the transition's. */
export interface InstanceDraft {
  taskId: number;
  taskName: string;
  attempt: number;
  state: 'WAITING' | 'UPSTREAM_FAILED' | 'SKIPPED';
  notBefore: number;
  reason?: string;
  reasonCode?: ReasonCode;
  /** fail-overs of the task in this run before this attempt */
  failovers?: number;
  /**
   * its upstreams in other workflows: created WAITING and held (notBefore HELD_FOR_UPSTREAM, its
   * own notBefore unread), in the same step, for those not yet succeeded in the windows its run's
   * logical time gives, and released at once if they all have
   */
  upstreams?: UpstreamRefs;
}

/** A task's upstreams in other workflows, as data: the step works out each wait from its run's logical time. */
export interface UpstreamRefs {
  crossUpstream: CrossUpstream[];
  /** the zone the windows are computed in: the workflow's schedule's, UTC without one */
  timezone: string;
  /** how long after the step its waits fail (wait_timeout); the default when absent */
  waitTimeoutMs?: number;
}

/**
 * What a finished instance leads to in its run, worked out by the caller from the graph and the
 * attempt before the write; the store carries it out only while the run is RUNNING. A run of one
 * task (`onlyTask`) neither advances nor fails downstream: the store skips `advance` and
 * `upstreamFailed` for it.
 */
export interface FollowUps {
  /** SUCCESS: each downstream task, created once every task in `needs` (its other upstreams) has a SUCCESS in the run */
  advance?: { draft: InstanceDraft; needs: number[] }[];
  /** a failed attempt's next one (a retry, or a fail-over's free re-run) */
  retry?: InstanceDraft;
  /** a failure with no next attempt: the whole downstream, UPSTREAM_FAILED */
  upstreamFailed?: InstanceDraft[];
  /**
   * an end for good (no next attempt): each downstream task of `taskId` (the finished one) decided
   * by its run_if rule from its upstreams' latest states in the run (core/model/trigger-rule.ts):
   * created WAITING to run, or as a SKIPPED / UPSTREAM_FAILED marker whose own downstream is then
   * decided the same way, in the same step; one whose rule cannot tell yet is left for a later end
   */
  decide?: {
    taskId: number;
    graph: RuleGraph;
    /**
     * a run of one task with its downstream: the tasks of the run; an upstream outside it is
     * not part of the run and is not waited for (a rule judges the upstreams inside), and a task
     * outside it is not decided. Absent: the whole workflow.
     */
    scope?: ReadonlySet<number>;
  };
}

/** A task as its trigger rule is decided in a store step: its rule, its edges in the workflow, its first attempt. */
export interface RuleNode {
  name: string;
  runIf: RunIfRule;
  upstream: readonly number[];
  downstream: readonly number[];
  /** its first attempt as created to run (WAITING; the step sets notBefore) */
  draft: InstanceDraft;
}

/** A workflow's tasks by id, as trigger rules are decided (a pure look-up, built once per workflow version). */
export type RuleGraph = Pick<ReadonlyMap<number, RuleNode>, 'get'>;

/** How a run ends once nothing of it is pending, and what starts after it. */
export interface Settlement {
  /** tasks the run must see succeed to end SUCCESS (its workflow's task count; 1 for a one-task run) */
  taskCount: number;
  /**
   * the roots the oldest QUEUED run of the workflow starts with when this one ends (overlap
   * policy `queue`), due at the step's time (their notBefore is not read)
   */
  queuedRoots: InstanceDraft[];
}

/** finish-with-follow-ups: an instance's final state, what it leads to, and the run's settlement, as one step. */
export interface Finish {
  id: number;
  runId: number;
  guard: InstanceGuard;
  to: Extract<InstanceState, 'SUCCESS' | 'FAILED' | 'TIMEOUT' | 'CANCELLED' | 'UPSTREAM_FAILED' | 'SKIPPED'>;
  outcome: Outcome;
  followUps: FollowUps;
  settlement: Settlement;
  /**
   * the finished task as other workflows name it: its SUCCESS releases their instances waiting
   * for it (in this step); its failure for good (no retry) is reported as `failedWaiters`
   */
  asUpstream?: { workflow: string; task: string };
  /** what the attempt wrote to $AX_OUTPUT (parsed, limited, masked), stored with its outcome */
  outputs?: Record<string, string>;
}

/** What a transition did: everything the caller has to tell followers about. */
export interface TransitionResult {
  /** false: the guard refused the change and nothing was written */
  done: boolean;
  /** instances it created (follow-ups; a started run's roots) */
  created: InstanceRecord[];
  /** instances it ended besides the one finished (a cancelled run's), as they are now */
  ended: InstanceRecord[];
  /** runs it moved (ended, cancelled, or a queued one started), with their new state */
  runs: RunRecord[];
  /** instances of other workflows whose last wait this step released: due now */
  released?: InstanceRecord[];
  /** instances of other workflows waiting for what this step failed for good: the caller ends them UPSTREAM_FAILED */
  failedWaiters?: WaiterNotice[];
}

/** start-run: a new run and, when it starts RUNNING, its roots. */
export interface StartRun {
  run: NewRun;
  roots: InstanceDraft[];
  /**
   * The overlap policy to apply (`skip`, `queue`) to a run that would start RUNNING, or none:
   * with another run of the workflow RUNNING or QUEUED, the new one is created SKIPPED or QUEUED
   * instead (decided under the workflow's lock, so two triggers racing cannot both start).
   */
  overlap?: 'skip' | 'queue';
}

/**
 * rerun-task: a task's new attempt in its run, with the downstream's UPSTREAM_FAILED markers
 * removed, and the run RUNNING again if it had ended.
 */
export interface RerunTask {
  runId: number;
  taskId: number;
  /** the task's latest attempt as the caller judged it: refused unless it still is the latest, in one of `from` */
  latest: { attempt: number; from: InstanceState[] };
  /** the downstream's UPSTREAM_FAILED and SKIPPED instances (decided by what the task did; decided again) */
  markers: number[];
  /** the new attempt */
  draft: InstanceDraft;
  /** the run's reason while it runs again (written only when it had ended) */
  reason: string;
  reasonCode?: ReasonCode;
}

/**
 * rerun-failed: the failed tasks of a run that has ended run again in it, with their downstream.
 * `roots` get a new attempt each (`drafts`); the rest of the downstream is `cleared` (its
 * instances and their logs removed) and decided again as the roots finish.
 */
export interface RerunFailed {
  runId: number;
  /** the run's final state as the caller judged it: refused unless it still is */
  runState: RunState;
  /** each root task's latest attempt as judged: refused unless each still is the latest, in that state */
  roots: { taskId: number; attempt: number; state: InstanceState }[];
  /** instances of the downstream to remove, with their logs */
  cleared: number[];
  /** the roots' new attempts */
  drafts: InstanceDraft[];
  /** the run's reason while it runs again */
  reason: string;
  reasonCode?: ReasonCode;
}

/** The compare-and-set guard of every instance write (its fence). */
export interface InstanceGuard {
  from: InstanceState[];
  attempt: number;
  /** when given, the instance must be owned by this worker */
  workerId?: string;
}

/** An instance a dispatcher routed to a worker: its id and the attempt it saw (the fence). */
export interface ClaimCandidate {
  id: number;
  attempt: number;
}

/** A finished instance's outcome, written with its final state. */
export interface Outcome {
  /** null clears it: a "waiting: …" reason must not outlive the wait */
  reason?: string | null;
  /** the reason's code, written with the reason (none given: the stored code is cleared) */
  reasonCode?: ReasonCode | null;
  exitCode?: number;
  finishedAt?: number;
  /** it ended by a fail-over (its worker was lost), not by the task itself */
  failedOver?: boolean;
}

/** start-external-run: a monitor's run reported from outside, or a fire nobody reported (design.md §13). */
export interface ExternalRunStart {
  workflowId: number;
  /** the instance's name: the monitor's */
  taskName: string;
  /** who reported it (`ax ping on HOST`, `webhook from ADDRESS`), or `monitor` for a miss */
  triggeredBy: string;
  startedAt: number;
  /** RUNNING: a start; SUCCESS or FAILED: started and ended at once (finishedAt, else startedAt) */
  state: 'RUNNING' | 'SUCCESS' | 'FAILED';
  finishedAt?: number;
  exitCode?: number;
  reason?: string;
  reasonCode?: ReasonCode;
  logicalTime: number;
  /** a missed fire's schedule: with logicalTime unique, so the miss is recorded once */
  scheduleId?: number;
}

/**
 * start-call: a `call:` task's instance starts its child run. The instance, WAITING at `attempt` in
 * its RUNNING run, becomes RUNNING with no worker (it runs no process) and names the child run,
 * which is created RUNNING with its roots (no overlap policy: a call is asked for, like a manual
 * run), naming the instance as its parent.
 */
export interface StartCall {
  instance: { id: number; runId: number; attempt: number };
  /** the child run: trigger `call`, parentRunId and parentInstanceId set */
  run: NewRun;
  roots: InstanceDraft[];
}

/** What start-call did: the calling instance as it is now, the child run and its roots. */
export interface CallStarted {
  instance: InstanceRecord;
  run: RunRecord;
  created: InstanceRecord[];
}

// Task instances: their reads, the single-instance writes (each a compare-and-set on state,
// attempt and owner), the claim of due instances, and the waits across workflows.
import type { ReasonCode } from '../api/reason-code.ts';
import type { InstanceLaunch, InstanceRecord, InstanceState } from '../api/types.ts';
import type { ClaimCandidate, InstanceGuard, NewInstance, WaiterNotice } from './store-transitions.ts';

/**
 * Whose outputs a task starting in a run gets: tasks of its run by name, and tasks of other
 * workflows with the window of logical times its waits matched (see UpstreamWaitDraft).
 */
export interface UpstreamOutputsQuery {
  runId: number;
  tasks: string[];
  cross: { workflow: string; task: string; window: { from: number; to: number } | { latestAtOrBefore: number } }[];
}

/** Upstream instances' outputs, only those that have some. */
export interface UpstreamOutputs {
  sameRun: { task: string; outputs: Record<string, string> }[];
  otherWorkflows: { workflow: string; task: string; outputs: Record<string, string> }[];
}

/** Task instances and their single-row writes. */
export interface InstanceStore {
  /** undefined when (runId, taskId, attempt) already exists */
  createInstance(instance: NewInstance): Promise<InstanceRecord | undefined>;
  getInstance(id: number): Promise<InstanceRecord | undefined>;
  listInstances(runId: number): Promise<InstanceRecord[]>;
  /**
   * The outputs of a starting task's upstreams: each of `tasks`' latest SUCCESS instance in the
   * run; for each cross reference, the SUCCESS instance of that task finished last among its
   * workflow's runs whose logical time is in the window (`latestAtOrBefore`: at or after the
   * workflow's latest run at or before that time, as the wait released it).
   */
  upstreamOutputs(query: UpstreamOutputsQuery): Promise<UpstreamOutputs>;
  instancesInStates(states: InstanceState[], limit?: number): Promise<InstanceRecord[]>;
  /**
   * WAITING instances whose notBefore has come, oldest first (notBefore, then id); with `after`,
   * only those that come after that one in this order (a keyset cursor for paging).
   */
  dueWaiting(now: number, limit: number, after?: { notBefore: number; id: number }): Promise<InstanceRecord[]>;
  /** Earliest notBefore among WAITING instances, for the dispatcher's next wake-up. */
  nextWaitingAt(): Promise<number | undefined>;
  /** its worker started it: DISPATCHED → RUNNING (started and first heartbeat at `startedAt`), guarded; false if refused */
  markRunning(id: number, guard: InstanceGuard, startedAt: number): Promise<boolean>;
  /**
   * the process group it runs as (undefined: only checks the guard still holds) and what it ran
   * (kept for getInstance, secrets masked by the caller); false if refused
   */
  recordPid(id: number, guard: InstanceGuard, pid: number | undefined, launch?: InstanceLaunch): Promise<boolean>;
  /** back to WAITING, never started (its worker refused it, was lost or restarted), with why; false if refused */
  requeueInstance(id: number, guard: InstanceGuard, reason: string, reasonCode?: ReasonCode): Promise<boolean>;
  /** a WAITING instance at `attempt` shows why it still waits (`waiting: …`); false if it moved on */
  setWaitingReason(id: number, attempt: number, reason: string, reasonCode?: ReasonCode): Promise<boolean>;
  /**
   * claim-due-instances: moves those candidates still WAITING at their attempt and due by `now`
   * to DISPATCHED for the worker (dispatchedAt now, reason cleared), oldest due first, but only
   * as many as the worker has free slots: its stored maxConcurrency minus its DISPATCHED +
   * RUNNING instances. One fenced step: callers racing never claim an instance twice nor take a
   * worker past its limit. A worker the store has no row for gets nothing. Returns the ids claimed.
   */
  claimDueInstances(workerId: string, candidates: ClaimCandidate[], now: number): Promise<number[]>;
  /** of ids, those a user cancelled (their worker must stop them) */
  cancelledAmong(ids: number[]): Promise<number[]>;
  /** final instances whose follow-ups were never created (by an engine of an earlier version; see checkRuns) */
  unhandledFinished(limit: number): Promise<InstanceRecord[]>;
  /** count of instances of the run that are WAITING, DISPATCHED or RUNNING, or final but unhandled */
  pendingInstanceCount(runId: number): Promise<number>;
  /** waits whose deadline has passed, one per waiter, oldest deadline first; the waits of instances no longer WAITING are deleted on the way */
  expiredWaits(now: number, limit: number): Promise<WaiterNotice[]>;
  /** DISPATCHED + RUNNING instances per worker: the dispatcher's view of each worker's load */
  activeCountByWorker(): Promise<Map<string, number>>;
  /**
   * Task heartbeats of one worker in one round trip; only rows still RUNNING and owned by the
   * worker are touched. Returns the ids the worker still owns: any other is no longer its own
   * (fenced off) and its process must be killed rather than reported.
   */
  recordTaskHeartbeats(
    workerId: string,
    beats: { instanceId: number; attempt: number; at: number }[],
  ): Promise<Set<number>>;
}

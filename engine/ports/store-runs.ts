// Runs, with the state machine's compound steps: each is one transaction in the store, all of it
// or none, so nothing has to find and repair half-done sequences after a crash.
import type { ReasonCode } from '../api/reason-code.ts';
import type { InstanceRecord, RunRecord } from '../api/types.ts';
import type {
  CallStarted,
  ExternalRunStart,
  Finish,
  InstanceDraft,
  RerunFailed,
  RerunTask,
  Settlement,
  StartCall,
  StartRun,
  TransitionResult,
} from './store-transitions.ts';
import type { RunFilter } from './store-types.ts';

/** Runs and the steps that move them. */
export interface RunStore {
  /**
   * start-run, one transaction: the run (with the overlap policy applied) and, when it starts
   * RUNNING, its root instances. undefined when a run for (scheduleId, logicalTime) already
   * exists. A cron run (trigger `cron` with a scheduleId) also moves its schedule's lastFireAt
   * to its logical time (never backwards).
   */
  startRun(start: StartRun): Promise<{ run: RunRecord; created: InstanceRecord[] } | undefined>;
  /**
   * finish-with-follow-ups, one transaction: the instance's final state (refused, with nothing
   * written, unless the guard holds), then, while its run is RUNNING, the follow-ups; then, if
   * nothing of the run is pending, the run's end and the start of the workflow's oldest QUEUED
   * run. Two callers racing on one run are serialised by the run's row.
   */
  finishInstance(finish: Finish, now: number): Promise<TransitionResult>;
  /**
   * cancel-run, one transaction: a RUNNING or QUEUED run and all its waiting, dispatched and
   * running instances end CANCELLED (their workers' outcome writes are then refused), and the
   * workflow's oldest QUEUED run starts with `queuedRoots`. done false if the run had ended.
   */
  cancelRun(
    runId: number,
    reason: string,
    queuedRoots: InstanceDraft[],
    now: number,
    reasonCode?: ReasonCode,
  ): Promise<TransitionResult>;
  /**
   * rerun-task, one transaction: a task that failed for good runs again in its run. The run
   * (when it had ended) is RUNNING again, the downstream's markers are removed, and the new
   * attempt is created (held for its upstreams in other workflows when it has some). done false,
   * with nothing written, when the task's latest attempt is no longer the one the caller judged.
   */
  rerunTask(rerun: RerunTask, now: number): Promise<TransitionResult>;
  /**
   * rerun-failed, one transaction: a run that has ended runs its failed tasks again. The run is
   * RUNNING again, the downstream's instances (with their logs) are removed, and each root's new
   * attempt is created. done false, with nothing written, when the run is no longer in the state
   * the caller judged or a root's latest attempt changed.
   */
  rerunFailed(rerun: RerunFailed, now: number): Promise<TransitionResult>;
  /**
   * add-instances, one transaction: a RUNNING run gets the first attempts it lacks (the start-up
   * check), each held for its upstreams in other workflows in the same step when it has some.
   * Returns those created: none when the run is not RUNNING, none for one that exists already.
   */
  addInstances(runId: number, drafts: InstanceDraft[], now: number): Promise<InstanceRecord[]>;
  /** settle-run, one transaction: a RUNNING run with nothing pending ends (see finishInstance), and the next queued run starts. */
  settleRun(runId: number, settlement: Settlement, now: number): Promise<TransitionResult>;
  /**
   * start-external-run, one transaction: a monitor's run with its one instance (task id
   * EXTERNAL_TASK_ID), created RUNNING or already ended. undefined when (scheduleId, logicalTime)
   * already has a run.
   */
  startExternalRun(start: ExternalRunStart): Promise<{ run: RunRecord; instance: InstanceRecord } | undefined>;
  /**
   * start-call, one transaction (see StartCall): undefined, with nothing written, when the
   * instance is no longer WAITING at that attempt or its run is no longer RUNNING.
   */
  startCall(call: StartCall, now: number): Promise<CallStarted | undefined>;
  /**
   * Child runs still RUNNING or QUEUED whose calling instance no longer waits for them (it was
   * cancelled or timed out, it waits for another child, or it is gone): a cancel of the parent
   * that did not reach them. Not one whose caller FAILED with it (a re-run of the child's task).
   */
  orphanedChildRuns(limit: number): Promise<number[]>;
  getRun(id: number): Promise<RunRecord | undefined>;
  listRuns(filter: RunFilter): Promise<RunRecord[]>;
}

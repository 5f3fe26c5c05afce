// Runs, with the state machine's compound steps: each is one transaction in the store, all of it
// or none, so nothing has to find and repair half-done sequences after a crash.
import type { InstanceRecord, RunRecord } from '../api/types.ts';
import type {
  ExternalRunStart,
  Finish,
  InstanceDraft,
  RerunTask,
  Settlement,
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
  cancelRun(runId: number, reason: string, queuedRoots: InstanceDraft[], now: number): Promise<TransitionResult>;
  /**
   * rerun-task, one transaction: a task that failed for good runs again in its run. The run
   * (when it had ended) is RUNNING again, the downstream's markers are removed, and the new
   * attempt is created (held for its upstreams in other workflows when it has some). done false,
   * with nothing written, when the task's latest attempt is no longer the one the caller judged.
   */
  rerunTask(rerun: RerunTask, now: number): Promise<TransitionResult>;
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
  getRun(id: number): Promise<RunRecord | undefined>;
  listRuns(filter: RunFilter): Promise<RunRecord[]>;
}

// Read models: what the UI, the CLI and the metrics read across runs and instances.
import type { RunWait } from '../api/run-views.ts';
import type { InstanceRecord, InstanceState, RunState } from '../api/types.ts';
import type { RunCountQuery, RunCountRow, TaskRuntime, TaskSearchRow } from './store-types.ts';

/** Reads across runs and instances for the UI, the CLI and the metrics. */
export interface ReadModelStore {
  /** read models for the UI */
  instancesOfRuns(runIds: number[]): Promise<InstanceRecord[]>;
  /**
   * Of these runs, each task's latest attempt when it ended FAILED, TIMEOUT or CANCELLED (a
   * failure that a later attempt retried is not listed), oldest first: why a run failed.
   */
  finalFailures(runIds: number[]): Promise<InstanceRecord[]>;
  instancesFinishedSince(states: InstanceState[], since: number, limit: number): Promise<InstanceRecord[]>;
  runsFinishedSince(since: number): Promise<Partial<Record<RunState, number>>>;
  /** runs created in [from, to) per quarter hour × workflow × state (the runs calendar) */
  runCounts(query: RunCountQuery): Promise<RunCountRow[]>;
  /** each (run, task) pair's latest attempt (a retry or a re-run is a later attempt), in id order */
  latestAttempts(keys: { runId: number; taskId: number }[]): Promise<InstanceRecord[]>;
  /**
   * RUNNING instances per worker id: the one source of "running on a worker" that the worker
   * listings, the drain's answer, the dashboard and the desktop tray read (a heartbeat's copy
   * is up to one interval old)
   */
  runningCountByWorker(): Promise<Map<string, number>>;
  /** `queuedOnly`: without the instances held for an upstream in another workflow (they wait for it, not for a worker) */
  countInstances(states: InstanceState[], opts?: { queuedOnly?: boolean }): Promise<number>;
  /** runs in these states, from the run state index (the metrics' running and queued runs) */
  countRuns(states: RunState[]): Promise<number>;
  /** workflows and tasks whose workflow name, task name or command contains query */
  searchTasks(query: string, limit: number): Promise<TaskSearchRow[]>;
  /** durations of the workflow's latest successful attempts, newest first */
  recentRuntimes(workflowId: number, limit: number): Promise<TaskRuntime[]>;
  /**
   * a run's waits for other workflows that still hold a WAITING instance, in wait order, each
   * with the other workflow's run in its window (the latest) and that run's attempt of the task
   */
  runWaits(runId: number): Promise<RunWait[]>;
  /** the workflow's last `limit` runs that ended with a duration, and their attempts that finished */
  finishedRunDurations(workflowId: number, limit: number): Promise<FinishedRunDurations>;
}

/** What duration trends are computed from (see core/duration-trends.ts). */
export interface FinishedRunDurations {
  /** oldest first */
  runs: { runId: number; state: RunState; startedAt: number; finishedAt: number }[];
  /** every attempt of those runs with a start and an end, in id order (a task's latest is its last) */
  attempts: { runId: number; task: string; startedAt: number; finishedAt: number }[];
}

// Read models for the views across runs: the runs list's filter and rows, the runs calendar, duration trends, and
// what a run's waiting tasks wait for in other workflows. Types only, shared with the renderer.
import type { ReasonCode } from './reason-code.ts';
import type { InstanceState, RunRecord, RunState, TriggerType } from './types.ts';

/** Which runs `listRuns` returns, newest first; every field narrows. */
export interface RunFilter {
  workflow?: string;
  states?: RunState[];
  /** workflows whose owner is this */
  owner?: string;
  triggers?: TriggerType[];
  /** created at or after (epoch ms) */
  from?: number;
  /** created before (epoch ms) */
  to?: number;
  limit?: number;
  beforeId?: number;
}

/** A run in a list; a FAILED one says which task failed and why, so one command answers. */
export interface RunListing extends RunRecord {
  /** the first task whose latest attempt ended FAILED, TIMEOUT or CANCELLED */
  failure?: {
    task: string;
    instanceId: number;
    attempt: number;
    state: InstanceState;
    reason?: string;
    reasonCode?: ReasonCode;
  };
}

/** One workflow's runs on one day (in the zone asked for), by how they ended. */
export interface CalendarCell {
  /** YYYY-MM-DD in the query's zone */
  day: string;
  workflow: string;
  success: number;
  failed: number;
  /** cancelled or skipped */
  other: number;
  /** queued or running now */
  active: number;
}

export interface RunCalendar {
  zone: string;
  from: number;
  to: number;
  cells: CalendarCell[];
}

export interface CalendarQuery {
  /** epoch ms, inclusive; runs are placed by the time they were created */
  from: number;
  /** epoch ms, exclusive */
  to: number;
  /** IANA zone the days are cut in (the UI's); the host's zone when absent */
  zone?: string;
  workflow?: string;
  owner?: string;
}

/** p50/p95 of a duration series (ms); undefined when there is nothing finished to measure */
export interface Percentiles {
  count: number;
  p50?: number;
  p95?: number;
}

export interface DurationTrends {
  workflow: string;
  /** the last N finished runs, oldest first: what the bar chart and the trend line draw */
  runs: { runId: number; state: RunState; startedAt: number; durationMs: number }[];
  total: Percentiles;
  /** per current task, over the same runs' latest attempts that finished */
  tasks: ({
    task: string;
    /** aligned with `runs`: the task's latest finished attempt's duration there, null if none (a sparkline) */
    durations?: (number | null)[];
  } & Percentiles)[];
}

/**
 * A task of a run held by an upstream in another workflow: what it waits for, the run of that
 * workflow that would release it (when there is one), and when the wait gives up.
 */
export interface RunWait {
  instanceId: number;
  task: string;
  /** WORKFLOW.TASK as written in the spec */
  upstream: string;
  upstreamWorkflow: string;
  upstreamTask: string;
  /** the logical time the upstream's run must have */
  logicalTime: number;
  /** the run of the upstream workflow at that logical time, if one exists yet */
  upstreamRunId?: number;
  upstreamRunState?: RunState;
  /** the upstream task's latest attempt in that run */
  upstreamInstanceId?: number;
  upstreamState?: InstanceState;
  /** epoch ms when the wait times out (the task then fails), if it has a timeout */
  deadline?: number;
  /** the engine's words for the wait (English; the UI translates reasonCode when set) */
  reason?: string;
  reasonCode?: ReasonCode;
}

export interface RunViewsApi {
  /** runs per day × workflow in [from, to), for the runs page's calendar */
  runCalendar(query: CalendarQuery): Promise<RunCalendar>;
  /** a workflow's last `lastRuns` (default 50, at most 500) finished runs and per-task p50/p95 */
  durationTrends(workflow: string, options?: { lastRuns?: number }): Promise<DurationTrends>;
  /** the cross-workflow waits of a run's tasks that are waiting now */
  runWaits(runId: number): Promise<RunWait[]>;
}

// The engine's public vocabulary: records as the CLI, the UI and the API see them.
// Times are epoch milliseconds (UTC) everywhere inside the engine; they become ISO 8601 only
// at the edges (CLI output, AX_LOGICAL_TIME).
import type { WorkflowAlerts } from './alerts.ts';
import type { EnvValue } from './secrets.ts';

export const INSTANCE_STATES = [
  'WAITING', // ready, not yet handed to a worker (a retry waits here until its not-before time)
  'DISPATCHED', // in a worker's queue
  'RUNNING',
  'SUCCESS',
  'FAILED',
  'TIMEOUT', // counts as a failure and triggers a retry
  'CANCELLED', // by a user, or by a drain that ran out of time
  'UPSTREAM_FAILED', // will not run: an upstream failed for good
] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];

export const RUN_STATES = ['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * cron: a schedule's fire; manual: a person; event: POST /events or a Redis channel; rerun; external:
 * a monitor's run reported from outside (ax ping, POST /ping, ax wrap); engine_start: `on: engine_start`.
 */
export type TriggerType = 'cron' | 'manual' | 'event' | 'rerun' | 'external' | 'engine_start';
export type MisfirePolicy = 'run_once' | 'skip' | 'all';
export type OverlapPolicy = 'skip' | 'queue' | 'parallel';
export type RoutingStrategy = 'round_robin' | 'random' | 'least_busy';
export type LogStream = 'stdout' | 'stderr' | 'system';

/** The longest duration a workflow may give (timeouts, retry delays): 365 days. */
export const MAX_DURATION_MS = 365 * 86_400_000;
/** A log limit's range, in bytes: below 1 KB a log could not hold its own notice's worth. */
export const MIN_LOG_LIMIT = 1024;
export const MAX_LOG_LIMIT = 2 ** 50;
/** A retry's delay when a workflow gives none. */
export const DEFAULT_RETRY_DELAY_MS = 10_000;

export interface RetryBackoff {
  kind: 'fixed' | 'exponential';
  /** first delay; exponential doubles it per attempt */
  delayMs: number;
  /** cap for exponential backoff */
  maxDelayMs: number;
}

export interface ScheduleSpec {
  cron: string;
  timezone: string;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
}

/** One task as the workflow file describes it (defaults filled in). */
export interface TaskSpec {
  name: string;
  command: string;
  cwd?: string;
  /** literal values, or `{ secret: NAME }`: the value is the worker's secret NAME (see secrets.ts) */
  env: Record<string, EnvValue>;
  timeoutMs?: number;
  retries: number;
  retryBackoff: RetryBackoff;
  labels: string[];
  /** tasks of this workflow */
  upstream: string[];
  /** upstreams in other workflows (cross-workflow dependencies, see CrossUpstream) */
  crossUpstream?: CrossUpstream[];
  /** how long an instance waits for its crossUpstream before it fails (default 24 h) */
  waitTimeoutMs?: number;
  owner?: string;
  /** the most output one attempt stores (the file's log_limit); default the node's log-limit setting */
  logLimitBytes?: number;
}

/**
 * Which run of another workflow an instance waits for, by logical time in the downstream
 * workflow's zone: the run of the same calendar day (default), of the day before, of the same
 * hour, or the upstream's latest run at or before the downstream's logical time (or any later one).
 */
export const UPSTREAM_DATES = ['same_day', 'previous_day', 'same_hour', 'latest'] as const;
export type UpstreamDate = (typeof UPSTREAM_DATES)[number];

/** An upstream in another workflow: one of its tasks, or (no task) its whole run. */
export interface CrossUpstream {
  workflow: string;
  task?: string;
  date: UpstreamDate;
}

/** How long an instance waits for its upstreams in other workflows when its task says nothing. */
export const DEFAULT_WAIT_TIMEOUT_MS = 24 * 3_600_000;

/** A workflow as the workflow file describes it, after validation (defaults filled in). */
export interface WorkflowSpec {
  name: string;
  description?: string;
  owner?: string;
  schedule?: ScheduleSpec;
  onEvent?: string;
  /** `on: engine_start`: a run each time the engine starts (what a crontab's @reboot becomes) */
  onEngineStart?: boolean;
  /**
   * `monitor:`: the workflow runs nothing itself: its runs are reported from outside (a job that
   * stays on cron, wrapped with `ax wrap` or pinging), and one that does not come within `graceMs`
   * of its schedule's fire is missed. A monitor has a schedule and no tasks.
   */
  monitor?: { graceMs: number };
  routing: RoutingStrategy;
  /** who hears of this workflow's failures, and of which (the file's `alerts:`) */
  alerts?: WorkflowAlerts;
  tasks: TaskSpec[];
}

export interface WorkflowSummary {
  id: number;
  name: string;
  description?: string;
  owner?: string;
  enabled: boolean;
  version: number;
  taskCount: number;
  schedule?: ScheduleSpec;
  onEvent?: string;
  /** `on: engine_start` */
  onEngineStart?: boolean;
  nextFireAt?: number;
  /** set while the schedule cannot fire (it says why); the scheduler also raised an alert */
  scheduleError?: string;
  /** a monitor (design.md §13): its schedule says when a run is expected (nextFireAt), reported from outside */
  monitor?: { graceMs: number };
  lastRun?: { id: number; state: RunState; logicalTime: number; finishedAt?: number };
}

export interface RunRecord {
  id: number;
  workflowId: number;
  workflowName: string;
  state: RunState;
  trigger: TriggerType;
  triggeredBy: string;
  logicalTime: number;
  scheduleId?: number;
  /** for a manual run of one task: that task; undefined means the whole workflow */
  onlyTask?: string;
  eventPayload?: string;
  reason?: string;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
}

export interface InstanceRecord {
  id: number;
  runId: number;
  workflowId: number;
  taskId: number;
  taskName: string;
  attempt: number;
  state: InstanceState;
  workerId?: string;
  pid?: number;
  exitCode?: number;
  reason?: string;
  notBefore: number;
  createdAt: number;
  dispatchedAt?: number;
  startedAt?: number;
  finishedAt?: number;
  heartbeatAt?: number;
  /** fail-overs of this task in this run before this attempt (they spend no retries); 0 when absent */
  failovers?: number;
  /** this attempt ended by a fail-over (its worker was lost), not by the task itself */
  failedOver?: boolean;
  /** 1 once the scheduler has reacted to the outcome (retry, downstream, run state) */
  handled: boolean;
}

export interface LogLine {
  instanceId: number;
  seq: number;
  stream: LogStream;
  ts: number;
  line: string;
}

export interface WorkerRecord {
  id: string;
  host: string;
  pid: number;
  version: string;
  labels: string[];
  maxConcurrency: number;
  running: number;
  startedAt: number;
  lastHeartbeat: number;
  status: 'online' | 'draining' | 'lost' | 'offline';
  /** instances it runs now (live registration only): the scheduler's probe */
  instances?: number[];
  /**
   * the node's role: `solo` (the embedded worker), `worker`, `scheduler` (a scheduler that runs
   * no tasks: listed only on request, see EngineApi.listWorkers), `scheduler+worker` (stored as
   * `scheduler` by the worker itself)
   */
  role?: string;
  /** this node holds the scheduler's leader lease (team mode) */
  leader?: boolean;
  /** accept-policy (design.md §6, §12): take unlabelled tasks? only these workflows? */
  acceptUnlabelled: boolean;
  acceptWorkflows?: string[];
}

export interface AuditEntry {
  id: number;
  at: number;
  /** who did it: the identity the server authenticated (or the caller's name on its own node) */
  actor: string;
  action: string;
  object: string;
  detail?: string;
  /** what the client said beside the identity ("webhook from 10.0.0.7"), null for none */
  note?: string | null;
}

/**
 * All scheduling paused by a user: while it holds, no cron fire and no event starts a run (a
 * manual run still does); the fires it holds back are missed fires, dealt with on resume by each
 * workflow's misfire policy, as after downtime.
 */
export interface SchedulingPause {
  since: number;
  /** who paused it (OS user@host, a token's name, the desktop app) */
  by: string;
}

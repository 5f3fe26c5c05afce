// The engine's public vocabulary: records as the CLI, the UI and the API see them.
// Times are epoch milliseconds (UTC) everywhere inside the engine; they become ISO 8601 only
// at the edges (CLI output, AX_LOGICAL_TIME).
import type { ReasonCode } from './reason-code.ts';
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
  'SKIPPED', // will not run: its run_if rule was not met or its `when:` said no (the reason says which)
] as const;
export type InstanceState = (typeof INSTANCE_STATES)[number];

export const RUN_STATES = ['QUEUED', 'RUNNING', 'SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * cron: a schedule's fire; manual: a person; event: POST /events or a Redis channel; rerun; external:
 * a monitor's run reported from outside (ax ping, POST /ping, ax wrap); engine_start: `on: engine_start`;
 * backfill: one run of a backfill (`ax backfill`: RunRecord.backfillId names it); call: a child run
 * started by a parent's `call:` task (RunRecord.parentRunId/parentInstanceId name it).
 */
export const TRIGGER_TYPES = [
  'cron',
  'manual',
  'event',
  'rerun',
  'external',
  'engine_start',
  'backfill',
  'call',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
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

/** A workflow parameter's type (`params:` in the file). */
export const PARAM_TYPES = ['string', 'number', 'boolean', 'date', 'datetime', 'enum'] as const;
export type ParamType = (typeof PARAM_TYPES)[number];
/** A parameter's value on a run: date as YYYY-MM-DD, datetime as an ISO 8601 string with its offset. */
export type ParamValue = string | number | boolean;

/** One declared parameter of a workflow (`params: { NAME: { type, default, ... } }`). */
export interface ParamSpec {
  name: string;
  type: ParamType;
  default?: ParamValue;
  description?: string;
  /** a run must give it (or the default does); false when the file says nothing */
  required: boolean;
  /** string: a regular expression the whole value must match */
  pattern?: string;
  /** number: the range; date/datetime: not used */
  min?: number;
  max?: number;
  /** enum: the allowed values */
  choices?: string[];
}

/**
 * When a task runs, given its upstreams' final states (`run_if:`): all_success (default), all_done
 * (any end: cleanup), one_failed / all_failed (notices), none_failed (each succeeded or was skipped).
 */
export const RUN_IF_RULES = ['all_success', 'all_done', 'one_failed', 'all_failed', 'none_failed'] as const;
export type RunIfRule = (typeof RUN_IF_RULES)[number];

/**
 * A task's precondition (`when:`), checked just before it starts: a command (exit 0: run; any other:
 * SKIPPED with its output as the reason) or one comparison on params and upstream outputs
 * (e.g. `params.region == "eu"`, `outputs.extract.rows > 0`).
 */
export type TaskCondition = { command: string } | { expr: string };

/** A `call:` task: it starts a run of another workflow (a child run), waits for it and takes its state. */
export interface TaskCall {
  workflow: string;
  /** the child's params (values as text, checked against the child's params) */
  params?: Record<string, string>;
  /**
   * `logical_time: -1d`: the child's logical time is the parent run's moved by this much
   * (negative: earlier); absent, the parent's own
   */
  logicalTimeOffsetMs?: number;
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
  /** `run_if:`; all_success when absent */
  runIf?: RunIfRule;
  /** `when:` */
  when?: TaskCondition;
  /** `call:`: this task runs another workflow instead of a command (its command is then "") */
  call?: TaskCall;
  /** `simulate:`: what a simulated worker (ax serve --simulate) does instead; other workers ignore it */
  simulate?: TaskSimulation;
}

/**
 * A task as a simulated worker runs it (`ax serve --simulate N`, a capacity-planning tool): no
 * process; it lasts its duration, writes its lines through the real log path, and exits 0, or 1
 * for a share of its runs.
 */
/** the most log lines one simulated attempt writes: enough for a log-heavy load, bounded against a typo */
export const MAX_SIMULATED_LINES = 1_000_000;

export interface TaskSimulation {
  durationMs: number;
  /** the duration varies by up to this share either way: 0.5 is ±50% */
  jitter: number;
  /** log lines written, spread over the duration */
  lines: number;
  /** the share of runs that exit 1, from 0 to 1 */
  failRate: number;
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

/**
 * Settings a workflow gives all its tasks (the file's top-level env, cwd, timeout, retries,
 * retry_backoff, labels), as written there. Each TaskSpec already holds its effective values (its
 * own where it wrote them, else these; env merged key by key): this is kept so that export writes
 * them back at the workflow's level (see engine/core/workflow/task-settings.ts).
 */
export interface TaskDefaults {
  env?: Record<string, EnvValue>;
  cwd?: string;
  timeoutMs?: number;
  retries?: number;
  retryBackoff?: RetryBackoff;
  labels?: string[];
}

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
  /** `params:`, in the file's order */
  params?: ParamSpec[];
  /** workflow-level settings its tasks inherit; absent when the file gives none */
  taskDefaults?: TaskDefaults;
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
  /** the newest run; startedAt and finishedAt give the list its "3 h ago, took 4 min" */
  lastRun?: { id: number; state: RunState; logicalTime: number; startedAt?: number; finishedAt?: number };
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
  /**
   * with onlyTask: the run is that task and everything downstream of it (each starts once its
   * upstreams inside the run succeeded; upstreams outside it are not waited for)
   */
  withDownstream?: boolean;
  eventPayload?: string;
  /** the run's parameter values, checked against the workflow's params (defaults filled in) */
  params?: Record<string, ParamValue>;
  /** the backfill this run belongs to (trigger 'backfill') */
  backfillId?: number;
  /** a child run of a `call:` task: the parent run and the calling instance */
  parentRunId?: number;
  parentInstanceId?: number;
  reason?: string;
  /** the reason as a code and arguments, for the UI to translate */
  reasonCode?: ReasonCode;
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
  /** the reason as a code and arguments, for the UI to translate */
  reasonCode?: ReasonCode;
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
  /** what the task wrote to $AX_OUTPUT (KEY=VALUE lines or a JSON object), size-limited, secrets masked */
  outputs?: Record<string, string>;
  /** a `call:` task's child run */
  childRunId?: number;
  /** what was started (getInstance only): the command, its directory and environment, secrets masked */
  launch?: InstanceLaunch;
}

/** The command an attempt ran, as the worker started it. */
export interface InstanceLaunch {
  command: string;
  cwd?: string;
  /** the variables AX set for it (AX_*, the task's and workflow's env), secret values masked */
  env: Record<string, string>;
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
  /** the caller's role when the server had accounts (team mode), null before */
  role?: string | null;
  /** the caller's source address, null when unknown */
  address?: string | null;
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

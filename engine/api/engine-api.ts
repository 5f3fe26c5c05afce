// The engine's API: the one surface the CLI, the UI and the desktop shell use, whether the
// engine is in this process (solo, tests) or behind a transport (WebSocket, MessagePort).
import type { AccessApi } from './access.ts';
import type { TeamSecretsApi } from './secrets.ts';
import type { Actor } from './actor.ts';
import type { AlertChannelInfo, AlertFilter, AlertRecord } from './alerts.ts';
import type { BackfillApi } from './backfill.ts';
import type { RunFilter, RunListing, RunViewsApi } from './run-views.ts';
import type { ReasonCode } from './reason-code.ts';
import type { ValidationProblem } from './errors.ts';
import type { EngineEvent, Topic } from './events.ts';
import type { CrontabImportChoice, CrontabImportRequest, ImportReport } from './import-report.ts';
import type { PingAnswer, PingReport } from './monitors.ts';
import type { RunWorkflowOptions } from './params.ts';
import type {
  AuditEntry,
  InstanceRecord,
  InstanceState,
  LogLine,
  RunRecord,
  SchedulingPause,
  WorkerRecord,
  WorkflowSpec,
  WorkflowSummary,
} from './types.ts';

export type { RunWorkflowOptions } from './params.ts';
import type { LineageGraph } from './lineage.ts';
export type { LineageEdge, LineageGraph, LineageNode } from './lineage.ts';
export type * from './run-views.ts';
export type { ReasonCode } from './reason-code.ts';
import type { LogInfo, LogSearchHit, SearchHit } from './search-results.ts';
export type { LogInfo, LogSearchHit, SearchHit } from './search-results.ts';

export interface WorkflowListing extends WorkflowSummary {
  /** the schedule in words, e.g. "At 02:00 (Europe/Berlin)" */
  scheduleText?: string;
  /** upstreams it names in other workflows that do not exist (yet): `later.extract`, `sales.*` */
  missingUpstreams?: string[];
}

export interface RunDetail {
  run: RunRecord;
  instances: InstanceRecord[];
}

export interface ApplyOutcome {
  workflow: string;
  version: number;
  changed: boolean;
  /** applied, but worth a look: upstreams in workflows that do not exist yet, a removed task others wait for */
  warnings?: string[];
}

/** A workflow checked without storing it: the spec with defaults filled in, or every problem. */
export interface ValidationReport {
  ok: boolean;
  spec?: WorkflowSpec;
  /** each with its field path (e.g. "tasks.clean.timeout"), so a form can show it on the field */
  problems: ValidationProblem[];
  warnings: ValidationProblem[];
}

export interface FirePreview {
  /** the schedule in words */
  text: string;
  timezone: string;
  /** the next fire times (epoch ms) after now */
  times: number[];
}

/** One cell of the run-history grid: the latest attempt of a task in a run. */
export interface GridCell {
  instanceId: number;
  state: InstanceState;
  attempt: number;
  startedAt?: number;
  finishedAt?: number;
}

export interface RunGrid {
  /** the workflow's current tasks, in topological order (by depth, ties by name) */
  tasks: string[];
  rows: { run: RunRecord; cells: Record<string, GridCell> }[];
  /** pass as `beforeRunId` for the next (older) page; undefined on the last page */
  nextBeforeRunId?: number;
}

export interface FailureItem {
  run: RunRecord;
  instanceId: number;
  taskName: string;
  /** the failed attempt's number */
  attempt: number;
  state: InstanceState;
  reason?: string;
  /** the reason as a code and arguments, for the UI to translate (the attempt's reasonCode) */
  reasonCode?: ReasonCode;
  finishedAt?: number;
  /** the later attempt (a retry, a re-run) that succeeded: the task recovered */
  recoveredBy?: { instanceId: number; attempt: number; finishedAt?: number };
}

/** What a drain request found: the worker's RUNNING tasks, which it finishes before it leaves. */
export interface DrainAnswer {
  workerId: string;
  running: number;
}

export interface DashboardSummary {
  now: number;
  /** runs in progress (QUEUED or RUNNING), newest first */
  running: RunRecord[];
  /** instances RUNNING now */
  runningTasks: number;
  /**
   * tasks that failed or timed out since local midnight of the engine and have not succeeded
   * since (one per task of a run: its latest failed attempt), newest first
   */
  failuresToday: FailureItem[];
  /** tasks that failed today and then succeeded on a retry or a re-run, newest failure first */
  recoveredToday: FailureItem[];
  /** counts of runs finished since midnight by state */
  today: { success: number; failed: number; total: number };
  /** the next fire of every enabled scheduled workflow, soonest first */
  nextFires: { workflow: string; at: number; timezone: string; scheduleText: string }[];
  workers: { online: number; draining: number; lost: number };
  /** WAITING + DISPATCHED instances, without those held for an upstream in another workflow */
  queueLength: number;
  /** set while all scheduling is paused: no cron fire or event starts a run */
  schedulingPaused?: SchedulingPause;
}

/** What pausing or resuming did: `changed` false when it already was so. */
export interface SchedulingChange {
  changed: boolean;
  /** the pause now in force (the first one's time and actor, when it already was paused) */
  paused?: SchedulingPause;
}

/** What a catch-up (catchUpSchedules) did. */
export interface CatchUpReport {
  /**
   * false: this engine runs no scheduler or does not lead (the leading node's own ticks deal with
   * the schedules), or its scan failed (an alert says why)
   */
  scanned: boolean;
  /** all scheduling is paused: nothing was fired, the missed fires wait for the resume */
  paused: boolean;
  /** fires that made a run: on time, or caught up by their misfire policy */
  fired: number;
  /** missed fires their misfire policy dropped (`skip`, or beyond `run_once` / `all`) */
  dropped: number;
}

export interface TaskStats {
  task: string;
  /** successful attempts measured */
  samples: number;
  avgMs: number;
  maxMs: number;
  /** observed runtime (max of the recent successes) × 1.5 + 5 min, rounded up to the minute */
  suggestedTimeoutMs: number;
}

/** What the settings screen shows: the engine's effective configuration. */
export interface EngineInfo {
  version: string;
  mode: 'solo' | 'team';
  /** this node's role: solo, scheduler, worker, client */
  role: string;
  nodeId: string;
  workerId?: string;
  maxConcurrency?: number;
  timezone: string;
  dataDir?: string;
  /** connection strings with the password masked */
  mysql?: string;
  /** the team database when it is PostgreSQL (instead of mysql) */
  postgres?: string;
  redis?: string;
  redisPrefix?: string;
  logRetentionDays: number;
  workerHeartbeatMs: number;
  taskHeartbeatMs: number;
  queueAlertThreshold: number;
  /** where the machine's stored defaults live (e.g. DATA_DIR/settings.json) */
  settingsFile?: string;
  /** stored defaults (mode, mysql, redis, redisPrefix), passwords masked */
  settings: Record<string, string>;
  /** set while all scheduling is paused */
  schedulingPaused?: SchedulingPause;
  /** the SQLite driver of the solo store, e.g. "node:sqlite (SQLite 3.54.1, built into Node 24.1.0)" */
  sqliteDriver?: string;
}

/** The backfill methods are BackfillApi's (backfill.ts); the views across runs RunViewsApi's (run-views.ts). */
export interface EngineApi extends BackfillApi, RunViewsApi, AccessApi, TeamSecretsApi {
  apply(spec: WorkflowSpec, actor: Actor): Promise<ApplyOutcome>;
  /** several workflows all or nothing (`ax apply DIR`, an import): every spec checked, then one transaction; outcomes in order */
  applyMany(specs: WorkflowSpec[], actor: Actor): Promise<ApplyOutcome[]>;
  /** checks a spec or the text of a workflow file (YAML or JSON) without storing anything */
  validate(input: { spec?: WorkflowSpec; text?: string; file?: string }): Promise<ValidationReport>;
  /** the workflow file text (YAML) of a spec: what `ax export` writes */
  formatWorkflow(spec: WorkflowSpec): Promise<string>;
  exportWorkflow(name: string): Promise<WorkflowSpec>;
  listWorkflows(): Promise<WorkflowListing[]>;
  /** what a pasted crontab would become (at most 1 MiB), converted with the engine's clock, zone and task user */
  previewCrontabImport(request: CrontabImportRequest): Promise<ImportReport>;
  /** converts the crontab again and applies the chosen lines' workflows, all or nothing; audited like apply */
  importCrontab(choice: CrontabImportChoice, actor: Actor): Promise<ApplyOutcome[]>;
  /** the next `count` fire times of a cron in a zone (validation error if the cron is wrong) */
  nextFires(schedule: { cron: string; timezone?: string }, count: number): Promise<FirePreview>;
  setEnabled(name: string, enabled: boolean, actor: Actor): Promise<void>;
  removeWorkflow(name: string, actor: Actor): Promise<void>;
  /** a manual run of the workflow, or of a task (and its downstream), with params checked first (params.ts) */
  runWorkflow(name: string, options: RunWorkflowOptions): Promise<RunRecord>;
  /** re-run a failed task of a run and its downstream */
  rerunTask(runId: number, task: string, actor: Actor): Promise<RunDetail>;
  /**
   * re-run the failed (FAILED, TIMEOUT, UPSTREAM_FAILED) tasks of a run that has ended, and
   * their downstream, in the same run; refused while the run is active or when nothing failed
   */
  rerunFailed(runId: number, actor: Actor): Promise<RunDetail>;
  /** cancel a run (or one task of it): waiting instances are cancelled, running ones stopped */
  cancelRun(runId: number, options: { task?: string; actor: Actor }): Promise<RunDetail>;
  /**
   * starts the workflows listening for an event; refused (`conflict`) while scheduling is paused.
   * With an idempotency `key`, a repeat within 24 h returns the runs the first one started and
   * starts nothing.
   */
  trigger(event: string, payload: string | undefined, actor: Actor, key?: string): Promise<RunRecord[]>;
  /** a monitor's run reported from outside: `ax ping`, POST /ping/NAME, `ax wrap` (monitors.ts) */
  ping(name: string, report: PingReport): Promise<PingAnswer>;
  /**
   * Pauses or resumes all scheduling, for every node sharing the store: while paused no cron fire
   * and no event starts a run (manual runs do; running tasks go on). The fires held back are
   * missed fires: on resume each workflow's misfire policy deals with them, as after downtime.
   * Audited; followers of `workflows` get a `scheduling` event.
   */
  setSchedulingPaused(paused: boolean, actor: Actor): Promise<SchedulingChange>;
  /**
   * Looks at every schedule now instead of at the next tick, applying each misfire policy to the
   * fires missed meanwhile: what the desktop app calls when the machine wakes from sleep.
   */
  catchUpSchedules(): Promise<CatchUpReport>;
  listRuns(filter: RunFilter): Promise<RunListing[]>;
  getRun(runId: number): Promise<RunDetail>;
  /** runs × tasks of one workflow, newest run first, paged */
  runGrid(workflow: string, page: { limit?: number; beforeRunId?: number }): Promise<RunGrid>;
  dashboard(): Promise<DashboardSummary>;
  /** task names and commands across all workflows (case-insensitive substring) */
  search(query: string, limit?: number): Promise<SearchHit[]>;
  /** observed runtimes per task of a workflow, with a timeout suggestion */
  taskStats(workflow: string): Promise<TaskStats[]>;
  getInstance(instanceId: number): Promise<InstanceRecord>;
  /** lines with seq > afterSeq, at most limit (clamped to 10,000) */
  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]>;
  logInfo(instanceId: number): Promise<LogInfo>;
  /** lines of one instance containing `query` (case-insensitive), seq > afterSeq, at most limit */
  searchLog(instanceId: number, query: string, options: { afterSeq?: number; limit?: number }): Promise<LogSearchHit[]>;
  /**
   * Every known worker (live, draining, lost, offline), the leader's marked. With `schedulers`,
   * the scheduler nodes that run no tasks too (role `scheduler`, no capacity): `ax workers`.
   */
  listWorkers(options?: { schedulers?: boolean }): Promise<WorkerRecord[]>;
  /** ask a worker to take nothing new, finish what runs and deregister */
  /** asks a live worker to drain; answers how many tasks it runs now (they finish first) */
  drainWorker(workerId: string, actor: Actor): Promise<DrainAnswer>;
  listAudit(limit: number): Promise<AuditEntry[]>;
  /** recorded alerts, newest first, each with its deliveries: `ax alerts`, the UI's alerts page */
  listAlerts(filter: AlertFilter): Promise<AlertRecord[]>;
  /** the alert channels this engine can send through (settings), secrets masked */
  listAlertChannels(): Promise<AlertChannelInfo[]>;
  /**
   * Sends a test alert through one channel and records it (`ax alerts test CHANNEL`); resolves
   * once it was delivered or failed after its retries (the record says which and why).
   */
  testAlertChannel(channel: string, actor: Actor): Promise<AlertRecord>;
  engineInfo(): Promise<EngineInfo>;
  /** the graph across workflows around a workflow or a `WORKFLOW.TASK`: `up`/`down` hops each way (default 10) */
  lineage(target: string, options?: { up?: number; down?: number }): Promise<LineageGraph>;
  /**
   * Live events of the given topics until the returned function is called. Over a transport the
   * server sends each client only what it subscribed to.
   */
  subscribe(topics: Topic[], handler: (event: EngineEvent) => void): Promise<() => void>;
}

/** The request/response methods (subscribe travels as watch/unwatch messages). */
export const API_METHODS = [
  'apply',
  'applyMany',
  'validate',
  'formatWorkflow',
  'exportWorkflow',
  'listWorkflows',
  'nextFires',
  'previewCrontabImport',
  'importCrontab',
  'setEnabled',
  'removeWorkflow',
  'runWorkflow',
  'rerunTask',
  'rerunFailed',
  'cancelRun',
  'backfill',
  'listBackfills',
  'getBackfill',
  'cancelBackfill',
  'rerunBackfillFailed',
  'trigger',
  'ping',
  'setSchedulingPaused',
  'catchUpSchedules',
  'listRuns',
  'getRun',
  'runGrid',
  'dashboard',
  'search',
  'taskStats',
  'getInstance',
  'readLogs',
  'logInfo',
  'searchLog',
  'listWorkers',
  'drainWorker',
  'listAudit',
  'listAlerts',
  'listAlertChannels',
  'testAlertChannel',
  'engineInfo',
  'lineage',
  'runCalendar',
  'durationTrends',
  'runWaits',
  'whoami',
  'listUsers',
  'addUser',
  'updateUser',
  'removeUser',
  'changePassword',
  'listGroups',
  'setGroup',
  'createToken',
  'listTokens',
  'revokeToken',
  'signOutEverywhere',
  'listTeamSecrets',
  'setTeamSecret',
  'removeTeamSecret',
] as const satisfies readonly Exclude<keyof EngineApi, 'subscribe'>[];

export type ApiMethod = (typeof API_METHODS)[number];

/** Wire format of the request/response channel. */
export interface ApiRequest {
  id: number;
  method: ApiMethod;
  params: unknown[];
}
export type ApiResponse =
  { id: number; result: unknown } | { id: number; error: { code: string; message: string; problems?: unknown[] } };

/** Client → server: change the topics this connection receives. */
export interface WatchMessage {
  watch?: Topic[];
  unwatch?: Topic[];
}

/** Server → client: one event of a watched topic. */
export interface EventMessage {
  event: EngineEvent;
}

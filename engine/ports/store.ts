import type { Actor } from '../api/actor.ts';
import type {
  AuditEntry,
  CrossUpstream,
  UpstreamDate,
  InstanceRecord,
  InstanceState,
  LogLine,
  RetryBackoff,
  RoutingStrategy,
  RunRecord,
  RunState,
  ScheduleSpec,
  SchedulingPause,
  WorkerRecord,
  WorkflowSpec,
  WorkflowSummary,
} from '../api/types.ts';
import type { AlertDelivery, AlertFilter, AlertRecord, AlertState } from '../api/alerts.ts';
import type { EnvValue } from '../api/secrets.ts';
import type { UpstreamWaitDraft, WaiterNotice, NewInstance, Settlement, Finish, TransitionResult, StartRun, InstanceGuard, ClaimCandidate, InstancePatch } from './store-transitions.ts';
export type { UpstreamWaitDraft, WaiterNotice, NewRun, NewInstance, InstanceDraft, FollowUps, Settlement, Finish, TransitionResult, StartRun, InstanceGuard, ClaimCandidate, InstancePatch } from './store-transitions.ts';

export interface TaskDefinition {
  id: number;
  workflowId: number;
  name: string;
  command: string;
  cwd?: string;
  env: Record<string, EnvValue>;
  timeoutMs?: number;
  retries: number;
  retryBackoff: RetryBackoff;
  labels: string[];
  owner?: string;
  /** the task's log_limit: the most output an attempt stores (else the node's) */
  logLimitBytes?: number;
  /** upstreams in other workflows: its first attempt in a run waits for them */
  crossUpstream?: CrossUpstream[];
  waitTimeoutMs?: number;
}

/**
 * A held instance's notBefore: never due, so the dispatcher (which reads due WAITING instances)
 * leaves it alone until a release sets notBefore to the release time. The latest instant a Date holds.
 */
export const HELD_FOR_UPSTREAM = 8_640_000_000_000_000;

export interface ScheduleRecord extends ScheduleSpec {
  id: number;
  workflowId: number;
  workflowName: string;
  /** the latest fire time the scheduler has dealt with (fired, skipped or misfire-dropped) */
  lastFireAt: number;
  /** why it cannot fire, while it cannot (set by the scheduler, cleared when it fires again or changes) */
  error?: string;
}

/** Everything the scheduler needs about one workflow, loaded once and cached by version. */
export interface WorkflowGraph {
  id: number;
  name: string;
  enabled: boolean;
  version: number;
  routing: RoutingStrategy;
  onEvent?: string;
  tasks: TaskDefinition[];
  edges: { upstreamTaskId: number; downstreamTaskId: number }[];
  schedule?: ScheduleRecord;
}

/** A worker's row as the store keeps it: the record, and the claim of the process that holds the id. */
export interface WorkerRegistration extends WorkerRecord {
  claim?: string;
}

export interface RunFilter {
  workflowName?: string;
  states?: RunState[];
  limit?: number;
  /** only runs with a smaller id (a keyset cursor for paging back in history) */
  beforeId?: number;
  /** only these runs */
  ids?: number[];
}

export interface TaskSearchRow {
  workflow: string;
  task: string;
  command: string;
}

export interface TaskRuntime {
  task: string;
  ms: number;
}

export interface ApplyResult {
  workflowId: number;
  version: number;
  /** false when the stored definition already equalled the spec (nothing was written) */
  changed: boolean;
}

/**
 * The source of truth: definitions, runs, instances, logs, workers, audit. One contract, one
 * suite (test/contract/store.contract.ts), every adapter.
 */
export interface Store {
  close(): Promise<void>;

  /**
   * Creates or updates a workflow; when it changed and an actor is given, its audit entry
   * (workflow.apply, "version N") is written in the same transaction: both or neither.
   */
  applyWorkflow(spec: WorkflowSpec, now: number, actor?: Actor): Promise<ApplyResult>;
  getWorkflowSpec(name: string): Promise<WorkflowSpec | undefined>;
  getWorkflowGraph(workflowId: number): Promise<WorkflowGraph | undefined>;
  /** the definition's version and enabled flag: a cheap "has it changed?" */
  getWorkflowStamp(workflowId: number): Promise<{ version: number; enabled: boolean } | undefined>;
  findWorkflowId(name: string): Promise<number | undefined>;
  listWorkflows(): Promise<WorkflowSummary[]>;
  setWorkflowEnabled(name: string, enabled: boolean, now: number): Promise<boolean>;
  /** removes the workflow with its runs, instances and logs */
  removeWorkflow(name: string): Promise<boolean>;
  workflowsForEvent(event: string): Promise<number[]>;
  /** schedules of enabled workflows */
  listSchedules(): Promise<ScheduleRecord[]>;
  setScheduleLastFire(scheduleId: number, at: number): Promise<void>;
  /**
   * Moves a schedule's last fire BACK, from `from` to `to`, only while it still is `from`: the
   * clock stepped back past it (cron-firing.ts); false when another scheduler moved it meanwhile.
   */
  rebaseScheduleLastFire(scheduleId: number, from: number, to: number): Promise<boolean>;
  /** records (or, with null, clears) why a schedule cannot fire */
  setScheduleError(scheduleId: number, error: string | null): Promise<void>;

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
  cancelRun(runId: number, reason: string, queuedRoots: Settlement['queuedRoots'], now: number): Promise<TransitionResult>;
  /** settle-run, one transaction: a RUNNING run with nothing pending ends (see finishInstance), and the next queued run starts. */
  settleRun(runId: number, settlement: Settlement, now: number): Promise<TransitionResult>;
  getRun(id: number): Promise<RunRecord | undefined>;
  listRuns(filter: RunFilter): Promise<RunRecord[]>;
  /** compare-and-set on the run's current state; finishedAt null clears it (a re-run runs again) */
  transitionRun(id: number, from: RunState[], to: RunState, patch: { reason?: string; startedAt?: number; finishedAt?: number | null }): Promise<boolean>;

  /** undefined when (runId, taskId, attempt) already exists */
  createInstance(instance: NewInstance): Promise<InstanceRecord | undefined>;
  getInstance(id: number): Promise<InstanceRecord | undefined>;
  listInstances(runId: number): Promise<InstanceRecord[]>;
  instancesInStates(states: InstanceState[], limit?: number): Promise<InstanceRecord[]>;
  /**
   * WAITING instances whose notBefore has come, oldest first (notBefore, then id); with `after`,
   * only those that come after that one in this order (a keyset cursor for paging).
   */
  dueWaiting(now: number, limit: number, after?: { notBefore: number; id: number }): Promise<InstanceRecord[]>;
  /** Earliest notBefore among WAITING instances, for the dispatcher's next wake-up. */
  nextWaitingAt(): Promise<number | undefined>;
  /**
   * The conditional update: moves the instance to `to` (or keeps its state when to is undefined)
   * only if state, attempt and owner match the guard. Returns false if refused.
   */
  transitionInstance(id: number, guard: InstanceGuard, to: InstanceState | undefined, patch: InstancePatch): Promise<boolean>;
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
  deleteInstances(ids: number[]): Promise<void>;
  /**
   * hold-instance, one transaction: a WAITING instance (created with notBefore
   * HELD_FOR_UPSTREAM) waits for those of `waits` that have not succeeded yet, or, when all have,
   * is released (notBefore now). Returns it as it is now.
   */
  holdInstance(instanceId: number, waits: UpstreamWaitDraft[], now: number): Promise<InstanceRecord | undefined>;
  /** waits whose deadline has passed, one per waiter, oldest deadline first; the waits of instances no longer WAITING are deleted on the way */
  expiredWaits(now: number, limit: number): Promise<WaiterNotice[]>;
  /** the cross-workflow dependencies naming `workflow` (or one of its tasks), and those it has: for lineage and apply's checks */
  crossDependencies(filter: { upstreamWorkflow?: string; workflow?: string }): Promise<CrossDependencyRow[]>;
  /** DISPATCHED + RUNNING instances per worker: the dispatcher's view of each worker's load */
  activeCountByWorker(): Promise<Map<string, number>>;
  /**
   * Task heartbeats of one worker in one round trip; only rows still RUNNING and owned by the
   * worker are touched. Returns the ids the worker still owns: any other is no longer its own
   * (fenced off) and its process must be killed rather than reported.
   */
  recordTaskHeartbeats(workerId: string, beats: { instanceId: number; attempt: number; at: number }[]): Promise<Set<number>>;

  appendLogs(lines: LogLine[]): Promise<void>;
  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]>;
  /** deletes log lines older than `before`; returns how many */
  purgeLogs(before: number): Promise<number>;

  /** the extent of an instance's log: first and last seq (0 when empty) and the line count */
  logExtent(instanceId: number): Promise<{ firstSeq: number; lastSeq: number; lines: number }>;
  /** lines after afterSeq containing query (case-insensitive, literal), in seq order */
  /** `untilSeq`: only lines up to this seq (a window of a long log, see views.searchLog) */
  searchLog(instanceId: number, query: string, afterSeq: number, limit: number, untilSeq?: number): Promise<LogLine[]>;

  /** read models for the UI */
  instancesOfRuns(runIds: number[]): Promise<InstanceRecord[]>;
  /**
   * Of these runs, each task's latest attempt when it ended FAILED, TIMEOUT or CANCELLED (a
   * failure that a later attempt retried is not listed), oldest first: why a run failed.
   */
  finalFailures(runIds: number[]): Promise<InstanceRecord[]>;
  instancesFinishedSince(states: InstanceState[], since: number, limit: number): Promise<InstanceRecord[]>;
  runsFinishedSince(since: number): Promise<Partial<Record<RunState, number>>>;
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

  upsertWorker(worker: WorkerRecord): Promise<void>;
  listWorkers(): Promise<WorkerRecord[]>;
  /** one worker's row with the claim that holds its id (see claimWorker) */
  getWorker(id: string): Promise<WorkerRegistration | undefined>;
  /**
   * Takes a worker id for one process (`claim`, a token of that process): inserts the row when
   * `previous` is undefined (refused if the id exists), else overwrites it only while it still
   * carries `previous` (null: a row no process has claimed yet). False when another node won.
   */
  claimWorker(worker: WorkerRecord, claim: string, previous: string | null | undefined): Promise<boolean>;
  /** The store heartbeat of a claimed id: written only while the row carries `claim`; false when another node took the id. */
  beatWorker(worker: WorkerRecord, claim: string): Promise<boolean>;

  audit(entry: Omit<AuditEntry, 'id'>): Promise<void>;
  listAudit(limit: number): Promise<AuditEntry[]>;

  /** the pause of all scheduling, while there is one (read by the leading scheduler every scan) */
  getSchedulingPause(): Promise<SchedulingPause | undefined>;
  /**
   * Pauses (at `at`, by `actor`) or resumes all scheduling, with its audit entry
   * (`scheduling.pause` / `scheduling.resume`) in the same transaction. Pausing what is paused
   * keeps the first pause's time and actor; either way round, no change writes nothing and
   * returns false.
   */
  setSchedulingPause(paused: boolean, at: number, actor: Actor): Promise<boolean>;

  /**
   * Claims an event trigger's Idempotency-Key (SPEC §12): the first caller gets `claimed`; a
   * later one gets the runs the first started, or (`since`) that the first is still under way. A
   * key older than retentionMs is new again; a claim left unsettled for staleMs (its engine died)
   * is taken over.
   */
  claimEventKey(event: string, key: string, now: number, retentionMs: number, staleMs: number): Promise<EventKeyClaim>;
  /** Records the runs a claimed key's request started; undefined: it failed, the key is free again. */
  settleEventKey(event: string, key: string, runIds: number[] | undefined): Promise<void>;
  /** Forgets keys claimed before `before`; returns how many. */
  purgeEventKeys(before: number): Promise<number>;

  /**
   * Records an alert unless its key exists (undefined: another node, or an earlier call, has it).
   * Without `kind`, the first alert of its group is `immediate` (its node sends it) and later ones
   * are `grouped` (state `grouped`, counted in the group's summary); two nodes at once never both
   * open a group.
   */
  recordAlert(alert: NewAlert): Promise<AlertRecorded>;
  /** Writes (or replaces) one channel's delivery of an alert. */
  recordAlertDelivery(alertId: number, delivery: AlertDelivery): Promise<void>;
  setAlertState(alertId: number, state: AlertState): Promise<void>;
  /** groups whose window ended by `now` and are not closed yet, oldest first */
  dueAlertGroups(now: number, limit: number): Promise<DueAlertGroup[]>;
  /** marks a group's summary dealt with */
  closeAlertGroup(openerId: number): Promise<void>;
  /** newest first, with their deliveries */
  listAlerts(filter: AlertFilter): Promise<AlertRecord[]>;
  getAlert(id: number): Promise<AlertRecord | undefined>;
  /** Forgets alerts (and their deliveries) raised before `before`; returns how many. */
  purgeAlerts(before: number): Promise<number>;
}

/** An alert to record; the store's unique keys decide whether it is sent, counted or a duplicate. */
export interface NewAlert extends Omit<AlertRecord, 'id' | 'kind' | 'deliveries' | 'repeats'> {
  /** rule + group subject + time bucket: a group's first alert is sent, its repeats are counted */
  groupKey: string;
  /** the end of the group's window, when its summary is due */
  groupEndsAt: number;
  /** a summary or a test is recorded as such, by its own key, outside any group */
  kind?: 'summary' | 'test';
  repeats?: number;
}

/** What recording an alert did: `immediate` (send it now), `grouped` (counted), or undefined: its key exists. */
export type AlertRecorded = { id: number; kind: AlertRecord['kind'] } | undefined;

/** A group whose window has ended and whose summary has not been dealt with. */
export interface DueAlertGroup {
  /** the group's first alert */
  opener: AlertRecord;
  groupKey: string;
  groupEndsAt: number;
  /** its grouped repeats */
  repeats: number;
}

/** A stored cross-workflow dependency: `workflow.task` waits for `upstreamWorkflow.upstreamTask` (null: its whole run). */
export interface CrossDependencyRow {
  workflow: string;
  task: string;
  upstreamWorkflow: string;
  upstreamTask: string | null;
  date: UpstreamDate;
  /** no such workflow, or no such task in it (yet) */
  upstreamMissing: boolean;
}

export type EventKeyClaim = { claimed: true } | { claimed: false; runIds: number[] } | { claimed: false; since: number };

import type {
  AuditEntry,
  InstanceRecord,
  InstanceState,
  LogLine,
  RetryBackoff,
  RoutingStrategy,
  RunRecord,
  RunState,
  ScheduleSpec,
  TriggerType,
  WorkerRecord,
  WorkflowSpec,
  WorkflowSummary,
} from '../api/types.ts';

export interface TaskDefinition {
  id: number;
  workflowId: number;
  name: string;
  command: string;
  cwd?: string;
  env: Record<string, string>;
  timeoutMs?: number;
  retries: number;
  retryBackoff: RetryBackoff;
  labels: string[];
  owner?: string;
}

export interface ScheduleRecord extends ScheduleSpec {
  id: number;
  workflowId: number;
  workflowName: string;
  /** the latest fire time the scheduler has dealt with (fired, skipped or misfire-dropped) */
  lastFireAt: number;
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

export interface NewRun {
  workflowId: number;
  state: RunState;
  trigger: TriggerType;
  triggeredBy: string;
  logicalTime: number;
  /** with scheduleId, (scheduleId, logicalTime) is unique: a cron fire makes at most one run */
  scheduleId?: number;
  onlyTask?: string;
  eventPayload?: string;
  reason?: string;
  createdAt: number;
}

export interface NewInstance {
  runId: number;
  workflowId: number;
  taskId: number;
  taskName: string;
  attempt: number;
  state: InstanceState;
  notBefore: number;
  reason?: string;
  createdAt: number;
  /** instances created already final (UPSTREAM_FAILED) are created handled */
  handled?: boolean;
}

/** The compare-and-set guard of every instance write (SPEC §4, §7 fencing). */
export interface InstanceGuard {
  from: InstanceState[];
  attempt: number;
  /** when given, the instance must be owned by this worker */
  workerId?: string;
}

export type InstancePatch = Partial<
  Pick<
    InstanceRecord,
    'workerId' | 'pid' | 'exitCode' | 'reason' | 'dispatchedAt' | 'startedAt' | 'finishedAt' | 'heartbeatAt' | 'notBefore'
  >
>;

export interface RunFilter {
  workflowName?: string;
  states?: RunState[];
  limit?: number;
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

  applyWorkflow(spec: WorkflowSpec, now: number): Promise<ApplyResult>;
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

  /** undefined when a run for (scheduleId, logicalTime) already exists */
  createRun(run: NewRun): Promise<RunRecord | undefined>;
  getRun(id: number): Promise<RunRecord | undefined>;
  listRuns(filter: RunFilter): Promise<RunRecord[]>;
  /** compare-and-set on the run's current state */
  transitionRun(id: number, from: RunState[], to: RunState, patch: { reason?: string; startedAt?: number; finishedAt?: number }): Promise<boolean>;

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
  /** records that the scheduler reacted to a final state */
  markHandled(id: number): Promise<void>;
  /** finished (final state) instances the scheduler has not reacted to yet */
  unhandledFinished(limit: number): Promise<InstanceRecord[]>;
  /** of taskIds, those with a SUCCESS instance in the run */
  succeededTasks(runId: number, taskIds: number[]): Promise<Set<number>>;
  /** count of instances of the run that are WAITING, DISPATCHED or RUNNING, or final but unhandled */
  pendingInstanceCount(runId: number): Promise<number>;
  deleteInstances(ids: number[]): Promise<void>;
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

  upsertWorker(worker: WorkerRecord): Promise<void>;
  listWorkers(): Promise<WorkerRecord[]>;

  audit(entry: Omit<AuditEntry, 'id'>): Promise<void>;
  listAudit(limit: number): Promise<AuditEntry[]>;
}

// The shapes the Store ports read and write (definitions, schedules, workers, alerts, …), shared
// by the ports of each aggregate (store-*.ts) and re-exported by store.ts.
import type {
  CrossUpstream,
  ParamSpec,
  UpstreamDate,
  RetryBackoff,
  RoutingStrategy,
  RunIfRule,
  RunState,
  ScheduleSpec,
  TaskCondition,
  TaskCall,
  TaskSimulation,
  TriggerType,
  WorkerRecord,
} from '../api/types.ts';
import type { AlertRecord } from '../api/alerts.ts';
import type { EnvValue } from '../api/secrets.ts';

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
  /** `run_if:`; all_success when absent */
  runIf?: RunIfRule;
  /** `when:`, checked by the worker just before the task starts */
  when?: TaskCondition;
  /** a call: task: it starts a child run of this workflow instead of a process */
  call?: TaskCall;
  /** `simulate:`, read by a simulated worker's runner (from the workflow's spec: it has no column of its own) */
  simulate?: TaskSimulation;
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
  /** a monitor's schedule (design.md §13): its fires start nothing; a run reported later than fire + this is missed */
  monitorGraceMs?: number;
}

/** Everything the scheduler needs about one workflow, loaded once and cached by version. */
export interface WorkflowGraph {
  id: number;
  name: string;
  enabled: boolean;
  version: number;
  routing: RoutingStrategy;
  onEvent?: string;
  /** the workflow's params (spec.params): every run's values are checked against them */
  params?: ParamSpec[];
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
  /** runs of workflows whose owner is this */
  owner?: string;
  triggers?: TriggerType[];
  /** created at or after (epoch ms) */
  createdFrom?: number;
  /** created before (epoch ms) */
  createdTo?: number;
}

/** Runs created in [from, to), counted per quarter hour × workflow × state: the runs calendar's input. */
export interface RunCountQuery {
  from: number;
  to: number;
  workflowName?: string;
  owner?: string;
}

/**
 * Quarter hours, not days: a day depends on the reader's zone, and every zone's offset today is
 * a whole number of quarter hours, so the engine cuts days from these in any zone.
 */
export interface RunCountRow {
  /** start of the quarter hour (epoch ms) */
  bucket: number;
  workflow: string;
  state: RunState;
  count: number;
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

export type EventKeyClaim =
  { claimed: true } | { claimed: false; runIds: number[] } | { claimed: false; since: number };

/**
 * The task id of a monitor's one instance per run (design.md §13): a monitor has no task
 * definitions, its run's instance stands for the job outside. No worker owns it: backstops and
 * start-up recovery leave it to the pings and the monitor check.
 */
export const EXTERNAL_TASK_ID = 0;

// Row types of the one schema both dialects share. Times are epoch milliseconds; booleans are
// 0/1 integers; lists and maps are JSON text. Keeping to these types is what lets SQLite and
// MySQL run the same queries.
import type { Generated } from 'kysely';

export interface WorkflowTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  owner: string | null;
  enabled: number;
  version: number;
  routing: string;
  on_event: string | null;
  /** the validated WorkflowSpec as applied: what `ax export` writes back */
  spec_json: string;
  /** the spec's params as JSON (migration 0016), NULL for none: read with the graph */
  params_json: string | null;
  created_at: number;
  updated_at: number;
}

export interface TaskDefinitionTable {
  id: Generated<number>;
  workflow_id: number;
  name: string;
  command: string;
  cwd: string | null;
  env_json: string;
  timeout_ms: number | null;
  retries: number;
  retry_backoff_json: string;
  labels_json: string;
  owner: string | null;
  /** the task's log_limit (migration 0014) */
  log_limit_bytes: number | null;
  /** `run_if:`, NULL for all_success (migration 0017) */
  run_if: string | null;
  /** `when:` as JSON (migration 0017) */
  when_json: string | null;
  /** a call: task's TaskCall as JSON (migration 0020); NULL for a command task */
  call_json: string | null;
  /** position in the file, so export keeps the author's order */
  position: number;
}

export interface TaskDependencyTable {
  workflow_id: number;
  upstream_task_id: number;
  downstream_task_id: number;
}

export interface SchedulePlanTable {
  id: Generated<number>;
  workflow_id: number;
  cron: string;
  timezone: string;
  enabled: number;
  trigger_type: string;
  misfire: string;
  overlap: string;
  last_fire_at: number;
  /** why the schedule cannot fire (migration 0005); NULL while it works */
  error: string | null;
  /** a monitor's grace (migration 0015, design.md §13): its fires start nothing; NULL for a schedule that fires */
  monitor_grace_ms: number | null;
}

export interface WorkflowRunTable {
  id: Generated<number>;
  workflow_id: number;
  state: string;
  trigger_type: string;
  triggered_by: string;
  logical_time: number;
  /** with logical_time unique: one run per cron fire, whoever fires it */
  schedule_id: number | null;
  only_task: string | null;
  /** with only_task: 1 when the run is that task and its downstream (migration 0016) */
  with_downstream: Generated<number>;
  event_payload: string | null;
  /** the run's param values as a JSON object (migration 0016); NULL for none */
  params_json: string | null;
  reason: string | null;
  /** the reason's code and arguments as JSON `{code,args}` (migration 0021); NULL without one */
  reason_code: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** a child run of a call: task: its parent run and calling instance (migration 0020) */
  parent_run_id: number | null;
  parent_instance_id: number | null;
  /** the backfill it belongs to (migration 0019); unique with logical_time */
  backfill_id: number | null;
}

/** A backfill (migration 0019): its window, logical times and progress state. */
export interface BackfillTable {
  id: Generated<number>;
  workflow_id: number;
  workflow_name: string;
  from_time: number;
  to_time: number;
  every: string | null;
  /** its logical times, oldest first (JSON list of epoch ms) */
  times_json: string;
  total: number;
  params_json: string | null;
  max_parallel: number;
  rerun_existing: number;
  state: string;
  created_by: string;
  created_at: number;
  finished_at: number | null;
  /** when its failed runs were last asked to run again */
  rerun_at: number | null;
}

export interface TaskInstanceTable {
  id: Generated<number>;
  run_id: number;
  workflow_id: number;
  task_id: number;
  task_name: string;
  attempt: number;
  state: string;
  worker_id: string | null;
  pid: number | null;
  exit_code: number | null;
  reason: string | null;
  /** the reason's code and arguments as JSON `{code,args}` (migration 0021); NULL without one */
  reason_code: string | null;
  not_before: number;
  created_at: number;
  dispatched_at: number | null;
  started_at: number | null;
  finished_at: number | null;
  heartbeat_at: number | null;
  handled: number;
  /** fail-overs of this task in this run before this attempt (migration 0004) */
  failovers: Generated<number>;
  /** 1: this attempt ended by a fail-over, not by the task */
  failed_over: Generated<number>;
  /** a call: task's instance: the child run it started (migration 0020) */
  child_run_id: number | null;
  /** what the attempt wrote to $AX_OUTPUT, a JSON object of strings (migration 0018) */
  outputs_json: string | null;
  /** what the attempt ran, an InstanceLaunch as JSON, secrets masked (migration 0022); read by getInstance only */
  launch_json: string | null;
}

/** An instance's consecutive log lines, compressed (log-chunks.ts). */
export interface ExecutionLogChunkTable {
  id: Generated<number>;
  instance_id: number;
  first_seq: number;
  last_seq: number;
  ts_first: number;
  ts_last: number;
  lines_count: number;
  body: Buffer;
}

export interface WorkerTable {
  id: string;
  host: string;
  pid: number;
  version: string;
  labels_json: string;
  max_concurrency: number;
  running: number;
  started_at: number;
  last_heartbeat: number;
  status: string;
  /** the token of the process that holds this id (migration 0003); NULL before any claim */
  claim: string | null;
  /** the node's role, so a worker that left still says it (migration 0006); NULL from before */
  role: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor: string;
  action: string;
  object: string;
  detail: string | null;
  /** what the client said beside the actor's identity (migration 0013) */
  note: string | null;
  /** the caller's role and source address in team mode (migration 0024) */
  role: string | null;
  address: string | null;
}

/** A switch of the whole engine that is on while its row exists (migration 0009): `scheduling_paused`. */
export interface EngineFlagTable {
  name: string;
  set_at: number;
  set_by: string;
}

/** An Idempotency-Key of an event trigger (migration 0010): claimed by the first request, then its runs. */
export interface EventKeyTable {
  event: string;
  idem_key: string;
  claimed_at: number;
  /** JSON array of the run ids the first request started; null while it is under way */
  run_ids: string | null;
}

/** An alert (migration 0012): unique by alert_key; opens_group 1 on its group's first alert only. */
export interface AlertTable {
  id: Generated<number>;
  alert_key: string;
  group_key: string;
  opens_group: number | null;
  group_ends_at: number;
  /** 1 once the group's summary was dealt with (sent, or nothing to say) */
  group_done: number;
  rule: string;
  subject: string;
  workflow: string | null;
  run_id: number | null;
  instance_id: number | null;
  severity: string;
  title: string;
  message: string;
  /** the title's and message lines' codes as JSON `{title, message}` (migration 0021); NULL without */
  text_code: string | null;
  at: number;
  node: string;
  kind: string;
  repeats: number | null;
  state: string;
}

/** One channel's delivery of one alert. */
export interface AlertDeliveryTable {
  alert_id: number;
  channel: string;
  kind: string | null;
  state: string;
  attempts: number;
  error: string | null;
  at: number;
}

/** What a task names in another workflow (migration 0012): by name, as it may not exist yet. */
export interface CrossDependencyTable {
  workflow_id: number;
  task_id: number;
  upstream_workflow: string;
  /** '' for the whole workflow */
  upstream_task: string;
  date_rule: string;
  wait_timeout_ms: number;
  /** order in the task's upstream list */
  position: number;
}

/** One upstream a held instance still waits for (migration 0012); deleted when released. */
export interface UpstreamWaitTable {
  id: Generated<number>;
  instance_id: number;
  run_id: number;
  workflow_id: number;
  upstream_workflow: string;
  /** '' for the whole workflow */
  upstream_task: string;
  /** the upstream run's logical time must be in [window_from, window_to) */
  window_from: number;
  window_to: number;
  label: string;
  deadline: number;
}

/** An account (migration 0024): engine/ports/store-accounts.ts UserRow. */
export interface AxUserTable {
  name: string;
  role: string;
  groups_json: string;
  source: string;
  password_hash: string | null;
  disabled: number;
  failed_sign_ins: number;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
  last_sign_in_at: number | null;
}

/** A UI session (migration 0024), kept as the SHA-256 of its cookie's value. */
export interface AxSessionTable {
  id_hash: string;
  user: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  address: string | null;
}

/** An API token (migration 0024), kept as the SHA-256 of the token. */
export interface AxTokenTable {
  id: Generated<number>;
  name: string;
  user: string;
  hash: string;
  scopes_json: string;
  workflow: string | null;
  worker_id: string | null;
  labels_json: string | null;
  created_at: number;
  created_by: string;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** A group's settings (migration 0024); a group exists by being named, this row only marks it private. */
export interface AxGroupTable {
  name: string;
  private: number;
}

export interface Database {
  workflow: WorkflowTable;
  task_definition: TaskDefinitionTable;
  task_dependency: TaskDependencyTable;
  schedule_plan: SchedulePlanTable;
  workflow_run: WorkflowRunTable;
  backfill: BackfillTable;
  task_instance: TaskInstanceTable;
  execution_log_chunk: ExecutionLogChunkTable;
  worker: WorkerTable;
  audit_log: AuditLogTable;
  engine_flag: EngineFlagTable;
  event_key: EventKeyTable;
  cross_dependency: CrossDependencyTable;
  upstream_wait: UpstreamWaitTable;
  alert: AlertTable;
  alert_delivery: AlertDeliveryTable;
  ax_user: AxUserTable;
  ax_session: AxSessionTable;
  ax_token: AxTokenTable;
  ax_group: AxGroupTable;
}

// Row ↔ record mapping, shared by every query module.
import type { Selectable } from 'kysely';
import type {
  InstanceRecord,
  InstanceState,
  RunIfRule,
  RunRecord,
  RunState,
  TaskCondition,
  TaskCall,
  TriggerType,
  WorkerRecord,
} from '../../api/types.ts';
import type { ReasonCode } from '../../api/reason-code.ts';
import { decodeReasonCode, encodeReasonCode, type Reason } from '../../api/reasons.ts';
import type { ScheduleRecord, TaskDefinition } from '../../ports/store.ts';
import type {
  SchedulePlanTable,
  TaskDefinitionTable,
  TaskInstanceTable,
  WorkerTable,
  WorkflowRunTable,
} from './schema.ts';

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);
/** MySQL may hand BIGINT back as a string; normalise to number. */
export const num = (v: number | string | bigint): number => (typeof v === 'number' ? v : Number(v));
const optNum = (v: number | string | null): number | undefined => (v === null ? undefined : num(v));

/** A stored reason code as a record's field (none when absent: older rows, reasons without one). */
function reasonCodeOf(text: string | null | undefined): { reasonCode?: ReasonCode } {
  const code = decodeReasonCode(text);
  return code ? { reasonCode: code } : {};
}

/**
 * A reason's two columns, always written together, so a code never outlives the text it was
 * written with (a reason without a code clears the stored one).
 */
export function reasonColumns(
  reason: string | null | undefined,
  code: ReasonCode | null | undefined,
): { reason: string | null; reason_code: string | null } {
  return { reason: reason ?? null, reason_code: reason == null ? null : encodeReasonCode(code) };
}

/** reasonColumns of a reason built from its code (because()). */
export const reasonColumnsOf = (r: Reason): { reason: string; reason_code: string | null } =>
  reasonColumns(r.reason, r.reasonCode) as { reason: string; reason_code: string | null };

export function taskFromRow(r: Selectable<TaskDefinitionTable>): TaskDefinition {
  return {
    id: r.id,
    workflowId: r.workflow_id,
    name: r.name,
    command: r.command,
    cwd: opt(r.cwd),
    env: JSON.parse(r.env_json) as Record<string, string>,
    timeoutMs: optNum(r.timeout_ms),
    retries: r.retries,
    retryBackoff: JSON.parse(r.retry_backoff_json) as TaskDefinition['retryBackoff'],
    labels: JSON.parse(r.labels_json) as string[],
    owner: opt(r.owner),
    logLimitBytes: optNum(r.log_limit_bytes),
    ...(r.run_if && { runIf: r.run_if as RunIfRule }),
    ...(r.when_json && { when: JSON.parse(r.when_json) as TaskCondition }),
    ...(r.call_json !== null && r.call_json !== undefined && { call: JSON.parse(r.call_json) as TaskCall }),
  };
}

export function scheduleFromRow(r: Selectable<SchedulePlanTable>, workflowName: string): ScheduleRecord {
  return {
    id: r.id,
    workflowId: r.workflow_id,
    workflowName,
    cron: r.cron,
    timezone: r.timezone,
    misfire: r.misfire as ScheduleRecord['misfire'],
    overlap: r.overlap as ScheduleRecord['overlap'],
    lastFireAt: num(r.last_fire_at),
    error: r.error ?? undefined,
    ...(r.monitor_grace_ms !== null && r.monitor_grace_ms !== undefined && { monitorGraceMs: num(r.monitor_grace_ms) }),
  };
}

export function runFromRow(r: Selectable<WorkflowRunTable> & { workflow_name: string }): RunRecord {
  return {
    id: r.id,
    workflowId: r.workflow_id,
    workflowName: r.workflow_name,
    state: r.state as RunState,
    trigger: r.trigger_type as TriggerType,
    triggeredBy: r.triggered_by,
    logicalTime: num(r.logical_time),
    scheduleId: opt(r.schedule_id),
    onlyTask: opt(r.only_task),
    ...(Number(r.with_downstream) === 1 && { withDownstream: true }),
    eventPayload: opt(r.event_payload),
    ...(r.params_json !== null &&
      r.params_json !== undefined && { params: JSON.parse(r.params_json) as RunRecord['params'] }),
    ...(r.backfill_id !== null && r.backfill_id !== undefined && { backfillId: num(r.backfill_id) }),
    reason: opt(r.reason),
    ...reasonCodeOf(r.reason_code),
    createdAt: num(r.created_at),
    startedAt: optNum(r.started_at),
    finishedAt: optNum(r.finished_at),
    ...(r.parent_run_id !== null && r.parent_run_id !== undefined && { parentRunId: num(r.parent_run_id) }),
    ...(r.parent_instance_id !== null &&
      r.parent_instance_id !== undefined && { parentInstanceId: num(r.parent_instance_id) }),
  };
}

/**
 * A row as read, or as a step that just wrote it knows it: outputs only come with a finish, and
 * child_run_id is NULL until a call starts.
 */
type InstanceRow = Omit<Selectable<TaskInstanceTable>, 'outputs_json' | 'child_run_id' | 'launch_json'> & {
  outputs_json?: string | null;
  launch_json?: string | null;
  child_run_id?: number | null;
};

export function instanceFromRow(r: InstanceRow): InstanceRecord {
  return {
    id: r.id,
    runId: r.run_id,
    workflowId: r.workflow_id,
    taskId: r.task_id,
    taskName: r.task_name,
    attempt: r.attempt,
    state: r.state as InstanceState,
    workerId: opt(r.worker_id),
    pid: opt(r.pid),
    exitCode: opt(r.exit_code),
    reason: opt(r.reason),
    ...reasonCodeOf(r.reason_code),
    notBefore: num(r.not_before),
    createdAt: num(r.created_at),
    dispatchedAt: optNum(r.dispatched_at),
    startedAt: optNum(r.started_at),
    finishedAt: optNum(r.finished_at),
    heartbeatAt: optNum(r.heartbeat_at),
    failovers: r.failovers,
    failedOver: r.failed_over === 1,
    handled: r.handled === 1,
    ...(r.child_run_id !== null && r.child_run_id !== undefined && { childRunId: num(r.child_run_id) }),
    ...(typeof r.outputs_json === 'string' && { outputs: JSON.parse(r.outputs_json) as Record<string, string> }),
  };
}

export function workerFromRow(r: Selectable<WorkerTable>): WorkerRecord {
  return {
    id: r.id,
    host: r.host,
    pid: r.pid,
    version: r.version,
    labels: JSON.parse(r.labels_json) as string[],
    maxConcurrency: r.max_concurrency,
    running: r.running,
    startedAt: num(r.started_at),
    lastHeartbeat: num(r.last_heartbeat),
    status: r.status as WorkerRecord['status'],
    ...(r.role !== null && { role: r.role }),
    // The accept-policy travels with the live registration (coordinator), not this table.
    acceptUnlabelled: true,
  };
}

export function workerToRow(w: WorkerRecord): Omit<Selectable<WorkerTable>, 'claim'> {
  return {
    id: w.id,
    host: w.host,
    pid: w.pid,
    version: w.version,
    labels_json: JSON.stringify(w.labels),
    max_concurrency: w.maxConcurrency,
    running: w.running,
    started_at: w.startedAt,
    last_heartbeat: w.lastHeartbeat,
    status: w.status,
    role: w.role ?? null,
  };
}

/** JSON with sorted keys, so equal specs compare equal whatever built them. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

/**
 * `on: engine_start` lives only in the spec's canonical JSON (no column: it is read once per
 * engine start). The key appears there as `"onEngineStart":true` and nowhere else: a string value
 * holding the same text has its quotes escaped (\"), and no other field of a spec is a boolean.
 */
export const ENGINE_START_JSON = '"onEngineStart":true';
export const hasEngineStart = (specJson: string): boolean => specJson.includes(ENGINE_START_JSON);

/** Splits rows so one INSERT stays under both dialects' placeholder limits. */
export function chunks<T>(rows: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

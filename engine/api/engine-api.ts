// The engine's API: the one surface the CLI, the UI and the desktop shell use, whether the
// engine is in this process (solo, tests) or behind a transport (WebSocket, MessagePort).
import type { AuditEntry, InstanceRecord, LogLine, RunRecord, RunState, WorkerRecord, WorkflowSpec, WorkflowSummary } from './types.ts';

export interface WorkflowListing extends WorkflowSummary {
  /** the schedule in words, e.g. "At 02:00 AM (Europe/Berlin)" */
  scheduleText?: string;
}

export interface RunDetail {
  run: RunRecord;
  instances: InstanceRecord[];
}

export interface ApplyOutcome {
  workflow: string;
  version: number;
  changed: boolean;
}

export interface EngineApi {
  apply(spec: WorkflowSpec, actor: string): Promise<ApplyOutcome>;
  exportWorkflow(name: string): Promise<WorkflowSpec>;
  listWorkflows(): Promise<WorkflowListing[]>;
  setEnabled(name: string, enabled: boolean, actor: string): Promise<void>;
  removeWorkflow(name: string, actor: string): Promise<void>;
  /** a manual run of the whole workflow, or of one task */
  runWorkflow(name: string, options: { task?: string; actor: string }): Promise<RunRecord>;
  /** re-run a failed task of a run and its downstream */
  rerunTask(runId: number, task: string, actor: string): Promise<RunDetail>;
  trigger(event: string, payload: string | undefined, actor: string): Promise<RunRecord[]>;
  listRuns(filter: { workflow?: string; states?: RunState[]; limit?: number }): Promise<RunRecord[]>;
  getRun(runId: number): Promise<RunDetail>;
  getInstance(instanceId: number): Promise<InstanceRecord>;
  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]>;
  listWorkers(): Promise<WorkerRecord[]>;
  /** ask a worker to take nothing new, finish what runs and deregister */
  drainWorker(workerId: string, actor: string): Promise<void>;
  listAudit(limit: number): Promise<AuditEntry[]>;
}

export const API_METHODS = [
  'apply',
  'exportWorkflow',
  'listWorkflows',
  'setEnabled',
  'removeWorkflow',
  'runWorkflow',
  'rerunTask',
  'trigger',
  'listRuns',
  'getRun',
  'getInstance',
  'readLogs',
  'listWorkers',
  'drainWorker',
  'listAudit',
] as const satisfies readonly (keyof EngineApi)[];

export type ApiMethod = (typeof API_METHODS)[number];

/** Wire format of the request/response channel. */
export interface ApiRequest {
  id: number;
  method: ApiMethod;
  params: unknown[];
}
export type ApiResponse =
  | { id: number; result: unknown }
  | { id: number; error: { code: string; message: string; problems?: unknown[] } };

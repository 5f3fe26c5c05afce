// The Store over Kysely: one implementation for every SQL dialect, with no SQL of its own. It
// binds each port's methods to the database: the compound state changes (one file each:
// start-run.ts, finish-instance.ts, settle-run.ts, cancel-run.ts, rerun-task.ts, claim-due.ts,
// add-instances.ts, over transaction.ts), apply-workflow.ts and the query modules of each
// aggregate. Dialect-specific code lives only in the openers (sqlite-store.ts, mysql-store.ts,
// postgres-store.ts), migrations.ts, inserts.ts and the locks.
import type { ReasonCode } from '../../api/reason-code.ts';
import type { Actor } from '../../api/actor.ts';
import type { UpstreamOutputs, UpstreamOutputsQuery } from '../../ports/store-instances.ts';
import type { Kysely } from 'kysely';
import type {
  AuditEntry,
  InstanceLaunch,
  InstanceRecord,
  InstanceState,
  LogLine,
  RunRecord,
  SchedulingPause,
  WorkerRecord,
  WorkflowSpec,
  WorkflowSummary,
} from '../../api/types.ts';
import type { AlertDelivery, AlertFilter, AlertRecord, AlertState } from '../../api/alerts.ts';
import type { BackfillState } from '../../api/backfill.ts';
import type {
  AlertRecorded,
  ApplyResult,
  CallStarted,
  BackfillRow,
  ClaimCandidate,
  CrossDependencyRow,
  DueAlertGroup,
  EventKeyClaim,
  ExternalRunStart,
  Finish,
  InstanceDraft,
  InstanceGuard,
  NewAlert,
  NewBackfill,
  NewInstance,
  RerunFailed,
  RerunTask,
  RunFilter,
  ScheduleRecord,
  Settlement,
  StartCall,
  StartRun,
  Store,
  TransitionResult,
  WaiterNotice,
  WorkerRegistration,
  WorkflowGraph,
} from '../../ports/store.ts';
import { addInstances } from './add-instances.ts';
import * as alerts from './alert-queries.ts';
import { applyWorkflow } from './apply-workflow.ts';
import { applyWorkflows } from './apply-workflows.ts';
import * as auditLog from './audit-queries.ts';
import * as backfills from './backfill-queries.ts';
import { cancelRun } from './cancel-run.ts';
import { endBackfill, reopenBackfill } from './move-backfill.ts';
import { claimDueInstances } from './claim-due.ts';
import * as eventKeys from './event-key-queries.ts';
import { finishInstance } from './finish-instance.ts';
import * as flags from './flag-queries.ts';
import * as writes from './instance-writes.ts';
import { insertLogs } from './log-insert.ts';
import * as logs from './log-queries.ts';
import type { SqlDialectName } from './migrations.ts';
import { upstreamOutputs } from './output-queries.ts';
import { batchReads } from './read-batch.ts';
import { rerunFailed } from './rerun-failed.ts';
import { rerunTask } from './rerun-task.ts';
import * as runs from './run-queries.ts';
import * as schedules from './schedule-queries.ts';
import type { Database } from './schema.ts';
import { SqlReadModels } from './sql-read-models.ts';
import { settleRun } from './settle-run.ts';
import { orphanedChildRuns, startCall } from './start-call.ts';
import { startExternalRun } from './start-external-run.ts';
import { startRun } from './start-run.ts';
import { expiredWaits } from './upstream-waits.ts';
import * as workers from './worker-queries.ts';
import * as wf from './workflow-queries.ts';

export class SqlStore extends SqlReadModels implements Store {
  private readonly instanceReads = batchReads((ids) => runs.getInstances(this.db, ids));

  constructor(
    db: Kysely<Database>,
    private readonly dialect: SqlDialectName,
    private readonly onClose: () => Promise<void> = () => db.destroy(),
  ) {
    super(db);
  }

  close(): Promise<void> {
    return this.onClose();
  }

  // definitions
  applyWorkflow(spec: WorkflowSpec, now: number, actor?: Actor): Promise<ApplyResult> {
    return applyWorkflow(this.db, spec, now, actor);
  }
  applyWorkflows(specs: readonly WorkflowSpec[], now: number, actor?: Actor): Promise<ApplyResult[]> {
    return applyWorkflows(this.db, specs, now, actor);
  }
  getWorkflowSpec(name: string): Promise<WorkflowSpec | undefined> {
    return wf.getWorkflowSpec(this.db, name);
  }
  getWorkflowGraph(workflowId: number): Promise<WorkflowGraph | undefined> {
    return wf.getWorkflowGraph(this.db, workflowId);
  }
  getWorkflowStamp(workflowId: number): Promise<{ version: number; enabled: boolean } | undefined> {
    return schedules.getWorkflowStamp(this.db, workflowId);
  }
  findWorkflowId(name: string): Promise<number | undefined> {
    return schedules.findWorkflowId(this.db, name);
  }
  listWorkflows(): Promise<WorkflowSummary[]> {
    return wf.listWorkflows(this.db);
  }
  setWorkflowEnabled(name: string, enabled: boolean, now: number): Promise<boolean> {
    return wf.setWorkflowEnabled(this.db, name, enabled, now);
  }
  removeWorkflow(name: string): Promise<boolean> {
    return wf.removeWorkflow(this.db, name);
  }
  workflowsForEvent(event: string): Promise<number[]> {
    return schedules.workflowsForEvent(this.db, event);
  }
  workflowsForEngineStart(): Promise<number[]> {
    return schedules.workflowsForEngineStart(this.db);
  }
  listSchedules(): Promise<ScheduleRecord[]> {
    return wf.listSchedules(this.db);
  }
  setScheduleLastFire(scheduleId: number, at: number): Promise<void> {
    return schedules.setScheduleLastFire(this.db, scheduleId, at);
  }
  rebaseScheduleLastFire(scheduleId: number, from: number, to: number): Promise<boolean> {
    return schedules.moveScheduleLastFire(this.db, scheduleId, from, to);
  }
  advanceScheduleLastFire(scheduleId: number, from: number, to: number): Promise<boolean> {
    return schedules.moveScheduleLastFire(this.db, scheduleId, from, to);
  }
  setScheduleError(scheduleId: number, error: string | null): Promise<void> {
    return schedules.setScheduleError(this.db, scheduleId, error);
  }
  crossDependencies(filter: { upstreamWorkflow?: string; workflow?: string }): Promise<CrossDependencyRow[]> {
    return wf.crossDependencies(this.db, filter);
  }

  // runs and their compound steps
  startRun(start: StartRun): Promise<{ run: RunRecord; created: InstanceRecord[] } | undefined> {
    return startRun(this.db, this.dialect, start);
  }
  startCall(call: StartCall, now: number): Promise<CallStarted | undefined> {
    return startCall(this.db, this.dialect, call, now);
  }
  orphanedChildRuns(limit: number): Promise<number[]> {
    return orphanedChildRuns(this.db, limit);
  }
  startExternalRun(start: ExternalRunStart): Promise<{ run: RunRecord; instance: InstanceRecord } | undefined> {
    return startExternalRun(this.db, this.dialect, start);
  }
  finishInstance(finish: Finish, now: number): Promise<TransitionResult> {
    return finishInstance(this.db, this.dialect, finish, now);
  }
  cancelRun(
    runId: number,
    reason: string,
    queuedRoots: InstanceDraft[],
    now: number,
    reasonCode?: ReasonCode,
  ): Promise<TransitionResult> {
    return cancelRun(this.db, this.dialect, runId, reason, reasonCode, queuedRoots, now);
  }
  settleRun(runId: number, settlement: Settlement, now: number): Promise<TransitionResult> {
    return settleRun(this.db, this.dialect, runId, settlement, now);
  }
  addInstances(runId: number, drafts: InstanceDraft[], now: number): Promise<InstanceRecord[]> {
    return addInstances(this.db, this.dialect, runId, drafts, now);
  }
  rerunTask(rerun: RerunTask, now: number): Promise<TransitionResult> {
    return rerunTask(this.db, this.dialect, rerun, now);
  }
  rerunFailed(rerun: RerunFailed, now: number): Promise<TransitionResult> {
    return rerunFailed(this.db, this.dialect, rerun, now);
  }
  getRun(id: number): Promise<RunRecord | undefined> {
    return runs.getRun(this.db, id);
  }
  listRuns(filter: RunFilter): Promise<RunRecord[]> {
    return runs.listRuns(this.db, filter);
  }

  // backfills
  createBackfill(backfill: NewBackfill): Promise<BackfillRow> {
    return backfills.createBackfill(this.db, backfill);
  }
  getBackfill(id: number): Promise<BackfillRow | undefined> {
    return backfills.getBackfill(this.db, id);
  }
  listBackfills(filter: { workflowName?: string; states?: BackfillState[]; limit?: number }): Promise<BackfillRow[]> {
    return backfills.listBackfills(this.db, filter);
  }
  backfillTimes(id: number): Promise<number[]> {
    return backfills.backfillTimes(this.db, id);
  }
  backfillRuns(id: number): Promise<RunRecord[]> {
    return backfills.backfillRuns(this.db, id);
  }
  runLogicalTimes(workflowId: number, from: number, to: number): Promise<number[]> {
    return backfills.runLogicalTimes(this.db, workflowId, from, to);
  }
  endBackfill(id: number, state: Exclude<BackfillState, 'RUNNING'>, now: number): Promise<boolean> {
    return endBackfill(this.db, this.dialect, id, state, now);
  }
  reopenBackfill(id: number, now: number): Promise<boolean> {
    return reopenBackfill(this.db, this.dialect, id, now);
  }

  // instances
  createInstance(instance: NewInstance): Promise<InstanceRecord | undefined> {
    return runs.createInstance(this.db, instance);
  }
  getInstance(id: number): Promise<InstanceRecord | undefined> {
    // On MySQL and PostgreSQL the reads of one turn go as one query (read-batch.ts).
    return this.dialect === 'sqlite' ? runs.getInstance(this.db, id) : this.instanceReads(id);
  }
  listInstances(runId: number): Promise<InstanceRecord[]> {
    return runs.listInstances(this.db, runId);
  }
  upstreamOutputs(query: UpstreamOutputsQuery): Promise<UpstreamOutputs> {
    return upstreamOutputs(this.db, query);
  }
  instancesInStates(states: InstanceState[], limit?: number): Promise<InstanceRecord[]> {
    return runs.instancesInStates(this.db, states, limit);
  }
  dueWaiting(now: number, limit: number, after?: { notBefore: number; id: number }): Promise<InstanceRecord[]> {
    return runs.dueWaiting(this.db, now, limit, after);
  }
  nextWaitingAt(): Promise<number | undefined> {
    return runs.nextWaitingAt(this.db);
  }
  markRunning(id: number, guard: InstanceGuard, startedAt: number): Promise<boolean> {
    return writes.markRunning(this.db, this.dialect, id, guard, startedAt);
  }
  recordPid(id: number, guard: InstanceGuard, pid: number | undefined, launch?: InstanceLaunch): Promise<boolean> {
    return writes.recordPid(this.db, this.dialect, id, guard, pid, launch);
  }
  requeueInstance(id: number, guard: InstanceGuard, reason: string, reasonCode?: ReasonCode): Promise<boolean> {
    return writes.requeueInstance(this.db, this.dialect, id, guard, reason, reasonCode);
  }
  setWaitingReason(id: number, attempt: number, reason: string, reasonCode?: ReasonCode): Promise<boolean> {
    return writes.setWaitingReason(this.db, this.dialect, id, attempt, reason, reasonCode);
  }
  claimDueInstances(workerId: string, candidates: ClaimCandidate[], now: number): Promise<number[]> {
    return claimDueInstances(this.db, this.dialect, workerId, candidates, now);
  }
  cancelledAmong(ids: number[]): Promise<number[]> {
    return runs.cancelledAmong(this.db, ids);
  }
  unhandledFinished(limit: number): Promise<InstanceRecord[]> {
    return runs.unhandledFinished(this.db, limit);
  }
  pendingInstanceCount(runId: number): Promise<number> {
    return runs.pendingInstanceCount(this.db, runId);
  }
  expiredWaits(now: number, limit: number): Promise<WaiterNotice[]> {
    return expiredWaits(this.db, now, limit);
  }
  activeCountByWorker(): Promise<Map<string, number>> {
    return runs.activeCountByWorker(this.db);
  }
  recordTaskHeartbeats(
    workerId: string,
    beats: { instanceId: number; attempt: number; at: number }[],
  ): Promise<Set<number>> {
    return runs.recordTaskHeartbeats(this.db, this.dialect, workerId, beats);
  }

  // logs
  appendLogs(lines: LogLine[]): Promise<void> {
    return insertLogs(this.db, lines);
  }
  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]> {
    return logs.readLogs(this.db, instanceId, afterSeq, limit);
  }
  purgeLogs(before: number): Promise<number> {
    return logs.purgeLogs(this.db, before);
  }
  logExtent(instanceId: number): Promise<{ firstSeq: number; lastSeq: number; lines: number }> {
    return logs.logExtent(this.db, instanceId);
  }
  searchLog(instanceId: number, query: string, afterSeq: number, limit: number, untilSeq?: number): Promise<LogLine[]> {
    return logs.searchLog(this.db, instanceId, query, afterSeq, limit, untilSeq);
  }

  // workers
  upsertWorker(worker: WorkerRecord): Promise<void> {
    return workers.upsertWorker(this.db, worker);
  }
  listWorkers(): Promise<WorkerRecord[]> {
    return workers.listWorkers(this.db);
  }
  getWorker(id: string): Promise<WorkerRegistration | undefined> {
    return workers.getWorker(this.db, id);
  }
  claimWorker(worker: WorkerRecord, claim: string, previous: string | null | undefined): Promise<boolean> {
    return workers.claimWorker(this.db, worker, claim, previous);
  }
  beatWorker(worker: WorkerRecord, claim: string): Promise<boolean> {
    return workers.beatWorker(this.db, worker, claim);
  }

  // audit and flags
  audit(entry: Omit<AuditEntry, 'id'>): Promise<void> {
    return auditLog.audit(this.db, entry);
  }
  listAudit(limit: number): Promise<AuditEntry[]> {
    return auditLog.listAudit(this.db, limit);
  }
  getSchedulingPause(): Promise<SchedulingPause | undefined> {
    return flags.getSchedulingPause(this.db);
  }
  setSchedulingPause(paused: boolean, at: number, actor: Actor): Promise<boolean> {
    return flags.setSchedulingPause(this.db, paused, at, actor);
  }
  claimEventKey(event: string, key: string, now: number, retentionMs: number, staleMs: number): Promise<EventKeyClaim> {
    return eventKeys.claimEventKey(this.db, event, key, now, retentionMs, staleMs);
  }
  settleEventKey(event: string, key: string, runIds: number[] | undefined): Promise<void> {
    return eventKeys.settleEventKey(this.db, event, key, runIds);
  }
  purgeEventKeys(before: number): Promise<number> {
    return eventKeys.purgeEventKeys(this.db, before);
  }

  // alerts
  recordAlert(alert: NewAlert): Promise<AlertRecorded> {
    return alerts.recordAlert(this.db, alert);
  }
  recordAlertDelivery(alertId: number, delivery: AlertDelivery): Promise<void> {
    return alerts.recordAlertDelivery(this.db, alertId, delivery);
  }
  setAlertState(alertId: number, state: AlertState): Promise<void> {
    return alerts.setAlertState(this.db, alertId, state);
  }
  dueAlertGroups(now: number, limit: number): Promise<DueAlertGroup[]> {
    return alerts.dueAlertGroups(this.db, now, limit);
  }
  closeAlertGroup(openerId: number): Promise<void> {
    return alerts.closeAlertGroup(this.db, openerId);
  }
  listAlerts(filter: AlertFilter): Promise<AlertRecord[]> {
    return alerts.listAlerts(this.db, filter);
  }
  getAlert(id: number): Promise<AlertRecord | undefined> {
    return alerts.getAlert(this.db, id);
  }
  purgeAlerts(before: number): Promise<number> {
    return alerts.purgeAlerts(this.db, before);
  }
}

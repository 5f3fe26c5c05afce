// The Store port over Kysely: one implementation for every SQL dialect. Dialect-specific code
// lives only in the openers (sqlite-store.ts), migrations.ts and where the dialects truly
// differ in locking (claim-queries.ts).
import type { Kysely } from 'kysely';
import type { Actor } from '../../api/actor.ts';
import type { AuditEntry, InstanceRecord, InstanceState, LogLine, RunRecord, RunState, SchedulingPause, WorkerRecord, WorkflowSpec, WorkflowSummary } from '../../api/types.ts';
import type { AlertDelivery, AlertFilter, AlertRecord, AlertState } from '../../api/alerts.ts';
import type { AlertRecorded, DueAlertGroup, NewAlert, ApplyResult, ClaimCandidate, EventKeyClaim, Finish, InstanceGuard, InstancePatch, NewInstance, RunFilter, Settlement, StartRun, TransitionResult, ScheduleRecord, Store, TaskRuntime, TaskSearchRow, WorkerRegistration, WorkflowGraph, UpstreamWaitDraft, WaiterNotice, CrossDependencyRow } from '../../ports/store.ts';
import { claimDueInstances } from './claim-queries.ts';
import * as alerts from './alert-queries.ts';
import * as eventKeys from './event-key-queries.ts';
import * as flags from './flag-queries.ts';
import { groupCommit } from './group-commit.ts';
import { insertLogs } from './log-insert.ts';
import { memoQuery } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import { logFromRow, num, workerFromRow, workerToRow } from './rows.ts';
import * as runs from './run-queries.ts';
import * as transitions from './transition-queries.ts';
import type { Database } from './schema.ts';
import * as views from './view-queries.ts';
import * as wf from './workflow-queries.ts';
import * as waits_ from './upstream-waits.ts';

export class SqlStore implements Store {
  constructor(
    readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectName,
    private readonly onClose: () => Promise<void> = () => db.destroy(),
  ) {}

  close(): Promise<void> {
    return this.onClose();
  }

  applyWorkflow(spec: WorkflowSpec, now: number, actor?: Actor): Promise<ApplyResult> {
    return wf.applyWorkflow(this.db, spec, now, actor);
  }
  getWorkflowSpec(name: string): Promise<WorkflowSpec | undefined> {
    return wf.getWorkflowSpec(this.db, name);
  }
  getWorkflowGraph(workflowId: number): Promise<WorkflowGraph | undefined> {
    return wf.getWorkflowGraph(this.db, workflowId);
  }
  async getWorkflowStamp(workflowId: number): Promise<{ version: number; enabled: boolean } | undefined> {
    const row = await this.db.selectFrom('workflow').select(['version', 'enabled']).where('id', '=', workflowId).executeTakeFirst();
    return row ? { version: row.version, enabled: row.enabled === 1 } : undefined;
  }
  async findWorkflowId(name: string): Promise<number | undefined> {
    return (await this.db.selectFrom('workflow').select('id').where('name', '=', name).executeTakeFirst())?.id;
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
  async workflowsForEvent(event: string): Promise<number[]> {
    const rows = await this.db.selectFrom('workflow').select('id').where('on_event', '=', event).where('enabled', '=', 1).orderBy('id').execute();
    return rows.map((r) => r.id);
  }
  listSchedules(): Promise<ScheduleRecord[]> {
    return wf.listSchedules(this.db);
  }
  async setScheduleLastFire(scheduleId: number, at: number): Promise<void> {
    // Never backwards: two schedulers racing must not re-open fires already dealt with.
    await this.db.updateTable('schedule_plan').set({ last_fire_at: at }).where('id', '=', scheduleId).where('last_fire_at', '<', at).execute();
  }

  async rebaseScheduleLastFire(scheduleId: number, from: number, to: number): Promise<boolean> {
    const result = await this.db.updateTable('schedule_plan').set({ last_fire_at: to }).where('id', '=', scheduleId).where('last_fire_at', '=', from).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setScheduleError(scheduleId: number, error: string | null): Promise<void> {
    await this.db.updateTable('schedule_plan').set({ error }).where('id', '=', scheduleId).execute();
  }

  startRun(start: StartRun): Promise<{ run: RunRecord; created: InstanceRecord[] } | undefined> {
    return transitions.startRun(this.db, this.dialect, start);
  }
  finishInstance(finish: Finish, now: number): Promise<TransitionResult> {
    return transitions.finishInstance(this.db, this.dialect, finish, now);
  }
  cancelRun(runId: number, reason: string, queuedRoots: Settlement['queuedRoots'], now: number): Promise<TransitionResult> {
    return transitions.cancelRun(this.db, this.dialect, runId, reason, queuedRoots, now);
  }
  settleRun(runId: number, settlement: Settlement, now: number): Promise<TransitionResult> {
    return transitions.settleRun(this.db, this.dialect, runId, settlement, now);
  }
  getRun(id: number): Promise<RunRecord | undefined> {
    return runs.getRun(this.db, id);
  }
  listRuns(filter: RunFilter): Promise<RunRecord[]> {
    return runs.listRuns(this.db, filter);
  }
  transitionRun(id: number, from: RunState[], to: RunState, patch: { reason?: string; startedAt?: number; finishedAt?: number | null }): Promise<boolean> {
    return runs.transitionRun(this.db, id, from, to, patch);
  }

  createInstance(instance: NewInstance): Promise<InstanceRecord | undefined> {
    return runs.createInstance(this.db, instance);
  }
  getInstance(id: number): Promise<InstanceRecord | undefined> {
    return runs.getInstance(this.db, id);
  }
  listInstances(runId: number): Promise<InstanceRecord[]> {
    return runs.listInstances(this.db, runId);
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
  transitionInstance(id: number, guard: InstanceGuard, to: InstanceState | undefined, patch: InstancePatch): Promise<boolean> {
    // SQLite: one commit for the RUNNING and pid writes of a turn (group-commit.ts).
    if (this.dialect === 'sqlite') return groupCommit(this.db, (trx) => runs.transitionInstance(trx, id, guard, to, patch));
    return runs.transitionInstance(this.db, id, guard, to, patch);
  }
  claimDueInstances(workerId: string, candidates: ClaimCandidate[], now: number): Promise<number[]> {
    return claimDueInstances(this.db, this.dialect, workerId, candidates, now);
  }
  async cancelledAmong(ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('task_instance').select('id').where('id', 'in', ids).where('state', '=', 'CANCELLED').execute();
    return rows.map((r) => r.id);
  }
  unhandledFinished(limit: number): Promise<InstanceRecord[]> {
    return runs.unhandledFinished(this.db, limit);
  }
  pendingInstanceCount(runId: number): Promise<number> {
    return runs.pendingInstanceCount(this.db, runId);
  }
  deleteInstances(ids: number[]): Promise<void> {
    return runs.deleteInstances(this.db, ids);
  }
  holdInstance(instanceId: number, waits: UpstreamWaitDraft[], now: number): Promise<InstanceRecord | undefined> {
    return waits_.holdInstance(this.db, this.dialect, instanceId, waits, now);
  }
  expiredWaits(now: number, limit: number): Promise<WaiterNotice[]> {
    return waits_.expiredWaits(this.db, now, limit);
  }
  crossDependencies(filter: { upstreamWorkflow?: string; workflow?: string }): Promise<CrossDependencyRow[]> {
    return wf.crossDependencies(this.db, filter);
  }
  async activeCountByWorker(): Promise<Map<string, number>> {
    const { rows } = await memoQuery(
      this.db,
      'active-count-by-worker',
      (d) =>
        d
          .selectFrom('task_instance')
          .select(['worker_id', (eb) => eb.fn.countAll<number>().as('n')])
          .where('state', 'in', ['DISPATCHED', 'RUNNING'])
          .groupBy('worker_id'),
      [],
    );
    return new Map(rows.filter((r) => r.worker_id !== null).map((r) => [r.worker_id as string, Number(r.n)]));
  }
  recordTaskHeartbeats(workerId: string, beats: { instanceId: number; attempt: number; at: number }[]): Promise<Set<number>> {
    return runs.recordTaskHeartbeats(this.db, workerId, beats);
  }

  appendLogs(lines: LogLine[]): Promise<void> {
    return insertLogs(this.db, lines);
  }
  async readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]> {
    const rows = await this.db
      .selectFrom('execution_log')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(logFromRow);
  }
  async purgeLogs(before: number): Promise<number> {
    const res = await this.db.deleteFrom('execution_log').where('ts', '<', before).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  logExtent(instanceId: number): Promise<{ firstSeq: number; lastSeq: number; lines: number }> {
    return views.logExtent(this.db, instanceId);
  }
  searchLog(instanceId: number, query: string, afterSeq: number, limit: number, untilSeq?: number): Promise<LogLine[]> {
    return views.searchLog(this.db, instanceId, query, afterSeq, limit, untilSeq);
  }
  instancesOfRuns(runIds: number[]): Promise<InstanceRecord[]> {
    return views.instancesOfRuns(this.db, runIds);
  }
  finalFailures(runIds: number[]): Promise<InstanceRecord[]> {
    return views.finalFailures(this.db, runIds);
  }
  instancesFinishedSince(states: InstanceState[], since: number, limit: number): Promise<InstanceRecord[]> {
    return views.instancesFinishedSince(this.db, states, since, limit);
  }
  runsFinishedSince(since: number): Promise<Partial<Record<RunState, number>>> {
    return views.runsFinishedSince(this.db, since);
  }
  latestAttempts(keys: { runId: number; taskId: number }[]): Promise<InstanceRecord[]> {
    return views.latestAttempts(this.db, keys);
  }
  runningCountByWorker(): Promise<Map<string, number>> {
    return views.runningCountByWorker(this.db);
  }
  countInstances(states: InstanceState[], opts?: { queuedOnly?: boolean }): Promise<number> {
    return views.countInstances(this.db, states, opts);
  }
  countRuns(states: RunState[]): Promise<number> {
    return views.countRuns(this.db, states);
  }
  searchTasks(query: string, limit: number): Promise<TaskSearchRow[]> {
    return views.searchTasks(this.db, query, limit);
  }
  recentRuntimes(workflowId: number, limit: number): Promise<TaskRuntime[]> {
    return views.recentRuntimes(this.db, workflowId, limit);
  }

  async upsertWorker(worker: WorkerRecord): Promise<void> {
    const row = workerToRow(worker);
    const { id: _id, ...rest } = row;
    const updated = await this.db.updateTable('worker').set(rest).where('id', '=', worker.id).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      try {
        await this.db.insertInto('worker').values(row).execute();
      } catch (err) {
        if (!runs.isUniqueViolation(err)) throw err;
        await this.db.updateTable('worker').set(rest).where('id', '=', worker.id).execute();
      }
    }
  }
  async listWorkers(): Promise<WorkerRecord[]> {
    return (await this.db.selectFrom('worker').selectAll().orderBy('id').execute()).map(workerFromRow);
  }
  async getWorker(id: string): Promise<WorkerRegistration | undefined> {
    const row = await this.db.selectFrom('worker').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? { ...workerFromRow(row), claim: row.claim ?? undefined } : undefined;
  }
  async claimWorker(worker: WorkerRecord, claim: string, previous: string | null | undefined): Promise<boolean> {
    const row = { ...workerToRow(worker), claim };
    if (previous === undefined) {
      try {
        await this.db.insertInto('worker').values(row).execute();
        return true;
      } catch (err) {
        if (runs.isUniqueViolation(err)) return false;
        throw err;
      }
    }
    const { id: _id, ...rest } = row;
    // Compare-and-set on the claim seen: of two nodes taking over one stale id, one wins.
    const res = await this.db
      .updateTable('worker')
      .set(rest)
      .where('id', '=', worker.id)
      .where((eb) => (previous === null ? eb('claim', 'is', null) : eb('claim', '=', previous)))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
  async beatWorker(worker: WorkerRecord, claim: string): Promise<boolean> {
    const { id: _id, ...rest } = workerToRow(worker);
    const res = await this.db.updateTable('worker').set(rest).where('id', '=', worker.id).where('claim', '=', claim).executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) return true;
    // No row at all (removed by hand, a fresh database): the id is free, so it is ours again.
    return (await this.getWorker(worker.id)) === undefined && this.claimWorker(worker, claim, undefined);
  }

  async audit(entry: Omit<AuditEntry, 'id'>): Promise<void> {
    await this.db.insertInto('audit_log').values({ ...entry, detail: entry.detail ?? null, note: entry.note ?? null }).execute();
  }
  async listAudit(limit: number): Promise<AuditEntry[]> {
    const rows = await this.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({ id: r.id, at: num(r.at), actor: r.actor, action: r.action, object: r.object, detail: r.detail ?? undefined, note: r.note }));
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

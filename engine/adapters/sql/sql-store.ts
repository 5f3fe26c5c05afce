// The Store port over Kysely: one implementation for every SQL dialect. Dialect-specific code
// lives only in the openers (sqlite-store.ts) and migrations.ts.
import type { Kysely } from 'kysely';
import type { AuditEntry, InstanceRecord, InstanceState, LogLine, RunRecord, RunState, WorkerRecord, WorkflowSpec, WorkflowSummary } from '../../api/types.ts';
import type { ApplyResult, InstanceGuard, InstancePatch, NewInstance, NewRun, RunFilter, ScheduleRecord, Store, WorkflowGraph } from '../../ports/store.ts';
import { chunks, logFromRow, num, workerFromRow, workerToRow } from './rows.ts';
import * as runs from './run-queries.ts';
import type { Database } from './schema.ts';
import * as wf from './workflow-queries.ts';

export class SqlStore implements Store {
  constructor(
    readonly db: Kysely<Database>,
    private readonly onClose: () => Promise<void> = () => db.destroy(),
  ) {}

  close(): Promise<void> {
    return this.onClose();
  }

  applyWorkflow(spec: WorkflowSpec, now: number): Promise<ApplyResult> {
    return wf.applyWorkflow(this.db, spec, now);
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

  createRun(run: NewRun): Promise<RunRecord | undefined> {
    return runs.createRun(this.db, run);
  }
  getRun(id: number): Promise<RunRecord | undefined> {
    return runs.getRun(this.db, id);
  }
  listRuns(filter: RunFilter): Promise<RunRecord[]> {
    return runs.listRuns(this.db, filter);
  }
  transitionRun(id: number, from: RunState[], to: RunState, patch: { reason?: string; startedAt?: number; finishedAt?: number }): Promise<boolean> {
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
    return runs.transitionInstance(this.db, id, guard, to, patch);
  }
  markHandled(id: number): Promise<void> {
    return runs.markHandled(this.db, id);
  }
  unhandledFinished(limit: number): Promise<InstanceRecord[]> {
    return runs.unhandledFinished(this.db, limit);
  }
  succeededTasks(runId: number, taskIds: number[]): Promise<Set<number>> {
    return runs.succeededTasks(this.db, runId, taskIds);
  }
  pendingInstanceCount(runId: number): Promise<number> {
    return runs.pendingInstanceCount(this.db, runId);
  }
  deleteInstances(ids: number[]): Promise<void> {
    return runs.deleteInstances(this.db, ids);
  }
  async activeCountByWorker(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('task_instance')
      .select(['worker_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', 'in', ['DISPATCHED', 'RUNNING'])
      .groupBy('worker_id')
      .execute();
    return new Map(rows.filter((r) => r.worker_id !== null).map((r) => [r.worker_id as string, Number(r.n)]));
  }
  recordTaskHeartbeats(workerId: string, beats: { instanceId: number; attempt: number; at: number }[]): Promise<Set<number>> {
    return runs.recordTaskHeartbeats(this.db, workerId, beats);
  }

  async appendLogs(lines: LogLine[]): Promise<void> {
    if (lines.length === 0) return;
    const rows = lines.map((l) => ({ instance_id: l.instanceId, seq: l.seq, stream: l.stream, ts: l.ts, line: l.line }));
    // One transaction per batch: the seed's lesson is that row-at-a-time inserts saturate the DB.
    await this.db.transaction().execute(async (trx) => {
      for (const part of chunks(rows, 1000)) await trx.insertInto('execution_log').values(part).execute();
    });
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

  async audit(entry: Omit<AuditEntry, 'id'>): Promise<void> {
    await this.db.insertInto('audit_log').values({ ...entry, detail: entry.detail ?? null }).execute();
  }
  async listAudit(limit: number): Promise<AuditEntry[]> {
    const rows = await this.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit).execute();
    return rows.map((r) => ({ id: r.id, at: num(r.at), actor: r.actor, action: r.action, object: r.object, detail: r.detail ?? undefined }));
  }
}

// The read half of the EngineApi: what the CLI's and the UI's screens read (listings, a run, its
// logs, validation with this node's own warnings, previews, engineInfo), over the parts
// engine-wiring.ts built. The Engine (engine.ts) extends it with the life cycle and the commands.
import type {
  DashboardSummary,
  EngineInfo,
  FirePreview,
  LineageGraph,
  LogInfo,
  LogSearchHit,
  RunDetail,
  RunGrid,
  RunFilter,
  RunListing,
  SearchHit,
  TaskStats,
  ValidationReport,
  WorkflowListing,
} from '../api/engine-api.ts';
import type { AlertChannelInfo, AlertFilter, AlertRecord } from '../api/alerts.ts';
import type { CalendarQuery, DurationTrends, RunCalendar, RunWait } from '../api/run-views.ts';
import type { CrontabImportRequest, ImportReport } from '../api/import-report.ts';
import { AxError } from '../api/errors.ts';
import type { EngineEvent, Topic } from '../api/events.ts';
import type { AuditEntry, InstanceRecord, LogLine, WorkerRecord, WorkflowSpec } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type { EngineMetrics } from '../ports/metrics.ts';
import type { Store } from '../ports/store.ts';
import type { AlertCenter } from './alerts/alert-center.ts';
import type { EngineConfig } from './model/config.ts';
import type { EngineDeps } from './engine-deps.ts';
import type { EngineParts } from './engine-wiring.ts';
import { type CrontabImportContext, previewCrontabImport } from './import/crontab-service.ts';
import { lineage } from './workflow/lineage.ts';
import { runCalendar } from './runs/run-calendar.ts';
import { durationTrends } from './duration-trends.ts';
import { taskOrder } from './model/dag.ts';
import type { SecretMask } from './secrets/secret-mask.ts';
import { environmentWarnings } from './workflow/spec-warnings.ts';
import { clamp, type EngineViews } from './read-models.ts';
import type { Worker } from './execution/worker.ts';
import { inTaskOrder, type WorkflowCache } from './workflow/workflow-cache.ts';

export class EngineReads {
  readonly config: EngineConfig;
  readonly store: Store;
  readonly coordinator: Coordinator;
  readonly worker: Worker | undefined;
  /** the counters and the exporter of GET /metrics (see ports/metrics.ts); alert channels count their deliveries here */
  readonly metrics: EngineMetrics;
  /** every text that leaves the engine goes through it (secret-mask.ts) */
  readonly secretMask: SecretMask;
  /** the host's deps as the parts use them: the store masked, the worker's secrets watched */
  protected readonly deps: EngineDeps;
  protected readonly clock: Clock;
  protected readonly workflows: WorkflowCache;
  protected readonly views: EngineViews;
  protected readonly alerts: AlertCenter;
  protected readonly workflowId: (name: string) => Promise<number>;

  constructor(protected readonly parts: EngineParts) {
    ({
      deps: this.deps,
      config: this.config,
      store: this.store,
      coordinator: this.coordinator,
      worker: this.worker,
      metrics: this.metrics,
    } = parts);
    ({
      secretMask: this.secretMask,
      clock: this.clock,
      workflows: this.workflows,
      views: this.views,
      alerts: this.alerts,
      workflowId: this.workflowId,
    } = parts);
  }

  /** what a crontab import converts with: this engine's time, zone and task user */
  protected importContext(): CrontabImportContext {
    return { now: this.clock.now(), zone: this.deps.zone(), taskUser: this.deps.taskUser };
  }

  async previewCrontabImport(request: CrontabImportRequest): Promise<ImportReport> {
    return previewCrontabImport(request, this.importContext());
  }

  subscribe(topics: Topic[], handler: (event: EngineEvent) => void): Promise<() => void> {
    return this.parts.live.subscribe(topics, handler);
  }

  async exportWorkflow(name: string): Promise<WorkflowSpec> {
    const spec = await this.store.getWorkflowSpec(name);
    if (!spec) await this.workflowId(name);
    return spec as WorkflowSpec;
  }

  listWorkflows(): Promise<WorkflowListing[]> {
    return this.views.listWorkflows();
  }

  async listRuns(filter: RunFilter): Promise<RunListing[]> {
    const runs = await this.store.listRuns({
      workflowName: filter?.workflow,
      states: filter?.states,
      owner: filter?.owner,
      triggers: filter?.triggers,
      createdFrom: filter?.from,
      createdTo: filter?.to,
      limit: clamp(filter?.limit, 1, 1000, 50),
      beforeId: filter?.beforeId,
    });
    const failed = runs.filter((r) => r.state === 'FAILED').map((r) => r.id);
    const first = new Map<number, InstanceRecord>();
    for (const i of await this.store.finalFailures(failed)) if (!first.has(i.runId)) first.set(i.runId, i);
    return runs.map((r) => {
      const i = first.get(r.id);
      return i
        ? {
            ...r,
            failure: {
              task: i.taskName,
              instanceId: i.id,
              attempt: i.attempt,
              state: i.state,
              reason: i.reason,
              ...(i.reasonCode && { reasonCode: i.reasonCode }),
            },
          }
        : r;
    });
  }

  async getRun(runId: number): Promise<RunDetail> {
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    const [instances, workflow] = await Promise.all([
      this.store.listInstances(runId),
      this.workflows.get(run.workflowId),
    ]);
    return { run, instances: inTaskOrder(instances, workflow) };
  }

  async getInstance(instanceId: number): Promise<InstanceRecord> {
    const inst = await this.store.getInstance(instanceId);
    if (!inst)
      throw new AxError('not_found', `no task instance ${instanceId}: instance ids are shown by "ax runs RUN_ID"`);
    return inst;
  }

  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]> {
    return this.store.readLogs(instanceId, clamp(afterSeq, 0, Number.MAX_SAFE_INTEGER, 0), clamp(limit, 1, 10_000, 1));
  }

  logInfo(instanceId: number): Promise<LogInfo> {
    return this.views.logInfo(instanceId);
  }

  searchLog(
    instanceId: number,
    query: string,
    options: { afterSeq?: number; limit?: number },
  ): Promise<LogSearchHit[]> {
    return this.views.searchLog(instanceId, query, options);
  }

  /** A file's problems, then what would keep a valid one from running here (see spec-warnings). */
  async validate(input: { spec?: WorkflowSpec; text?: string; file?: string }): Promise<ValidationReport> {
    const report = this.views.validate(input);
    if (!report.ok || !report.spec) return report;
    const mode = this.deps.hostInfo?.mode ?? 'solo';
    const secrets = mode === 'solo' ? this.deps.worker?.secrets : undefined;
    const channels = mode === 'solo' ? this.alerts.listChannels().map((c) => c.name) : undefined;
    const more = environmentWarnings(
      report.spec,
      await this.listWorkers(),
      mode,
      this.deps.checkCwd,
      input?.file,
      secrets,
      channels,
    );
    return { ...report, warnings: [...report.warnings, ...more] };
  }

  async formatWorkflow(spec: WorkflowSpec): Promise<string> {
    return this.views.formatWorkflow(spec);
  }

  async nextFires(schedule: { cron: string; timezone?: string }, count: number): Promise<FirePreview> {
    return this.views.nextFires(schedule, count);
  }

  runGrid(workflow: string, page: { limit?: number; beforeRunId?: number }): Promise<RunGrid> {
    return this.views.runGrid(workflow, page);
  }

  async dashboard(): Promise<DashboardSummary> {
    const [summary, pause] = await Promise.all([this.views.dashboard(), this.store.getSchedulingPause()]);
    return { ...summary, ...(pause && { schedulingPaused: pause }) };
  }

  search(query: string, limit?: number): Promise<SearchHit[]> {
    return this.views.search(query, limit);
  }

  lineage(target: string, options: { up?: number; down?: number } = {}): Promise<LineageGraph> {
    return lineage(this.store, this.clock, target, options);
  }

  // Issue 24's views across runs: declared here so every part builds; each is replaced by its part.
  runCalendar(query: CalendarQuery): Promise<RunCalendar> {
    return runCalendar(this.store, query, this.deps.zone());
  }

  async durationTrends(workflow: string, options?: { lastRuns?: number }): Promise<DurationTrends> {
    const id = await this.workflowId(workflow);
    const [spec, rows] = await Promise.all([
      this.store.getWorkflowSpec(workflow),
      this.store.finishedRunDurations(id, clamp(options?.lastRuns, 1, 500, 50)),
    ]);
    return durationTrends(workflow, spec ? taskOrder(spec.tasks) : [], rows);
  }

  async runWaits(runId: number): Promise<RunWait[]> {
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    return this.store.runWaits(runId);
  }

  taskStats(workflow: string): Promise<TaskStats[]> {
    return this.views.taskStats(workflow);
  }

  async engineInfo(): Promise<EngineInfo> {
    const c = this.config;
    const pause = await this.store.getSchedulingPause();
    return {
      ...(pause && { schedulingPaused: pause }),
      version: '',
      mode: 'solo',
      role: 'solo',
      settings: {},
      ...this.deps.hostInfo,
      nodeId: this.deps.nodeId,
      workerId: this.worker?.id,
      maxConcurrency: this.worker ? (this.deps.worker?.maxConcurrency ?? c.maxConcurrency) : undefined,
      timezone: this.deps.zone(),
      logRetentionDays: Math.round(c.logRetentionMs / 86_400_000),
      workerHeartbeatMs: c.workerHeartbeatMs,
      taskHeartbeatMs: c.taskHeartbeatMs,
      queueAlertThreshold: c.queueAlertThreshold,
    };
  }

  listWorkers(options?: { schedulers?: boolean }): Promise<WorkerRecord[]> {
    return this.views.listWorkers(options);
  }

  listAudit(limit: number): Promise<AuditEntry[]> {
    return this.store.listAudit(limit);
  }

  listAlerts(filter: AlertFilter): Promise<AlertRecord[]> {
    return this.store.listAlerts({ ...filter, limit: clamp(filter?.limit, 1, 1000, 100) });
  }

  async listAlertChannels(): Promise<AlertChannelInfo[]> {
    return this.alerts.listChannels();
  }

  /** Resolves once every alert raised so far is recorded and delivered or failed (tests). */
  alertsIdle(): Promise<void> {
    return this.alerts.idle();
  }
}

// The engine: scheduler + embedded worker over the ports (built and connected by
// engine-wiring.ts), and the EngineApi that every client uses. `start()` runs the loops; without
// it the engine still answers the API (the CLI's direct mode on a data dir no engine is running on).
import type {
  ApplyOutcome,
  CatchUpReport,
  DashboardSummary,
  DrainAnswer,
  EngineApi,
  EngineInfo,
  FirePreview,
  LineageGraph,
  LogInfo,
  LogSearchHit,
  RunDetail,
  RunListing,
  RunGrid,
  SchedulingChange,
  SearchHit,
  TaskStats,
  ValidationReport,
  WorkflowListing,
} from '../api/engine-api.ts';
import { type Actor, actorName, actorNote } from '../api/actor.ts';
import type { AlertChannelInfo, AlertFilter, AlertRecord } from '../api/alerts.ts';
import { AxError } from '../api/errors.ts';
import type { EngineEvent, Topic } from '../api/events.ts';
import type { AuditEntry, InstanceRecord, LogLine, RunRecord, RunState, WorkerRecord, WorkflowSpec } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import { type EngineMetrics, noMetrics } from '../ports/metrics.ts';
import type { ProcessRunner } from '../ports/process-runner.ts';
import type { Store } from '../ports/store.ts';
import type { AlertCenter } from './alerts/alert-center.ts';
import type { AlertRules } from './alerts/alert-rules.ts';
import { engineAlerts, type EngineAlertsDeps } from './alerts/engine-alerts.ts';
import { DEFAULT_CONFIG, type EngineConfig, workerLostAfterMs } from './config.ts';
import { wireEngine, type WiringDeps } from './engine-wiring.ts';
import type { LogWriter } from './log-writer.ts';
import { EventTriggers } from './event-triggers.ts';
import { checkPayload } from './payload.ts';
import { recoverOrphans, type RecoveryReport } from './recovery.ts';
import type { RunManager } from './run-manager.ts';
import type { Scheduler } from './scheduler.ts';
import { type CwdCheck, environmentWarnings } from './spec-warnings.ts';
import type { Worker } from './worker.ts';
import { checkAcrossWorkflows, lineage } from './lineage.ts';
import { LiveEvents } from './live-events.ts';
import { MetricsGauges } from './metrics-gauges.ts';
import { maskedStore } from './masked-store.ts';
import { NodePresenceBeat } from './node-presence.ts';
import { SecretMask } from './secret-mask.ts';
import { clamp, EngineViews, localTimezone } from './views.ts';
import { inTaskOrder, type WorkflowCache } from './workflow-cache.ts';
import { isCheckedSpec, parseWorkflowFile } from './workflow-file.ts';
import { serializeWorkflow } from './workflow-serialize.ts';

/** What the host knows and the engine does not: shown by engineInfo (the settings screen). */
export type HostInfo = Partial<Omit<EngineInfo, 'logRetentionDays' | 'workerHeartbeatMs' | 'taskHeartbeatMs' | 'queueAlertThreshold' | 'nodeId' | 'timezone' | 'schedulingPaused'>>;

export interface EngineDeps {
  store: Store;
  coordinator: Coordinator;
  runner: ProcessRunner;
  clock: Clock;
  config?: Partial<EngineConfig>;
  /** the embedded worker; omit for a scheduler-only or client-only engine */
  worker?: WiringDeps['worker'];
  /** identity of this engine for the leader lease */
  nodeId: string;
  /**
   * Where this engine runs: with it, a scheduler engine announces itself (see node-presence.ts)
   * so that `ax workers` lists it and can mark the leader. Team hosts give it.
   */
  node?: { host: string; pid: number; version: string };
  /** run the scheduler (cron, dispatch, backstops); false for worker-only and client nodes */
  runScheduler?: boolean;
  /**
   * What start-up recovery may claim: `all` in solo mode (this engine holds the data dir, so
   * every active instance is an orphan); `own` in team mode (only what this worker id left).
   */
  recovery?: 'all' | 'own';
  onAlert?: (message: string) => void;
  /** alert routing (settings.json `alerts`) and the channels built from it; none: alerts are recorded, not sent */
  alerts?: EngineAlertsDeps['alerts'];
  /** `ax drain` reached this node's worker */
  onDrainRequested?: () => void;
  /** host resources to release with the engine */
  onDispose?: () => void;
  /** mode, version, connections, data dir: for engineInfo */
  hostInfo?: HostInfo;
  /** solo hosts: whether a task's cwd can be entered here, for validate's warnings */
  checkCwd?: CwdCheck;
  /** what the engine counts and exports (GET /metrics); default: nothing */
  metrics?: EngineMetrics;
  /** the node's masking step (the host shares it with its alert channels); default one of the engine's own */
  secretMask?: SecretMask;
  /** the host's alert settings and channels read again (settings.json); none: they are fixed at start */
  reloadAlerts?: () => NonNullable<EngineAlertsDeps['alerts']>;
}

export class Engine implements EngineApi {
  readonly config: EngineConfig;
  readonly store: Store;
  readonly coordinator: Coordinator;
  private readonly clock: Clock;
  private readonly workflows: WorkflowCache;
  private readonly runs: RunManager;
  private readonly scheduler: Scheduler;
  private readonly logs: LogWriter;
  readonly worker: Worker | undefined;
  /** the counters and the exporter of GET /metrics (see ports/metrics.ts); alert channels count their deliveries here */
  readonly metrics: EngineMetrics;
  private readonly views: EngineViews;
  private readonly live: LiveEvents;
  private readonly events: EventTriggers;
  private readonly presence: NodePresenceBeat | undefined;
  private readonly alerts: AlertCenter;
  private readonly alertRules: AlertRules;
  private started = false;

  /** every text that leaves the engine goes through it (secret-mask.ts) */
  readonly secretMask: SecretMask;

  constructor(private readonly deps: EngineDeps) {
    this.config = { ...DEFAULT_CONFIG, ...deps.config };
    // One masking step for every secret the node resolves: the store keeps no text unmasked,
    // and the worker masks its tasks' lines before their cut (issue 20).
    const mask = (this.secretMask = deps.secretMask ?? new SecretMask());
    const worker = deps.worker && { ...deps.worker, secretMask: mask, ...(deps.worker.secrets && { secrets: mask.watch(deps.worker.secrets) }) };
    this.deps = deps = { ...deps, store: maskedStore(deps.store, (text) => mask.mask(text)), worker };
    this.store = deps.store;
    this.coordinator = deps.coordinator;
    this.clock = deps.clock;
    this.metrics = deps.metrics ?? noMetrics;
    ({ center: this.alerts, rules: this.alertRules } = engineAlerts({
      ...deps,
      config: this.config,
      scheduler: deps.runScheduler !== false,
      onError: deps.onAlert && ((message) => deps.onAlert?.(mask.mask(message))),
      mask: (text) => mask.mask(text),
      onDelivered: (channel, outcome) => this.metrics.alertDelivered(channel, outcome),
    }));
    const parts = wireEngine({ ...deps, config: this.config, alert: (message) => this.alert(message), alerts: this.alertRules, metrics: this.metrics });
    this.workflows = parts.workflows;
    this.runs = parts.runs;
    this.scheduler = parts.scheduler;
    this.logs = parts.logs;
    this.worker = parts.worker;
    this.views = new EngineViews(deps.store, deps.coordinator, deps.clock, (name) => this.workflowId(name), workerLostAfterMs(this.config));
    this.events = new EventTriggers(deps.store, deps.clock, this.runs, this.config.maxEventPayloadBytes, (...a) => this.audit(...a));
    const gauges = new MetricsGauges(deps.store, deps.coordinator, deps.clock, () => this.views.listWorkers());
    this.metrics.gaugesFrom(() => gauges.read());
    this.live = new LiveEvents(deps.coordinator, deps.clock, () => this.listWorkers(), this.config.workerHeartbeatMs);
    if (deps.node && deps.runScheduler !== false) {
      this.presence = new NodePresenceBeat(deps.coordinator, deps.clock, this.config.workerHeartbeatMs, {
        nodeId: deps.nodeId,
        ...deps.node,
        ...(deps.worker && { workerId: deps.worker.id }),
      });
    }
  }

  /**
   * The engine's free-text alerts go to live followers, to the host (stderr) and to the audit
   * log, and, as the `engine` rule, to the alert channels that ask for it.
   */
  private alert(raw: string): void {
    const message = this.secretMask.mask(raw);
    this.alertRules.engine(message);
    const at = this.clock.now();
    void this.coordinator.publish({ type: 'alert', message, at }).catch(() => undefined);
    const object = this.deps.worker ? `worker:${this.deps.worker.id}` : 'scheduler';
    void this.store.audit({ at, actor: this.deps.nodeId, action: 'alert', object, detail: message }).catch(() => undefined);
    this.deps.onAlert?.(message);
  }

  /** Recovers what a dead engine left, then starts the worker and the scheduler. */
  async start(): Promise<RecoveryReport> {
    const scope = this.deps.recovery ?? 'all';
    // Recovery acts on what this worker id left: only once the id is this process's (two nodes
    // under one id would otherwise kill each other's tasks here).
    await this.worker?.claim();
    const report =
      scope === 'all' || this.worker
        ? await recoverOrphans(this.store, this.deps.runner, this.runs, this.clock, this.config.killGraceMs, scope === 'own' ? this.worker?.id : undefined)
        : { failed: 0, requeued: 0, killed: 0 };
    await this.worker?.start();
    if (this.deps.runScheduler !== false) {
      await this.presence?.start();
      await this.scheduler.start();
    }
    this.alerts.start();
    this.started = true;
    return report;
  }

  /** Drain: no new fires or dispatches; running tasks get drainTimeoutMs; logs are flushed. */
  async stop(drainTimeoutMs = 30_000): Promise<void> {
    if (this.started) {
      await this.scheduler.stop();
      // Best effort: with Redis away the presence expires by its TTL.
      await this.presence?.stop().catch(() => undefined);
      await this.worker?.drain(drainTimeoutMs);
      await this.logs.flush();
      await this.alerts.stop();
      this.started = false;
    }
  }

  /** Closes the store and the coordinator (after stop()). */
  async dispose(): Promise<void> {
    this.live.close();
    await this.store.close();
    await this.coordinator.close();
    this.deps.runner.dispose?.();
    this.deps.onDispose?.();
  }

  subscribe(topics: Topic[], handler: (event: EngineEvent) => void): Promise<() => void> {
    return this.live.subscribe(topics, handler);
  }

  private publishWorkflow(change: 'applied' | 'enabled' | 'disabled' | 'removed', workflow: string): void {
    void this.coordinator.publish({ type: 'workflow', change, workflow, at: this.clock.now() }).catch(() => undefined);
  }

  private async audit(actor: Actor, action: string, object: string, detail?: string): Promise<void> {
    await this.store.audit({ at: this.clock.now(), actor: actorName(actor), note: actorNote(actor), action, object, detail });
  }

  private async workflowId(name: string): Promise<number> {
    const id = await this.store.findWorkflowId(name);
    if (id === undefined) throw new AxError('not_found', `no workflow named "${name}": see "ax ls" for the workflows there are`);
    return id;
  }

  async apply(input: WorkflowSpec, actor: Actor): Promise<ApplyOutcome> {
    // Whatever the client (CLI, UI, API), a spec passes the same checks as a file (one the
    // checks produced in this process has passed them).
    const spec = isCheckedSpec(input) ? input : parseWorkflowFile(serializeWorkflow(input), { file: `workflow ${input.name}`, defaultTimezone: 'UTC', fromSpec: true }).spec;
    // Across workflows: a cycle is refused; references that lead nowhere (yet) are warned about.
    const warnings = await checkAcrossWorkflows(this.store, spec, await this.store.getWorkflowSpec(spec.name));
    // The workflow and its audit entry are one transaction: a failed apply leaves neither.
    const res = await this.store.applyWorkflow(spec, this.clock.now(), actor);
    this.workflows.invalidate(res.workflowId);
    this.alerts.forget(spec.name);
    if (res.changed) this.publishWorkflow('applied', spec.name);
    if (this.started) void this.scheduler.tick();
    return { workflow: spec.name, version: res.version, changed: res.changed, ...(warnings.length > 0 && { warnings }) };
  }

  async exportWorkflow(name: string): Promise<WorkflowSpec> {
    const spec = await this.store.getWorkflowSpec(name);
    if (!spec) await this.workflowId(name);
    return spec as WorkflowSpec;
  }

  listWorkflows(): Promise<WorkflowListing[]> {
    return this.views.listWorkflows();
  }

  async setEnabled(name: string, enabled: boolean, actor: Actor): Promise<void> {
    if (!(await this.store.setWorkflowEnabled(name, enabled, this.clock.now()))) await this.workflowId(name);
    this.workflows.invalidate();
    await this.audit(actor, enabled ? 'workflow.enable' : 'workflow.disable', `workflow:${name}`);
    this.publishWorkflow(enabled ? 'enabled' : 'disabled', name);
  }

  async removeWorkflow(name: string, actor: Actor): Promise<void> {
    const id = await this.workflowId(name);
    const active = await this.store.listRuns({ workflowName: name, states: ['RUNNING'], limit: 1 });
    if (active[0]) throw new AxError('conflict', `workflow "${name}" has run #${active[0].id} in progress: wait for it (or disable the workflow) before removing it`);
    await this.store.removeWorkflow(name);
    this.workflows.invalidate(id);
    await this.audit(actor, 'workflow.remove', `workflow:${name}`);
    this.publishWorkflow('removed', name);
  }

  async runWorkflow(name: string, options: { task?: string; actor: Actor; payload?: string }): Promise<RunRecord> {
    checkPayload(options.payload, this.config.maxEventPayloadBytes);
    const workflowId = await this.workflowId(name);
    const run = await this.runs.startRun({
      workflowId,
      trigger: 'manual',
      triggeredBy: actorName(options.actor),
      logicalTime: this.clock.now(),
      onlyTask: options.task,
      eventPayload: options.payload,
      applyOverlap: false,
    });
    // A manual run always gets a row: none means the workflow (and its runs) went meanwhile.
    if (!run) throw new AxError('not_found', `workflow "${name}" was removed while its run was being created`);
    await this.audit(options.actor, 'run.manual', `workflow:${name}`, `run #${run.id}${options.task ? ` task ${options.task}` : ''}`);
    return run;
  }

  async rerunTask(runId: number, task: string, actor: Actor): Promise<RunDetail> {
    const instances = await this.runs.rerun(runId, task);
    await this.audit(actor, 'run.rerun', `run:${runId}`, `task ${task} and its downstream`);
    return { run: (await this.store.getRun(runId)) as RunRecord, instances };
  }

  async cancelRun(runId: number, options: { task?: string; actor: Actor }): Promise<RunDetail> {
    const what = options.task === undefined ? `run #${runId}` : `task "${options.task}" of run #${runId}`;
    const instances = await this.runs.cancel(runId, options.task, `cancelled by ${actorName(options.actor)}`);
    // This node's own worker stops its processes at once; other workers at their next heartbeat.
    for (const i of instances) if (i.state === 'CANCELLED' && this.worker && i.workerId === this.worker.id) this.worker.stopCancelled(i.id);
    await this.audit(options.actor, 'run.cancel', `run:${runId}`, what);
    return { run: (await this.store.getRun(runId)) as RunRecord, instances };
  }

  trigger(event: string, payload: string | undefined, actor: Actor, key?: string): Promise<RunRecord[]> {
    return this.events.trigger(event, payload, actor, key);
  }

  async setSchedulingPaused(paused: boolean, actor: Actor): Promise<SchedulingChange> {
    const at = this.clock.now();
    const changed = await this.store.setSchedulingPause(paused, at, actor);
    const pause = await this.store.getSchedulingPause();
    if (changed) void this.coordinator.publish({ type: 'scheduling', paused, ...(pause && { since: pause.since }), by: actorName(actor), at }).catch(() => undefined);
    // Resumed: the fires held back are dealt with now (on the leader; elsewhere at its next tick).
    if (changed && !paused && this.started) void this.scheduler.tick();
    return { changed, ...(pause && { paused: pause }) };
  }

  async catchUpSchedules(): Promise<CatchUpReport> {
    const scan = this.started && this.deps.runScheduler !== false ? await this.scheduler.catchUp() : undefined;
    if (scan) return { scanned: true, ...scan };
    return { scanned: false, paused: (await this.store.getSchedulingPause()) !== undefined, fired: 0, dropped: 0 };
  }

  async listRuns(filter: { workflow?: string; states?: RunState[]; limit?: number; beforeId?: number }): Promise<RunListing[]> {
    const runs = await this.store.listRuns({ workflowName: filter?.workflow, states: filter?.states, limit: clamp(filter?.limit, 1, 1000, 50), beforeId: filter?.beforeId });
    const failed = runs.filter((r) => r.state === 'FAILED').map((r) => r.id);
    const first = new Map<number, InstanceRecord>();
    for (const i of await this.store.finalFailures(failed)) if (!first.has(i.runId)) first.set(i.runId, i);
    return runs.map((r) => {
      const i = first.get(r.id);
      return i ? { ...r, failure: { task: i.taskName, instanceId: i.id, attempt: i.attempt, state: i.state, reason: i.reason } } : r;
    });
  }

  async getRun(runId: number): Promise<RunDetail> {
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    const [instances, workflow] = await Promise.all([this.store.listInstances(runId), this.workflows.get(run.workflowId)]);
    return { run, instances: inTaskOrder(instances, workflow) };
  }

  async getInstance(instanceId: number): Promise<InstanceRecord> {
    const inst = await this.store.getInstance(instanceId);
    if (!inst) throw new AxError('not_found', `no task instance ${instanceId}: instance ids are shown by "ax runs RUN_ID"`);
    return inst;
  }

  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]> {
    return this.store.readLogs(instanceId, clamp(afterSeq, 0, Number.MAX_SAFE_INTEGER, 0), clamp(limit, 1, 10_000, 1));
  }

  logInfo(instanceId: number): Promise<LogInfo> {
    return this.views.logInfo(instanceId);
  }

  searchLog(instanceId: number, query: string, options: { afterSeq?: number; limit?: number }): Promise<LogSearchHit[]> {
    return this.views.searchLog(instanceId, query, options);
  }

  /** A file's problems, then what would keep a valid one from running here (see spec-warnings). */
  async validate(input: { spec?: WorkflowSpec; text?: string; file?: string }): Promise<ValidationReport> {
    const report = this.views.validate(input);
    if (!report.ok || !report.spec) return report;
    const mode = this.deps.hostInfo?.mode ?? 'solo';
    const secrets = mode === 'solo' ? this.deps.worker?.secrets : undefined;
    const channels = mode === 'solo' ? this.alerts.listChannels().map((c) => c.name) : undefined;
    const more = environmentWarnings(report.spec, await this.listWorkers(), mode, this.deps.checkCwd, input?.file, secrets, channels);
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
      maxConcurrency: this.worker ? this.deps.worker?.maxConcurrency ?? c.maxConcurrency : undefined,
      timezone: localTimezone(),
      logRetentionDays: Math.round(c.logRetentionMs / 86_400_000),
      workerHeartbeatMs: c.workerHeartbeatMs,
      taskHeartbeatMs: c.taskHeartbeatMs,
      queueAlertThreshold: c.queueAlertThreshold,
    };
  }

  listWorkers(options?: { schedulers?: boolean }): Promise<WorkerRecord[]> {
    return this.views.listWorkers(options);
  }

  async drainWorker(workerId: string, actor: Actor): Promise<DrainAnswer> {
    const live = await this.coordinator.listWorkers();
    if (!live.some((w) => w.id === workerId)) {
      throw new AxError('not_found', `no live worker "${workerId}": live workers are ${live.map((w) => w.id).join(', ') || 'none'}`);
    }
    await this.coordinator.requestDrain(workerId);
    await this.audit(actor, 'worker.drain', `worker:${workerId}`);
    return { workerId, running: (await this.store.runningCountByWorker()).get(workerId) ?? 0 };
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

  testAlertChannel(channel: string, actor: Actor): Promise<AlertRecord> {
    return this.alerts.test(channel, actorName(actor));
  }

  /** Resolves once every alert raised so far is recorded and delivered or failed (tests). */
  /** Reads the host's alert settings again (SIGHUP on a service); what was reloaded, in words. Throws on a bad file, keeping the old ones. */
  reloadSettings(): string {
    if (!this.deps.reloadAlerts) return 'nothing: this engine has no settings to reload';
    const { settings, channels } = this.deps.reloadAlerts();
    this.alerts.reconfigure(settings, channels);
    return `alerts: ${channels.length} channel(s)${channels.length ? ` (${channels.map((c) => c.name).join(', ')})` : ''}`;
  }

  alertsIdle(): Promise<void> {
    return this.alerts.idle();
  }
}

// The engine: scheduler + embedded worker over the ports, and the EngineApi that every client
// uses. `start()` runs the loops; without it the engine still answers the API (the CLI's direct
// mode on a data dir no engine is running on).
import type { ApplyOutcome, EngineApi, RunDetail, WorkflowListing } from '../api/engine-api.ts';
import { AxError } from '../api/errors.ts';
import type { AuditEntry, InstanceRecord, LogLine, RunRecord, RunState, WorkerRecord, WorkflowSpec } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator, EngineEvent } from '../ports/coordinator.ts';
import { instanceEvent } from './events.ts';
import type { ProcessRunner } from '../ports/process-runner.ts';
import type { Store } from '../ports/store.ts';
import { DEFAULT_CONFIG, type EngineConfig, workerLostAfterMs } from './config.ts';
import { describeCron, nextFire } from './cron.ts';
import { Dispatcher } from './dispatcher.ts';
import { LogWriter } from './log-writer.ts';
import { recoverOrphans, type RecoveryReport } from './recovery.ts';
import { Router } from './routing.ts';
import { RunManager } from './run-manager.ts';
import { Scheduler } from './scheduler.ts';
import { Worker, type WorkerOptions } from './worker.ts';
import { WorkflowCache } from './workflow-cache.ts';
import { parseWorkflowFile, serializeWorkflow } from './workflow-file.ts';

export interface EngineDeps {
  store: Store;
  coordinator: Coordinator;
  runner: ProcessRunner;
  clock: Clock;
  config?: Partial<EngineConfig>;
  /** the embedded worker; omit for a scheduler-only or client-only engine */
  worker?: Omit<WorkerOptions, 'workerHeartbeatMs' | 'taskHeartbeatMs' | 'killGraceMs' | 'maxLineBytes' | 'maxConcurrency'> & { maxConcurrency?: number };
  /** identity of this engine for the leader lease */
  nodeId: string;
  /** run the scheduler (cron, dispatch, backstops); false for worker-only and client nodes */
  runScheduler?: boolean;
  /**
   * What start-up recovery may claim: `all` in solo mode (this engine holds the data dir, so
   * every active instance is an orphan); `own` in team mode (only what this worker id left).
   */
  recovery?: 'all' | 'own';
  onAlert?: (message: string) => void;
  /** `ax drain` reached this node's worker */
  onDrainRequested?: () => void;
  /** host resources to release with the engine */
  onDispose?: () => void;
}

export class Engine implements EngineApi {
  readonly config: EngineConfig;
  readonly store: Store;
  readonly coordinator: Coordinator;
  private readonly clock: Clock;
  private readonly workflows: WorkflowCache;
  private readonly runs: RunManager;
  private readonly dispatcher: Dispatcher;
  private readonly scheduler: Scheduler;
  private readonly logs: LogWriter;
  readonly worker: Worker | undefined;
  private started = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: EngineDeps) {
    this.config = { ...DEFAULT_CONFIG, ...deps.config };
    this.store = deps.store;
    this.coordinator = deps.coordinator;
    this.clock = deps.clock;
    const alert = (message: string) => this.alert(message);
    this.workflows = new WorkflowCache(deps.store, () => deps.clock.now());
    // Only the leading scheduler dispatches. Anyone else (a client creating a run, a worker
    // advancing one) publishes the new WAITING instances; the leader hears them and dispatches.
    this.runs = new RunManager(deps.store, deps.coordinator, this.workflows, deps.clock, () => this.scheduler.kick());
    this.dispatcher = new Dispatcher(
      deps.store,
      deps.coordinator,
      this.workflows,
      deps.clock,
      new Router(),
      { staleAfterMs: workerLostAfterMs(this.config), queueAlertThreshold: this.config.queueAlertThreshold, batch: 500 },
      (id, taskName, runId, attempt) =>
        void deps.coordinator.publish(instanceEvent({ id, runId, taskName, attempt, state: 'DISPATCHED' }, deps.clock.now())).catch(() => undefined),
    );
    this.scheduler = new Scheduler(deps.store, deps.coordinator, this.runs, this.dispatcher, this.workflows, deps.clock, this.config, deps.nodeId, alert, () =>
      this.worker?.record(),
    );
    this.logs = new LogWriter(deps.store, deps.clock, {
      batchLines: this.config.logBatchLines,
      flushMs: this.config.logFlushMs,
      maxOutputBytes: this.config.maxOutputBytes,
    });
    if (deps.worker) {
      const c = this.config;
      this.worker = new Worker(
        deps.store,
        deps.coordinator,
        deps.runner,
        this.logs,
        this.workflows,
        deps.clock,
        {
          ...deps.worker,
          maxConcurrency: deps.worker.maxConcurrency ?? c.maxConcurrency,
          workerHeartbeatMs: c.workerHeartbeatMs,
          taskHeartbeatMs: c.taskHeartbeatMs,
          killGraceMs: c.killGraceMs,
          maxLineBytes: c.maxLineBytes,
          onDrainRequested: deps.onDrainRequested,
        },
        (inst) => void this.scheduler.onFinished(inst).catch((err: unknown) => this.alert(String(err))),
        alert,
      );
    }
  }

  /** Alerts go to live followers, to the host (stderr, notifications) and to the audit log. */
  private alert(message: string): void {
    const at = this.clock.now();
    void this.coordinator.publish({ type: 'alert', message, at }).catch(() => undefined);
    void this.store.audit({ at, actor: this.deps.nodeId, action: 'alert', object: this.worker ? `worker:${this.worker.id}` : 'scheduler', detail: message }).catch(() => undefined);
    this.deps.onAlert?.(message);
  }

  /** Recovers what a dead engine left, then starts the worker and the scheduler. */
  async start(): Promise<RecoveryReport> {
    const scope = this.deps.recovery ?? 'all';
    const report =
      scope === 'all' || this.worker
        ? await recoverOrphans(this.store, this.deps.runner, this.runs, this.clock, this.config.killGraceMs, scope === 'own' ? this.worker?.id : undefined)
        : { failed: 0, requeued: 0, killed: 0 };
    await this.worker?.start();
    if (this.deps.runScheduler !== false) {
      this.unsubscribe = await this.coordinator.subscribe((e) => {
        if (e.type === 'instance' && e.state === 'WAITING') this.scheduler.kick();
      });
      await this.scheduler.start();
    }
    this.started = true;
    return report;
  }

  /** Drain: no new fires or dispatches; running tasks get drainTimeoutMs; logs are flushed. */
  async stop(drainTimeoutMs = 30_000): Promise<void> {
    if (this.started) {
      this.unsubscribe?.();
      await this.scheduler.stop();
      await this.worker?.drain(drainTimeoutMs);
      await this.logs.flush();
      this.started = false;
    }
  }

  /** Closes the store and the coordinator (after stop()). */
  async dispose(): Promise<void> {
    await this.store.close();
    await this.coordinator.close();
    this.deps.onDispose?.();
  }

  subscribe(handler: (event: EngineEvent) => void): Promise<() => void> {
    return this.coordinator.subscribe(handler);
  }

  private async audit(actor: string, action: string, object: string, detail?: string): Promise<void> {
    await this.store.audit({ at: this.clock.now(), actor, action, object, detail });
  }

  private async workflowId(name: string): Promise<number> {
    const id = await this.store.findWorkflowId(name);
    if (id === undefined) throw new AxError('not_found', `no workflow named "${name}": see "ax ls" for the workflows there are`);
    return id;
  }

  async apply(input: WorkflowSpec, actor: string): Promise<ApplyOutcome> {
    // Whatever the client (CLI, UI, API), a spec passes the same checks as a file.
    const spec = parseWorkflowFile(serializeWorkflow(input), { file: `workflow ${input.name}`, defaultTimezone: 'UTC' }).spec;
    const res = await this.store.applyWorkflow(spec, this.clock.now());
    this.workflows.invalidate(res.workflowId);
    if (res.changed) await this.audit(actor, 'workflow.apply', `workflow:${spec.name}`, `version ${res.version}`);
    if (this.started) void this.scheduler.tick();
    return { workflow: spec.name, version: res.version, changed: res.changed };
  }

  async exportWorkflow(name: string): Promise<WorkflowSpec> {
    const spec = await this.store.getWorkflowSpec(name);
    if (!spec) await this.workflowId(name);
    return spec as WorkflowSpec;
  }

  async listWorkflows(): Promise<WorkflowListing[]> {
    const now = this.clock.now();
    return (await this.store.listWorkflows()).map((w) => ({
      ...w,
      scheduleText: w.schedule ? describeCron(w.schedule.cron, w.schedule.timezone) : undefined,
      nextFireAt: w.schedule && w.enabled ? nextFire(w.schedule.cron, w.schedule.timezone, now) : undefined,
    }));
  }

  async setEnabled(name: string, enabled: boolean, actor: string): Promise<void> {
    if (!(await this.store.setWorkflowEnabled(name, enabled, this.clock.now()))) await this.workflowId(name);
    this.workflows.invalidate();
    await this.audit(actor, enabled ? 'workflow.enable' : 'workflow.disable', `workflow:${name}`);
  }

  async removeWorkflow(name: string, actor: string): Promise<void> {
    const id = await this.workflowId(name);
    const active = await this.store.listRuns({ workflowName: name, states: ['RUNNING'], limit: 1 });
    if (active[0]) throw new AxError('conflict', `workflow "${name}" has run #${active[0].id} in progress: wait for it (or disable the workflow) before removing it`);
    await this.store.removeWorkflow(name);
    this.workflows.invalidate(id);
    await this.audit(actor, 'workflow.remove', `workflow:${name}`);
  }

  async runWorkflow(name: string, options: { task?: string; actor: string }): Promise<RunRecord> {
    const workflowId = await this.workflowId(name);
    const run = await this.runs.startRun({
      workflowId,
      trigger: 'manual',
      triggeredBy: options.actor,
      logicalTime: this.clock.now(),
      onlyTask: options.task,
      applyOverlap: false,
    });
    if (!run) throw new AxError('internal', 'the run could not be created');
    await this.audit(options.actor, 'run.manual', `workflow:${name}`, `run #${run.id}${options.task ? ` task ${options.task}` : ''}`);
    return run;
  }

  async rerunTask(runId: number, task: string, actor: string): Promise<RunDetail> {
    const instances = await this.runs.rerun(runId, task);
    await this.audit(actor, 'run.rerun', `run:${runId}`, `task ${task} and its downstream`);
    return { run: (await this.store.getRun(runId)) as RunRecord, instances };
  }

  async trigger(event: string, payload: string | undefined, actor: string): Promise<RunRecord[]> {
    const ids = await this.store.workflowsForEvent(event);
    if (ids.length === 0) throw new AxError('not_found', `no enabled workflow has on_event: ${event}`);
    const runs: RunRecord[] = [];
    for (const workflowId of ids) {
      const run = await this.runs.startRun({ workflowId, trigger: 'event', triggeredBy: actor, logicalTime: this.clock.now(), eventPayload: payload, applyOverlap: true });
      if (run) runs.push(run);
    }
    await this.audit(actor, 'run.event', `event:${event}`, runs.map((r) => `run #${r.id} (${r.workflowName})`).join(', '));
    return runs;
  }

  listRuns(filter: { workflow?: string; states?: RunState[]; limit?: number }): Promise<RunRecord[]> {
    return this.store.listRuns({ workflowName: filter.workflow, states: filter.states, limit: filter.limit });
  }

  async getRun(runId: number): Promise<RunDetail> {
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    return { run, instances: await this.store.listInstances(runId) };
  }

  async getInstance(instanceId: number): Promise<InstanceRecord> {
    const inst = await this.store.getInstance(instanceId);
    if (!inst) throw new AxError('not_found', `no task instance ${instanceId}: instance ids are shown by "ax runs RUN_ID"`);
    return inst;
  }

  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]> {
    return this.store.readLogs(instanceId, afterSeq, Math.min(limit, 10_000));
  }

  async listWorkers(): Promise<WorkerRecord[]> {
    const live = new Map((await this.coordinator.listWorkers()).map((w) => [w.id, w]));
    const known = await this.store.listWorkers();
    const now = this.clock.now();
    return known.map((w) => {
      const l = live.get(w.id);
      if (l) return l;
      return { ...w, status: w.status === 'offline' ? 'offline' : now - w.lastHeartbeat > workerLostAfterMs(this.config) ? 'lost' : w.status };
    });
  }

  async drainWorker(workerId: string, actor: string): Promise<void> {
    const live = await this.coordinator.listWorkers();
    if (!live.some((w) => w.id === workerId)) {
      throw new AxError('not_found', `no live worker "${workerId}": live workers are ${live.map((w) => w.id).join(', ') || 'none'}`);
    }
    await this.coordinator.requestDrain(workerId);
    await this.audit(actor, 'worker.drain', `worker:${workerId}`);
  }

  listAudit(limit: number): Promise<AuditEntry[]> {
    return this.store.listAudit(limit);
  }
}

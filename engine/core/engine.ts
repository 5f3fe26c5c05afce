// The engine: scheduler + embedded worker over the ports, and the EngineApi that every client
// uses. Every part is built and connected by engine-wiring.ts; this class only holds the parts and
// delegates to them. `start()` runs the loops; without it the engine still answers the API (the
// CLI's direct mode on a data dir no engine is running on).
import type { AccessApi } from '../api/access.ts';
import { because } from '../api/reasons.ts';
import type {
  ApplyOutcome,
  CatchUpReport,
  DrainAnswer,
  EngineApi,
  RunDetail,
  RunWorkflowOptions,
  SchedulingChange,
} from '../api/engine-api.ts';
import { type Actor, actorName } from '../api/actor.ts';
import type { AlertRecord } from '../api/alerts.ts';
import type { BackfillDetail, BackfillPlan, BackfillRecord, BackfillRequest } from '../api/backfill.ts';
import { AxError } from '../api/errors.ts';
import { paramText } from '../api/params.ts';
import type { CrontabImportChoice } from '../api/import-report.ts';
import type { RunRecord, WorkflowSpec } from '../api/types.ts';
import type { ApplyResult } from '../ports/store.ts';
import { reloadAlerts } from './alerts/engine-alerts.ts';
import type { EngineDeps } from './engine-deps.ts';
import type { EngineLifecycle } from './engine-lifecycle.ts';
import { EngineReads } from './engine-reads.ts';
import { type Audit, wireEngine } from './engine-wiring.ts';
import type { EventTriggers } from './scheduling/event-triggers.ts';
import { chosenCrontabSpecs } from './import/crontab-service.ts';
import { checkAcrossWorkflows } from './workflow/lineage.ts';
import { checkPayload } from './model/payload.ts';
import type { RecoveryReport } from './scheduling/recovery.ts';
import type { Backfills } from './runs/backfills.ts';
import type { RunManager } from './runs/run-manager.ts';
import type { Scheduler } from './scheduling/scheduler.ts';
import { checkBatch, checkedSpec } from './workflow/apply-batch.ts';
import { soloAccess } from './access/solo-access.ts';
import type { WorkerGateDeps } from './execution/worker-gate.ts';
import type { Authenticator } from './access/authenticator.ts';
import type { TaskSecrets, TeamSecretInfo, TeamSecretInput } from '../api/secrets.ts';
import { TEAM_ONLY, type TeamSecrets } from './secrets/team-secrets.ts';

import type { PingAnswer, PingReport } from '../api/monitors.ts';

export type { EngineDeps, HostInfo } from './engine-deps.ts';

export class Engine extends EngineReads implements EngineApi {
  /** the people API (whoami, users, groups, tokens): the team's accounts service, or solo's one user */
  private readonly access: AccessApi;
  /** team mode: the accounts service the server asks who a request is; none on a solo engine */
  readonly authenticator: Authenticator | undefined;

  private readonly runs: RunManager;
  private readonly backfills: Backfills;
  private readonly scheduler: Scheduler;
  private readonly events: EventTriggers;
  private readonly audit: Audit;
  private readonly lifecycle: EngineLifecycle;

  constructor(deps: EngineDeps) {
    super(wireEngine(deps));
    ({
      runs: this.runs,
      backfills: this.backfills,
      scheduler: this.scheduler,
      events: this.events,
      audit: this.audit,
      lifecycle: this.lifecycle,
    } = this.parts);
    this.access = deps.access ?? soloAccess();
    this.authenticator = deps.authenticator;
  }

  whoami: AccessApi['whoami'] = () => this.access.whoami();
  listUsers: AccessApi['listUsers'] = () => this.access.listUsers();
  addUser: AccessApi['addUser'] = (user, actor) => this.access.addUser(user, actor);
  updateUser: AccessApi['updateUser'] = (name, change, actor) => this.access.updateUser(name, change, actor);
  removeUser: AccessApi['removeUser'] = (name, actor) => this.access.removeUser(name, actor);
  changePassword: AccessApi['changePassword'] = (current, next, actor) =>
    this.access.changePassword(current, next, actor);
  listGroups: AccessApi['listGroups'] = () => this.access.listGroups();
  setGroup: AccessApi['setGroup'] = (group, actor) => this.access.setGroup(group, actor);
  createToken: AccessApi['createToken'] = (request, actor) => this.access.createToken(request, actor);
  listTokens: AccessApi['listTokens'] = (filter, actor) => this.access.listTokens(filter, actor);
  revokeToken: AccessApi['revokeToken'] = (user, name, actor) => this.access.revokeToken(user, name, actor);
  signOutEverywhere: AccessApi['signOutEverywhere'] = (user, actor) => this.access.signOutEverywhere(user, actor);

  async listTeamSecrets(): Promise<TeamSecretInfo[]> {
    return this.teamSecrets().list();
  }
  async setTeamSecret(secret: TeamSecretInput, actor: Actor): Promise<TeamSecretInfo> {
    return this.teamSecrets().set(secret, actor);
  }
  async removeTeamSecret(name: string, actor: Actor): Promise<void> {
    return this.teamSecrets().remove(name, actor);
  }

  /**
   * Not an API method (no client may ask for values): what the server hands a token-only worker
   * with the dispatch of `instanceId`, decrypted here: the team secrets that task refers to and
   * may use, only while it is dispatched to or running on `workerId`.
   */
  async resolveTaskSecrets(instanceId: number, workerId: string): Promise<TaskSecrets> {
    return this.teamSecrets().forTask(this.store, this.workflows, instanceId, workerId);
  }

  private teamSecrets(): TeamSecrets {
    const service = this.parts.teamSecrets;
    if (!service) throw new AxError('validation', TEAM_ONLY);
    return service;
  }

  /** between start() and stop(): the loops run */
  private get started(): boolean {
    return this.lifecycle.started;
  }

  /** Recovers what a dead engine left, then starts the worker and the scheduler. */
  start(): Promise<RecoveryReport> {
    return this.lifecycle.start();
  }

  /** Drain: no new fires or dispatches; running tasks get drainTimeoutMs; logs are flushed. */
  stop(drainTimeoutMs = 30_000): Promise<void> {
    return this.lifecycle.stop(drainTimeoutMs);
  }

  /** Closes the store and the coordinator (after stop()). */
  dispose(): Promise<void> {
    return this.lifecycle.dispose();
  }

  private publishWorkflow(change: 'applied' | 'enabled' | 'disabled' | 'removed', workflow: string): void {
    void this.coordinator.publish({ type: 'workflow', change, workflow, at: this.clock.now() }).catch(() => undefined);
  }

  async apply(input: WorkflowSpec, actor: Actor): Promise<ApplyOutcome> {
    // Whatever the client (CLI, UI, API), a spec passes the same checks as a file (one the
    // checks produced in this process has passed them).
    const spec = checkedSpec(input);
    // Across workflows: a cycle is refused; references that lead nowhere (yet) are warned about.
    const warnings = await checkAcrossWorkflows(this.store, spec, await this.store.getWorkflowSpec(spec.name));
    // The workflow and its audit entry are one transaction: a failed apply leaves neither.
    const res = await this.store.applyWorkflow(spec, this.clock.now(), actor);
    this.workflows.invalidate(res.workflowId);
    this.alerts.forget(spec.name);
    if (res.changed) this.publishWorkflow('applied', spec.name);
    if (this.started) void this.scheduler.tick();
    return {
      workflow: spec.name,
      version: res.version,
      changed: res.changed,
      ...(warnings.length > 0 && { warnings }),
    };
  }

  /** Several workflows, all or nothing: every spec checked first, then one store transaction. */
  async applyMany(inputs: WorkflowSpec[], actor: Actor): Promise<ApplyOutcome[]> {
    const { specs, warnings } = await checkBatch(this.store, inputs);
    const results = await this.store.applyWorkflows(specs, this.clock.now(), actor);
    this.workflows.invalidate();
    const outcomes = specs.map((spec, i): ApplyOutcome => {
      const res = results[i] as ApplyResult;
      this.alerts.forget(spec.name);
      if (res.changed) this.publishWorkflow('applied', spec.name);
      const w = warnings[i] ?? [];
      return { workflow: spec.name, version: res.version, changed: res.changed, ...(w.length > 0 && { warnings: w }) };
    });
    if (this.started) void this.scheduler.tick();
    return outcomes;
  }

  /**
   * The chosen lines of a pasted crontab, converted here again (never the page's copy of the
   * preview) and applied all or nothing; each workflow is audited as an apply, and the import
   * itself with the lines it took.
   */
  async importCrontab(choice: CrontabImportChoice, actor: Actor): Promise<ApplyOutcome[]> {
    const { specs } = chosenCrontabSpecs(choice, this.importContext());
    const outcomes = await this.applyMany(specs, actor);
    const lines = [...new Set(choice.lines)].sort((a, b) => a - b);
    await this.audit(
      actor,
      'workflow.import',
      'crontab',
      `lines ${lines.join(', ')} → ${outcomes.map((o) => o.workflow).join(', ')}`,
    );
    return outcomes;
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
    if (active[0])
      throw new AxError(
        'conflict',
        `workflow "${name}" has run #${active[0].id} in progress: wait for it (or disable the workflow) before removing it`,
      );
    await this.store.removeWorkflow(name);
    this.workflows.invalidate(id);
    await this.audit(actor, 'workflow.remove', `workflow:${name}`);
    this.publishWorkflow('removed', name);
  }

  async runWorkflow(name: string, options: RunWorkflowOptions): Promise<RunRecord> {
    checkPayload(options.payload, this.config.maxEventPayloadBytes);
    if (options.downstream && options.task === undefined)
      throw new AxError('validation', 'downstream: a run with its downstream needs the task it starts from (task)');
    const workflowId = await this.workflowId(name);
    const run = await this.runs.startRun({
      workflowId,
      trigger: 'manual',
      triggeredBy: actorName(options.actor),
      logicalTime: options.logicalTime ?? this.clock.now(),
      onlyTask: options.task,
      withDownstream: options.downstream === true,
      eventPayload: options.payload,
      params: options.params,
      applyOverlap: false,
    });
    // A manual run always gets a row: none means the workflow (and its runs) went meanwhile.
    if (!run) throw new AxError('not_found', `workflow "${name}" was removed while its run was being created`);
    await this.audit(options.actor, 'run.manual', `workflow:${name}`, manualRunDetail(run, options.logicalTime));
    return run;
  }

  async rerunTask(runId: number, task: string, actor: Actor): Promise<RunDetail> {
    const instances = await this.runs.rerun(runId, task);
    await this.audit(actor, 'run.rerun', `run:${runId}`, `task ${task} and its downstream`);
    return { run: (await this.store.getRun(runId)) as RunRecord, instances };
  }

  async rerunFailed(runId: number, actor: Actor): Promise<RunDetail> {
    const instances = await this.runs.rerunFailed(runId);
    const run = (await this.store.getRun(runId)) as RunRecord;
    await this.audit(actor, 'run.rerun', `run:${runId}`, run.reason ?? 'its failed tasks and their downstream');
    return { run, instances };
  }

  async cancelRun(runId: number, options: { task?: string; actor: Actor }): Promise<RunDetail> {
    const what = options.task === undefined ? `run #${runId}` : `task "${options.task}" of run #${runId}`;
    const instances = await this.runs.cancel(
      runId,
      options.task,
      because('cancelled_by', { actor: actorName(options.actor) }),
    );
    // This node's own worker stops its processes at once; other workers at their next heartbeat.
    for (const i of instances)
      if (i.state === 'CANCELLED' && this.worker && i.workerId === this.worker.id) this.worker.stopCancelled(i.id);
    await this.audit(options.actor, 'run.cancel', `run:${runId}`, what);
    return { run: (await this.store.getRun(runId)) as RunRecord, instances };
  }

  /** a backfill (or its plan on a dry run); the leading scheduler creates its runs, starting now */
  async backfill(request: BackfillRequest, actor: Actor): Promise<BackfillPlan> {
    const plan = await this.backfills.create(request, actor);
    if (plan.backfill && this.started) void this.scheduler.tick();
    return plan;
  }

  listBackfills(filter: { workflow?: string; limit?: number }): Promise<BackfillRecord[]> {
    return this.backfills.list(filter);
  }

  getBackfill(id: number): Promise<BackfillDetail> {
    return this.backfills.get(id);
  }

  cancelBackfill(id: number, actor: Actor): Promise<BackfillDetail> {
    return this.backfills.cancel(id, actor);
  }

  async rerunBackfillFailed(id: number, actor: Actor): Promise<BackfillDetail> {
    const detail = await this.backfills.rerunFailed(id, actor);
    if (this.started) void this.scheduler.tick();
    return detail;
  }

  /** a monitor's run reported from outside (design.md §13) */
  ping(name: string, report: PingReport): Promise<PingAnswer> {
    return this.parts.externalRuns.ping(name, report);
  }

  trigger(event: string, payload: string | undefined, actor: Actor, key?: string): Promise<RunRecord[]> {
    return this.events.trigger(event, payload, actor, key);
  }

  async setSchedulingPaused(paused: boolean, actor: Actor): Promise<SchedulingChange> {
    const at = this.clock.now();
    const changed = await this.store.setSchedulingPause(paused, at, actor);
    const pause = await this.store.getSchedulingPause();
    if (changed)
      void this.coordinator
        .publish({ type: 'scheduling', paused, ...(pause && { since: pause.since }), by: actorName(actor), at })
        .catch(() => undefined);
    // Resumed: the fires held back are dealt with now (on the leader; elsewhere at its next tick).
    if (changed && !paused && this.started) void this.scheduler.tick();
    return { changed, ...(pause && { paused: pause }) };
  }

  async catchUpSchedules(): Promise<CatchUpReport> {
    const scan = this.started && this.deps.runScheduler !== false ? await this.scheduler.catchUp() : undefined;
    if (scan) return { scanned: true, ...scan };
    return { scanned: false, paused: (await this.store.getSchedulingPause()) !== undefined, fired: 0, dropped: 0 };
  }

  /** What this node lends the edge workers that connect to it (server/worker-endpoint.ts executes their calls with it). */
  edgeWorkerDeps(): Omit<WorkerGateDeps, 'refuse'> {
    const { store, coordinator, runs, clock, config, deps, secretMask } = this.parts;
    return {
      store,
      coordinator,
      finish: runs.finish.bind(runs),
      clock,
      config,
      nodeId: deps.nodeId,
      ...(this.parts.teamSecrets && {
        taskSecrets: (instanceId: number, workerId: string) => this.resolveTaskSecrets(instanceId, workerId),
      }),
      // An edge's own alerts go where this node's go: live followers, the audit log, the host.
      alert: (raw) => {
        const message = secretMask.mask(raw);
        const at = clock.now();
        void coordinator.publish({ type: 'alert', message, at }).catch(() => undefined);
        void store
          .audit({ at, actor: deps.nodeId, action: 'alert', object: 'edge-worker', detail: message })
          .catch(() => undefined);
        deps.onAlert?.(message);
      },
    };
  }

  async drainWorker(workerId: string, actor: Actor): Promise<DrainAnswer> {
    const live = await this.coordinator.listWorkers();
    if (!live.some((w) => w.id === workerId)) {
      throw new AxError(
        'not_found',
        `no live worker "${workerId}": live workers are ${live.map((w) => w.id).join(', ') || 'none'}`,
      );
    }
    await this.coordinator.requestDrain(workerId);
    await this.audit(actor, 'worker.drain', `worker:${workerId}`);
    return { workerId, running: (await this.store.runningCountByWorker()).get(workerId) ?? 0 };
  }

  testAlertChannel(channel: string, actor: Actor): Promise<AlertRecord> {
    return this.alerts.test(channel, actorName(actor));
  }

  /** Reads the host's alert settings again (SIGHUP on a service); what was reloaded, in words. Throws on a bad file, keeping the old ones. */
  reloadSettings(): string {
    return reloadAlerts(this.alerts, this.deps.reloadAlerts);
  }
}

/** A manual run as its audit entry says it: which tasks, its params, a logical time given. */
function manualRunDetail(run: RunRecord, logicalTime: number | undefined): string {
  const parts = [`run #${run.id}`];
  if (run.onlyTask) parts[0] += ` task ${run.onlyTask}${run.withDownstream ? ' and its downstream' : ''}`;
  const params = Object.entries(run.params ?? {});
  if (params.length > 0) parts.push(`params ${params.map(([k, v]) => `${k}=${paramText(v)}`).join(' ')}`);
  if (logicalTime !== undefined) parts.push(`logical time ${new Date(logicalTime).toISOString()}`);
  return parts.join('; ');
}

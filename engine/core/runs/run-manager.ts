// A run's life: creating it (with the overlap policy), finishing its instances with what they
// lead to (follow-ups.ts), waits on other workflows, re-runs (rerun.ts) and cancelling.
import { asReason, because, type Reason } from '../../api/reasons.ts';
import { AxError } from '../../api/errors.ts';
import { DEFAULT_WAIT_TIMEOUT_MS, type InstanceRecord, type InstanceState, type RunRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import { type EngineMetrics, noMetrics } from '../../ports/metrics.ts';
import type {
  Finish,
  InstanceDraft,
  InstanceGuard,
  NewRun,
  Outcome,
  Settlement,
  RunStore,
  InstanceStore,
  LogStore,
  TaskDefinition,
  TransitionResult,
} from '../../ports/store.ts';
import { type AlertHooks, NO_ALERTS } from '../alerts/alert-rules.ts';
import { appendLateLine } from '../logs/late-log-line.ts';
import type { CachedWorkflow, WorkflowCache } from '../workflow/workflow-cache.ts';
import { Calls } from './calls.ts';
import { instanceDraft, planFollowUps } from './follow-ups.ts';
import { rerunTask } from './rerun.ts';
import { rerunFailedTasks } from './rerun-failed.ts';
import { RunEvents } from './run-events.ts';
import { payloadParams, runParamValues } from './run-params.ts';
import { downstreamScope, needsScope, withinScope } from './downstream-scope.ts';
import { RunCache } from '../execution/run-cache.ts';

/** What a trigger says about a run; the state and times are the RunManager's to decide. */
export type StartRunInput = Pick<
  NewRun,
  | 'workflowId'
  | 'trigger'
  | 'triggeredBy'
  | 'logicalTime'
  | 'scheduleId'
  | 'onlyTask'
  | 'withDownstream'
  | 'eventPayload'
  | 'backfillId'
> & {
  /** manual runs ignore the overlap policy: a person asked for this run */
  applyOverlap: boolean;
  /**
   * the param values given (typed or as text), checked against the workflow's params before the
   * run is created (run-params.ts); none given: the defaults (a cron fire, the engine's start)
   */
  params?: Record<string, unknown>;
  /** an event's run: the payload's fields that are declared params are its params */
  paramsFromPayload?: boolean;
};

const ACTIVE_STATES: InstanceState[] = ['WAITING', 'DISPATCHED', 'RUNNING'];

export class RunManager {
  constructor(
    private readonly store: RunStore & InstanceStore & LogStore,
    private readonly coordinator: Coordinator,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    /** called when new WAITING instances exist */
    /** Dispatcher.wake: a dispatch pass for the instances this made WAITING */
    private readonly wakeDispatcher: () => void,
    private readonly failovers: { max: number; alert(message: string): void } = { max: 3, alert: () => undefined },
    private readonly alerts: AlertHooks = NO_ALERTS,
    private readonly metrics: EngineMetrics = noMetrics,
  ) {
    this.events = new RunEvents(coordinator, clock, () => this.wakeDispatcher(), alerts, metrics);
    this.scopeRuns = new RunCache(store);
    this.calls = new Calls({
      store,
      workflows,
      clock,
      finish: (...args) => this.finish(...args),
      cancelRun: async (runId, reason) => void (await this.cancel(runId, undefined, reason)),
      publish: (result) => this.publish(result),
      publishInstance: (inst) => this.publishInstance(inst),
    });
  }

  /** `call:` tasks: their child runs (calls.ts) */
  readonly calls: Calls;

  private readonly queuedRoots = new WeakMap<CachedWorkflow, InstanceDraft[]>();
  /** runs whose joins finish here: which tasks a run of one task with its downstream holds */
  private readonly scopeRuns: RunCache;
  private readonly events: RunEvents;

  /** Creates the run with its roots (one store step), or returns undefined when this cron fire already has one. */
  async startRun(input: StartRunInput): Promise<RunRecord | undefined> {
    const wf = await this.workflows.get(input.workflowId);
    if (!wf) throw new AxError('not_found', `workflow ${input.workflowId} no longer exists`);
    if (wf.graph.schedule?.monitorGraceMs !== undefined)
      throw new AxError(
        'validation',
        `"${wf.graph.name}" is a monitor: it runs nothing itself. Report its job's runs with "ax ping ${wf.graph.name}" or "ax wrap ${wf.graph.name} -- COMMAND"`,
      );
    if (input.onlyTask && !wf.byName.has(input.onlyTask)) {
      throw new AxError(
        'not_found',
        `workflow "${wf.graph.name}" has no task "${input.onlyTask}": tasks are ${[...wf.byName.keys()].join(', ')}`,
      );
    }
    const specs = wf.graph.params;
    const given = input.paramsFromPayload ? payloadParams(specs, input.eventPayload) : input.params;
    const params = runParamValues(wf.graph.name, specs, given);
    const now = this.clock.now();
    // Without a schedule there is no overlap setting: events each get their run, in order (a
    // burst of webhooks must not be dropped as SKIPPED); a schedule's policy covers its events too.
    const policy = wf.graph.schedule?.overlap ?? (input.trigger === 'event' ? 'queue' : 'skip');
    // A backfill's run is never dropped for overlapping: it waits its turn (queue).
    const overlap = input.trigger === 'backfill' && policy === 'skip' ? 'queue' : policy;
    const roots = input.onlyTask ? [wf.byName.get(input.onlyTask) as TaskDefinition] : wf.roots;
    const started = await this.store.startRun({
      run: {
        workflowId: wf.graph.id,
        state: 'RUNNING',
        trigger: input.trigger,
        triggeredBy: input.triggeredBy,
        logicalTime: input.logicalTime,
        scheduleId: input.scheduleId,
        onlyTask: input.onlyTask,
        ...(input.onlyTask !== undefined && input.withDownstream === true && { withDownstream: true }),
        eventPayload: input.eventPayload,
        ...(Object.keys(params).length > 0 && { params }),
        ...(input.backfillId !== undefined && { backfillId: input.backfillId }),
        createdAt: now,
      },
      roots: roots.map((t) => instanceDraft(t, 1, now, 0, wf)),
      ...(input.applyOverlap && overlap !== 'parallel' && { overlap }),
    });
    if (!started) return undefined;
    await this.publish({ done: true, created: started.created, ended: [], runs: [started.run] });
    return started.run;
  }

  /**
   * Start-up check: a RUNNING run without (all of) its root instances gets the missing ones; one
   * with nothing pending is settled. After a clean stop it finds nothing: runs start with their
   * roots, and every outcome settles its run, in one store step each. It is for what an engine of
   * an earlier version left.
   */
  async resumeRun(run: RunRecord): Promise<void> {
    const wf = await this.workflows.get(run.workflowId);
    if (!wf) return;
    const roots = run.onlyTask ? [wf.byName.get(run.onlyTask) as TaskDefinition] : wf.roots;
    const have = new Set((await this.store.listInstances(run.id)).map((i) => i.taskId));
    const missing = roots.filter((t) => t && !have.has(t.id));
    if (missing.length > 0) {
      const now = this.clock.now();
      for (const inst of await this.store.addInstances(
        run.id,
        missing.map((t) => instanceDraft(t, 1, now, 0, wf)),
        now,
      ))
        await this.publishInstance(inst);
      this.wakeDispatcher();
    }
    if ((await this.store.pendingInstanceCount(run.id)) > 0) return;
    const settled = await this.store.settleRun(run.id, this.settlement(wf), this.clock.now());
    await this.publish(settled);
  }

  private settlement(wf: CachedWorkflow | undefined): Settlement {
    // A workflow gone meanwhile: no run of it can succeed. A monitor's run is its one external
    // instance (design.md §13).
    if (!wf) return { taskCount: Number.POSITIVE_INFINITY, queuedRoots: [] };
    const monitor = wf.graph.schedule?.monitorGraceMs !== undefined;
    return { taskCount: monitor ? 1 : wf.tasks.size, queuedRoots: this.rootDrafts(wf) };
  }

  /**
   * The roots a queued run of the workflow starts with, built once per definition: every finish
   * passes them (most end no run), and the step makes them due when it starts the run.
   */
  private rootDrafts(wf: CachedWorkflow): InstanceDraft[] {
    let drafts = this.queuedRoots.get(wf);
    if (!drafts) this.queuedRoots.set(wf, (drafts = wf.roots.map((t) => instanceDraft(t, 1, 0, 0, wf))));
    return drafts;
  }

  /**
   * finish-with-follow-ups: records the instance's final state, guarded, and what it leads to,
   * as one store step: a retry, the downstream it makes ready (O(downstream)), or the downstream
   * failed; and the run's end once nothing is pending. Returns false when the guard refused it.
   */
  async finish(
    inst: InstanceRecord,
    guard: InstanceGuard,
    to: Finish['to'],
    outcome: Outcome,
    opts: { final?: boolean; outputs?: Record<string, string> } = {},
  ): Promise<boolean> {
    const wf = await this.workflows.get(inst.workflowId);
    const task = wf?.tasks.get(inst.taskId);
    const now = this.clock.now();
    const plan =
      wf && task
        ? planFollowUps(inst, to, outcome.failedOver === true, wf, task, now, opts.final === true, this.failovers.max)
        : { followUps: {} };
    // A join in a run of one task with its downstream waits only for upstreams inside the run.
    if (wf && needsScope(plan.followUps)) {
      const run = await this.scopeRuns.get(inst.runId);
      const start = run?.withDownstream && run.onlyTask ? wf.byName.get(run.onlyTask) : undefined;
      if (start) plan.followUps = withinScope(plan.followUps, downstreamScope(wf, start.id));
    }
    const asUpstream = wf && task ? { workflow: wf.graph.name, task: task.name } : undefined;
    const result = await this.store.finishInstance(
      {
        id: inst.id,
        runId: inst.runId,
        guard,
        to,
        outcome,
        followUps: plan.followUps,
        settlement: this.settlement(wf),
        ...(asUpstream && { asUpstream }),
        ...(opts.outputs && { outputs: opts.outputs }),
      },
      now,
    );
    if (!result.done) return false;
    this.metrics.instanceFinished(to);
    if (plan.capped) this.failovers.alert(plan.capped);
    // Failed for good: no attempt after this one.
    if ((to === 'FAILED' || to === 'TIMEOUT') && !plan.followUps.retry)
      this.alerts.taskFailed(
        { ...inst, ...outcome, state: to } as InstanceRecord,
        to,
        outcome.reason ?? undefined,
        wf?.graph.name,
        outcome.reasonCode ?? undefined,
      );
    // Said in the failed attempt's log before anyone hears of the next attempt, so a follower
    // that sees attempt 2 finds the line; only by the step that created attempt 2, so said once.
    const retry = result.created.find((c) => c.taskId === inst.taskId);
    if (retry && plan.announce) await this.announce(inst.id, plan.announce(retry.attempt));
    await this.publishInstance({ ...inst, ...outcome, state: to } as InstanceRecord);
    await this.publish(result);
    await this.calls.callerEnded(inst, to);
    for (const w of result.failedWaiters ?? [])
      await this.failWaiter(w.instanceId, because('upstream_failed_for_good', { label: w.label }));
    return true;
  }

  /**
   * An instance of another workflow waited for what failed for good: it ends UPSTREAM_FAILED (a
   * compare-and-set on WAITING, so whoever gets there first does it, once), with its downstream.
   */
  private async failWaiter(instanceId: number, why: Reason): Promise<void> {
    const waiter = await this.store.getInstance(instanceId);
    if (waiter?.state !== 'WAITING') return;
    await this.finish(waiter, { from: ['WAITING'], attempt: waiter.attempt }, 'UPSTREAM_FAILED', {
      ...why,
      finishedAt: this.clock.now(),
    });
  }

  /**
   * The leader's sweep for waits past their wait_timeout (an indexed read of the expired ones,
   * not a look at every workflow): each waiter fails, with no retry (it would only wait again),
   * the reason naming what it waited for, and an alert.
   */
  async expireWaits(): Promise<void> {
    const now = this.clock.now();
    for (const w of await this.store.expiredWaits(now, 100)) {
      const waiter = await this.store.getInstance(w.instanceId);
      if (waiter?.state !== 'WAITING') continue;
      const task = (await this.workflows.get(waiter.workflowId))?.tasks.get(waiter.taskId);
      const limit = task?.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
      const why = because('wait_timeout', { limit, label: w.label });
      // A final FAILED: finish raises the task-failed alert, with this reason.
      await this.finish(
        waiter,
        { from: ['WAITING'], attempt: waiter.attempt },
        'FAILED',
        { ...why, finishedAt: now },
        { final: true },
      );
    }
  }

  /** The retry said at the end of the failed attempt's log. */
  private announce(instanceId: number, text: string): Promise<void> {
    return appendLateLine(this.store, this.coordinator, this.clock, instanceId, text);
  }

  /** What a re-run (of one task, or of a run's failed tasks) needs. */
  private rerunDeps() {
    return {
      store: this.store,
      workflows: this.workflows,
      clock: this.clock,
      publishInstance: (inst: InstanceRecord) => this.publishInstance(inst),
      wakeDispatcher: () => this.wakeDispatcher(),
    };
  }

  /** Re-runs the failed tasks of an ended run, in the run, with their downstream (rerun-failed.ts). */
  async rerunFailed(runId: number): Promise<InstanceRecord[]> {
    return rerunFailedTasks(this.rerunDeps(), runId);
  }

  /** Re-runs a task that failed for good, in the same run, with its downstream (rerun.ts). */
  async rerun(runId: number, taskName: string): Promise<InstanceRecord[]> {
    return rerunTask(this.rerunDeps(), runId, taskName);
  }

  /**
   * Cancels a run, or one task of it. Waiting and dispatched instances end CANCELLED; running
   * ones are moved to CANCELLED too, so their worker's outcome write is refused, and the worker
   * hearing the event (or, failing that, its next task heartbeat) kills the process group. A
   * whole run ends CANCELLED at once and never blocks its overlap policy; a cancelled task fails
   * its downstream like any failure, without a retry.
   */
  async cancel(runId: number, taskName: string | undefined, why: string | Reason): Promise<InstanceRecord[]> {
    const { reason, reasonCode } = asReason(why);
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    if (run.state !== 'RUNNING' && run.state !== 'QUEUED')
      throw new AxError('conflict', `run #${runId} is ${run.state}: only a queued or running run can be cancelled`);
    const wf = await this.workflows.get(run.workflowId);
    if (taskName !== undefined && !wf?.byName.get(taskName))
      throw new AxError('not_found', `run #${runId} has no task "${taskName}"`);
    const now = this.clock.now();
    if (taskName === undefined) {
      const result = await this.store.cancelRun(runId, reason, wf ? this.rootDrafts(wf) : [], now, reasonCode);
      if (!result.done) throw new AxError('conflict', `run #${runId} ended while it was being cancelled`);
      await this.publish(result);
      // a call: task's child run goes with its parent (and its children with it)
      for (const inst of result.ended) await this.calls.callerEnded(inst, inst.state);
      for (const w of result.failedWaiters ?? [])
        await this.failWaiter(w.instanceId, because('upstream_run_cancelled', { label: w.label, run: runId }));
      return this.store.listInstances(runId);
    }
    const active = (await this.store.listInstances(runId)).filter(
      (i) => ACTIVE_STATES.includes(i.state) && i.taskName === taskName,
    );
    if (active.length === 0)
      throw new AxError('conflict', `task "${taskName}" of run #${runId} is not waiting or running: nothing to cancel`);
    for (const inst of active) {
      // Compare-and-set on the state read above; one that moved on meanwhile (DISPATCHED →
      // RUNNING as its worker started it) is read again and cancelled from where it is now.
      let current: InstanceRecord | undefined = inst;
      for (let tries = 0; current && tries < 4; tries++) {
        if (
          await this.finish(current, { from: [current.state], attempt: inst.attempt }, 'CANCELLED', {
            reason,
            reasonCode,
            finishedAt: now,
          })
        )
          break;
        const fresh = await this.store.getInstance(inst.id);
        current = fresh && fresh.attempt === inst.attempt && ACTIVE_STATES.includes(fresh.state) ? fresh : undefined;
      }
    }
    return this.store.listInstances(runId);
  }

  /** Tells followers of one instance's change; the store is the truth, so a lost event is only late news. */
  publishInstance(inst: InstanceRecord): Promise<void> {
    return this.events.publishInstance(inst);
  }

  /** Tells followers what a store step did (the alerts and metrics of the runs it ended too). */
  async publish(result: TransitionResult): Promise<void> {
    await this.events.publish(result);
    // a child run's end is its calling instance's, in a step of its own (the sweep redoes it after a crash)
    // (a failure here is left to the leader's sweep: the outcome that ended the child is recorded)
    for (const run of result.runs)
      if (run.parentInstanceId !== undefined) await this.calls.childEnded(run).catch(() => undefined);
  }
}

// A run's life: creating it (with the overlap policy), advancing dependencies event by event,
// retries, failing downstream, and deriving the run's state from its instances.
import { AxError } from '../../api/errors.ts';
import {
  DEFAULT_WAIT_TIMEOUT_MS,
  type InstanceRecord,
  type InstanceState,
  type RunRecord,
  type RunState,
} from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import { type EngineMetrics, noMetrics } from '../../ports/metrics.ts';
import { instanceEvent } from '../model/instance-event.ts';
import {
  HELD_FOR_UPSTREAM,
  type Finish,
  type FollowUps,
  type InstanceDraft,
  type InstanceGuard,
  type NewRun,
  type Outcome,
  type Settlement,
  type RunStore,
  type InstanceStore,
  type LogStore,
  type TaskDefinition,
  type TransitionResult,
} from '../../ports/store.ts';
import { retryDelay } from '../model/backoff.ts';
import { formatDuration } from '../model/duration.ts';
import { downstreamClosure } from '../model/dag.ts';
import { type AlertHooks, NO_ALERTS } from '../alerts/alert-rules.ts';
import { appendLateLine } from '../logs/late-log-line.ts';
import type { CachedWorkflow, WorkflowCache } from '../workflow/workflow-cache.ts';

/** What a trigger says about a run; the state and times are the RunManager's to decide. */
export type StartRunInput = Pick<
  NewRun,
  'workflowId' | 'trigger' | 'triggeredBy' | 'logicalTime' | 'scheduleId' | 'onlyTask' | 'eventPayload'
> & {
  /** manual runs ignore the overlap policy: a person asked for this run */
  applyOverlap: boolean;
};

const FAILED_STATES: InstanceState[] = ['FAILED', 'TIMEOUT'];
const ACTIVE_STATES: InstanceState[] = ['WAITING', 'DISPATCHED', 'RUNNING'];
const FINAL_INSTANCE_STATES: InstanceState[] = ['SUCCESS', 'FAILED', 'TIMEOUT', 'CANCELLED', 'UPSTREAM_FAILED'];
const FINAL_RUN_STATES: RunState[] = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];

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
  ) {}

  private readonly queuedRoots = new WeakMap<CachedWorkflow, InstanceDraft[]>();

  /** Creates the run with its roots (one store step), or returns undefined when this cron fire already has one. */
  async startRun(input: StartRunInput): Promise<RunRecord | undefined> {
    const wf = await this.workflows.get(input.workflowId);
    if (!wf) throw new AxError('not_found', `workflow ${input.workflowId} no longer exists`);
    if (input.onlyTask && !wf.byName.has(input.onlyTask)) {
      throw new AxError(
        'not_found',
        `workflow "${wf.graph.name}" has no task "${input.onlyTask}": tasks are ${[...wf.byName.keys()].join(', ')}`,
      );
    }
    const now = this.clock.now();
    // Without a schedule there is no overlap setting: events each get their run, in order (a
    // burst of webhooks must not be dropped as SKIPPED); a schedule's policy covers its events too.
    const overlap = wf.graph.schedule?.overlap ?? (input.trigger === 'event' ? 'queue' : 'skip');
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
        eventPayload: input.eventPayload,
        createdAt: now,
      },
      roots: roots.map((t) => this.draft(t, 1, now, 0, wf)),
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
        missing.map((t) => this.draft(t, 1, now, 0, wf)),
        now,
      ))
        await this.publishInstance(inst);
      this.wakeDispatcher();
    }
    if ((await this.store.pendingInstanceCount(run.id)) > 0) return;
    const settled = await this.store.settleRun(run.id, this.settlement(wf), this.clock.now());
    await this.publish(settled);
  }

  /**
   * A task's instance to create. A first attempt of a task with upstreams in other workflows is
   * created held, waiting for them by the run's logical time in the workflow's zone (UTC without
   * a schedule); retries do not wait again.
   */
  private draft(
    task: TaskDefinition,
    attempt: number,
    notBefore: number,
    failovers = 0,
    wf?: CachedWorkflow,
  ): InstanceDraft {
    const draft: InstanceDraft = {
      taskId: task.id,
      taskName: task.name,
      attempt,
      state: 'WAITING',
      notBefore,
      failovers,
    };
    if (attempt !== 1 || !task.crossUpstream?.length || !wf) return draft;
    const upstreams = {
      crossUpstream: task.crossUpstream,
      timezone: wf.graph.schedule?.timezone ?? 'UTC',
      waitTimeoutMs: task.waitTimeoutMs,
    };
    return { ...draft, notBefore: HELD_FOR_UPSTREAM, upstreams };
  }

  private settlement(wf: CachedWorkflow | undefined): Settlement {
    // A workflow gone meanwhile: no run of it can succeed.
    return { taskCount: wf ? wf.tasks.size : Number.POSITIVE_INFINITY, queuedRoots: wf ? this.rootDrafts(wf) : [] };
  }

  /**
   * The roots a queued run of the workflow starts with, built once per definition: every finish
   * passes them (most end no run), and the step makes them due when it starts the run.
   */
  private rootDrafts(wf: CachedWorkflow): InstanceDraft[] {
    let drafts = this.queuedRoots.get(wf);
    if (!drafts) this.queuedRoots.set(wf, (drafts = wf.roots.map((t) => this.draft(t, 1, 0, 0, wf))));
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
    opts: { final?: boolean } = {},
  ): Promise<boolean> {
    const wf = await this.workflows.get(inst.workflowId);
    const task = wf?.tasks.get(inst.taskId);
    const now = this.clock.now();
    const plan =
      wf && task
        ? this.followUps(inst, to, outcome.failedOver === true, wf, task, now, opts.final === true)
        : { followUps: {} };
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
      );
    // Said in the failed attempt's log before anyone hears of the next attempt, so a follower
    // that sees attempt 2 finds the line; only by the step that created attempt 2, so said once.
    const retry = result.created.find((c) => c.taskId === inst.taskId);
    if (retry && plan.announce) await this.announce(inst.id, plan.announce(retry.attempt));
    await this.publishInstance({ ...inst, ...outcome, state: to } as InstanceRecord);
    await this.publish(result);
    for (const w of result.failedWaiters ?? [])
      await this.failWaiter(w.instanceId, `upstream ${w.label} failed for good: re-run it, then this task`);
    return true;
  }

  /**
   * An instance of another workflow waited for what failed for good: it ends UPSTREAM_FAILED (a
   * compare-and-set on WAITING, so whoever gets there first does it, once), with its downstream.
   */
  private async failWaiter(instanceId: number, reason: string): Promise<void> {
    const waiter = await this.store.getInstance(instanceId);
    if (waiter?.state !== 'WAITING') return;
    await this.finish(waiter, { from: ['WAITING'], attempt: waiter.attempt }, 'UPSTREAM_FAILED', {
      reason,
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
      const limit = formatDuration(task?.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS);
      const reason = `wait_timeout: waited ${limit} for ${w.label}, which did not succeed in time`;
      // A final FAILED: finish raises the task-failed alert, with this reason.
      await this.finish(
        waiter,
        { from: ['WAITING'], attempt: waiter.attempt },
        'FAILED',
        { reason, finishedAt: now },
        { final: true },
      );
    }
  }

  /**
   * What an instance ending in `to` leads to. A failed attempt gets its next one if it has one: a
   * fail-over (the worker died, not the task) runs again at once without spending a retry, up to
   * the cap; past it, it counts as a failed try, with an alert. `failovers` counts the free
   * fail-overs before an attempt, so the tries spent so far are the attempts that were not free.
   * With no next attempt (or cancelled), the whole downstream is UPSTREAM_FAILED.
   */
  private followUps(
    inst: InstanceRecord,
    to: Finish['to'],
    failedOver: boolean,
    wf: CachedWorkflow,
    task: TaskDefinition,
    now: number,
    final: boolean,
  ): { followUps: FollowUps; announce?: (attempt: number) => string; capped?: string } {
    if (to === 'SUCCESS') {
      const advance = (wf.downstream.get(task.id) ?? []).map((downId) => ({
        draft: this.draft(wf.tasks.get(downId) as TaskDefinition, 1, now, 0, wf),
        needs: (wf.upstream.get(downId) ?? []).filter((u) => u !== task.id),
      }));
      return { followUps: { advance } };
    }
    let capped: string | undefined;
    if (FAILED_STATES.includes(to) && !final) {
      const free = inst.failovers ?? 0;
      if (failedOver) {
        if (free < this.failovers.max)
          return { followUps: { retry: this.draft(task, inst.attempt + 1, now, free + 1) } };
        capped = `task "${task.name}" of run #${inst.runId} failed over more than ${this.failovers.max} times (the cap): this fail-over counts as a failed try`;
      }
      const tries = inst.attempt - free;
      if (tries <= task.retries) {
        const delay = retryDelay(task.retryBackoff, tries);
        // A fail-over is not announced (not even one past the cap), as its lost worker may still be writing.
        const announce = failedOver
          ? undefined
          : (attempt: number) =>
              `retrying in ${formatDuration(delay)} (attempt ${attempt} of ${task.retries + 1 + free})`;
        return { followUps: { retry: this.draft(task, inst.attempt + 1, now + delay, free) }, announce, capped };
      }
    }
    const reason = `upstream "${task.name}" ended ${to}`;
    const upstreamFailed = downstreamClosure(task.id, wf.downstream).map((id): InstanceDraft => {
      const t = wf.tasks.get(id) as TaskDefinition;
      return { taskId: t.id, taskName: t.name, attempt: 1, state: 'UPSTREAM_FAILED', notBefore: 0, reason };
    });
    return { followUps: { upstreamFailed }, capped };
  }

  /** The retry said at the end of the failed attempt's log. */
  private announce(instanceId: number, text: string): Promise<void> {
    return appendLateLine(this.store, this.coordinator, this.clock, instanceId, text);
  }

  /** Tells followers what a store step did, and the dispatcher when there is new work. */
  private async publish(result: TransitionResult): Promise<void> {
    this.count(result);
    for (const inst of [...result.ended, ...result.created]) await this.publishInstance(inst);
    for (const inst of result.released ?? []) await this.publishInstance(inst);
    for (const run of result.runs) {
      // Raised before the event goes out: whoever hears the run end finds its alert under way.
      this.alerts.runEnded(run);
      await this.publishRun(run);
    }
    if (result.created.some((i) => i.state === 'WAITING') || result.released?.length) this.wakeDispatcher();
  }

  /** What a store step ended, counted (the instance a finish was for is counted by finish). */
  private count(result: TransitionResult): void {
    for (const inst of [...result.ended, ...result.created])
      if (FINAL_INSTANCE_STATES.includes(inst.state)) this.metrics.instanceFinished(inst.state);
    for (const run of result.runs) {
      if (!FINAL_RUN_STATES.includes(run.state)) continue;
      const start = run.startedAt ?? run.createdAt;
      this.metrics.runFinished(
        run.state,
        run.state === 'SKIPPED' || run.finishedAt === undefined ? undefined : run.finishedAt - start,
      );
    }
  }

  /**
   * Re-runs a task that failed for good, in the same run, with its downstream: a new attempt of
   * the task; the downstream's UPSTREAM_FAILED markers (which never ran) are removed so the
   * downstream runs again once the task succeeds.
   */
  async rerun(runId: number, taskName: string): Promise<InstanceRecord[]> {
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    const wf = await this.workflows.get(run.workflowId);
    const task = wf?.byName.get(taskName);
    if (!wf || !task) throw new AxError('not_found', `run #${runId} has no task "${taskName}"`);
    const instances = await this.store.listInstances(runId);
    const mine = instances.filter((i) => i.taskId === task.id);
    const latest = mine[mine.length - 1];
    // UPSTREAM_FAILED too for a task that waited on another workflow: it waits again
    const rerunnable: InstanceState[] = [
      'FAILED',
      'TIMEOUT',
      'CANCELLED',
      ...(task.crossUpstream?.length ? (['UPSTREAM_FAILED'] as const) : []),
    ];
    if (!latest || !rerunnable.includes(latest.state)) {
      throw new AxError(
        'conflict',
        `task "${taskName}" of run #${runId} is ${latest?.state ?? 'not started'}: only a failed task can be re-run`,
      );
    }
    const down = new Set(downstreamClosure(task.id, wf.downstream));
    const markers = instances.filter((i) => down.has(i.taskId) && i.state === 'UPSTREAM_FAILED').map((i) => i.id);
    const now = this.clock.now();
    // A task waiting on other workflows waits again (they may have been re-run meanwhile).
    const draft = task.crossUpstream?.length
      ? { ...this.draft(task, 1, now, 0, wf), attempt: latest.attempt + 1 }
      : this.draft(task, latest.attempt + 1, now);
    const result = await this.store.rerunTask(
      {
        runId,
        taskId: task.id,
        latest: { attempt: latest.attempt, from: rerunnable },
        markers,
        draft,
        reason: `re-run of "${taskName}"`,
      },
      now,
    );
    if (!result.done)
      throw new AxError(
        'conflict',
        `task "${taskName}" of run #${runId} changed while it was being re-run: look at the run again`,
      );
    for (const next of result.created) await this.publishInstance(next);
    this.wakeDispatcher();
    return this.store.listInstances(runId);
  }

  /**
   * Cancels a run, or one task of it. Waiting and dispatched instances end CANCELLED; running
   * ones are moved to CANCELLED too, so their worker's outcome write is refused, and the worker
   * hearing the event (or, failing that, its next task heartbeat) kills the process group. A
   * whole run ends CANCELLED at once and never blocks its overlap policy; a cancelled task fails
   * its downstream like any failure, without a retry.
   */
  async cancel(runId: number, taskName: string | undefined, reason: string): Promise<InstanceRecord[]> {
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    if (run.state !== 'RUNNING' && run.state !== 'QUEUED')
      throw new AxError('conflict', `run #${runId} is ${run.state}: only a queued or running run can be cancelled`);
    const wf = await this.workflows.get(run.workflowId);
    if (taskName !== undefined && !wf?.byName.get(taskName))
      throw new AxError('not_found', `run #${runId} has no task "${taskName}"`);
    const now = this.clock.now();
    if (taskName === undefined) {
      const result = await this.store.cancelRun(runId, reason, wf ? this.rootDrafts(wf) : [], now);
      if (!result.done) throw new AxError('conflict', `run #${runId} ended while it was being cancelled`);
      await this.publish(result);
      for (const w of result.failedWaiters ?? [])
        await this.failWaiter(w.instanceId, `upstream ${w.label}: its run #${runId} was cancelled`);
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

  // Live events are for followers (UI, --follow), who read the store for the truth: with Redis
  // away they are dropped, never allowed to stop a run half-way between its store writes.
  async publishInstance(inst: InstanceRecord): Promise<void> {
    await this.coordinator.publish(instanceEvent(inst, this.clock.now())).catch(() => undefined);
  }

  private async publishRun(run: Pick<RunRecord, 'id' | 'workflowName' | 'state'>): Promise<void> {
    await this.coordinator
      .publish({ type: 'run', runId: run.id, workflowName: run.workflowName, state: run.state, at: this.clock.now() })
      .catch(() => undefined);
  }
}

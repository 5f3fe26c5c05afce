// The scheduler decides what runs when: cron fires (exact timers within the look-ahead window,
// misfire policy after downtime), reactions to finished instances, dispatch, and the backstops
// of SPEC §7 (lost workers, timeouts nobody reported). It holds a leader lease so that several
// schedulers can stand by; whatever it does is idempotent in the store anyway.
import type { InstanceRecord, WorkerRecord } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type { ScheduleRecord, Store } from '../ports/store.ts';
import { judgeActive, type WorkerView } from './backstops.ts';
import type { EngineConfig } from './config.ts';
import type { Dispatcher } from './dispatcher.ts';
import { planFires } from './misfire.ts';
import type { RunManager } from './run-manager.ts';
import type { WorkflowCache } from './workflow-cache.ts';

export class Scheduler {
  private readonly fireTimers = new Map<string, () => void>();
  private readonly handling = new Set<number>();
  private cancelTick: (() => void) | undefined;
  private cancelRetryTimer: (() => void) | undefined;
  private stopped = true;
  private ticking: Promise<void> | undefined;
  private leaseToken: number | null = null;
  private lastRunningCheck = 0;
  private lastPurge = 0;
  /** since when this scheduler's ticks fail (the store or Redis away): it sees nothing */
  private blindSince: number | undefined;
  /** when it could see again: silence before this is not held against workers or tasks */
  private sightSince = 0;

  constructor(
    private readonly store: Store,
    private readonly coordinator: Coordinator,
    private readonly runs: RunManager,
    private readonly dispatcher: Dispatcher,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly config: EngineConfig,
    private readonly holder: string,
    private readonly alert: (message: string) => void,
    /** the worker embedded in this engine, if any: asked directly, never judged by its heartbeat */
    private readonly localWorker?: () => WorkerRecord | undefined,
  ) {}

  get isLeader(): boolean {
    return this.leaseToken !== null;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.tick();
  }

  /** One pass; also runs every tickMs. Exposed so tests can drive it with a fake clock. */
  tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = (async () => {
      try {
        this.leaseToken = await this.coordinator.acquireLease('scheduler', this.holder, 3 * this.config.workerHeartbeatMs);
        if (this.leaseToken === null) return;
        if (this.config.fireSchedules) await this.scanSchedules();
        await this.handleUnhandled();
        await this.checkRunning();
        await this.dispatcher.kick();
        await this.wakeForRetries();
        await this.purgeLogs();
      } catch (err) {
        this.blindSince ??= this.clock.now();
        this.alert(`scheduler: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        this.ticking = undefined;
        if (!this.stopped) {
          this.cancelTick?.();
          this.cancelTick = this.clock.setTimer(this.config.tickMs, () => void this.tick());
        }
      }
    })();
    return this.ticking;
  }

  private async scanSchedules(): Promise<void> {
    const now = this.clock.now();
    const schedules = await this.store.listSchedules();
    const live = new Set<string>();
    for (const s of schedules) {
      const plan = planFires({
        cron: s.cron,
        timezone: s.timezone,
        lastFireAt: s.lastFireAt,
        now,
        lookAheadMs: this.config.lookAheadMs,
        misfire: s.misfire,
        misfireThresholdMs: this.config.misfireThresholdMs,
        maxCatchUp: this.config.maxCatchUp,
      });
      if (plan.skipped > 0) {
        const latest = plan.skippedLatest as number;
        await this.store.audit({
          at: now,
          actor: 'scheduler',
          action: 'misfire.skip',
          object: `workflow:${s.workflowName}`,
          detail: `${plan.skippedCapped ? 'more than ' : ''}${plan.skipped} missed fire(s) up to ${new Date(latest).toISOString()} not run (misfire policy: ${s.misfire})`,
        });
        if (plan.fireNow.length === 0) await this.store.setScheduleLastFire(s.id, latest);
      }
      for (const f of plan.fireNow) await this.fire(s, f);
      for (const f of plan.upcoming) {
        const key = `${s.id}:${f}:${s.cron}:${s.timezone}`;
        live.add(key);
        if (!this.fireTimers.has(key)) {
          this.fireTimers.set(key, this.clock.setTimer(f - now, () => void this.fire(s, f).catch((err: unknown) => this.alert(String(err)))));
        }
      }
    }
    // Schedules that changed or were disabled drop their pending timers.
    for (const [key, cancel] of this.fireTimers) {
      if (!live.has(key)) {
        cancel();
        this.fireTimers.delete(key);
      }
    }
  }

  private async fire(s: ScheduleRecord, fireTime: number): Promise<void> {
    this.fireTimers.delete(`${s.id}:${fireTime}:${s.cron}:${s.timezone}`);
    if (this.stopped || this.leaseToken === null) return;
    // A timer set before the workflow was disabled or its schedule changed lives until the next
    // scan; it must not start a run meanwhile.
    const current = (await this.workflows.get(s.workflowId))?.graph;
    const plan = current?.schedule;
    if (!current?.enabled || plan?.id !== s.id || plan.cron !== s.cron || plan.timezone !== s.timezone) return;
    await this.runs.startRun({
      workflowId: s.workflowId,
      trigger: 'cron',
      triggeredBy: 'cron',
      logicalTime: fireTime,
      scheduleId: s.id,
      applyOverlap: true,
    });
    await this.store.setScheduleLastFire(s.id, fireTime);
  }

  /** The worker's direct notification; the unhandled scan catches any that were missed. */
  async onFinished(inst: InstanceRecord): Promise<void> {
    if (this.handling.has(inst.id)) return;
    this.handling.add(inst.id);
    try {
      await this.runs.handleFinished(inst);
    } finally {
      this.handling.delete(inst.id);
    }
    this.kick();
  }

  /**
   * A dispatch pass in the background, by the leader only: one dispatcher per team, so workers'
   * loads read from the database are never raced into over-dispatch. A failed pass (store or
   * Redis away) is an alert; the next tick tries again.
   */
  kick(): void {
    if (!this.isLeader || this.stopped) return;
    void this.dispatcher.kick().catch((err: unknown) => this.alert(`dispatch: ${err instanceof Error ? err.message : String(err)}`));
  }

  private async handleUnhandled(): Promise<void> {
    for (let batch = await this.store.unhandledFinished(500); batch.length > 0; batch = await this.store.unhandledFinished(500)) {
      const fresh = batch.filter((i) => !this.handling.has(i.id));
      if (fresh.length === 0) return;
      for (const inst of fresh) await this.onFinished(inst);
    }
  }

  /**
   * SPEC §7 backstops, every worker-heartbeat interval: see backstops.ts. A live worker's own
   * timeout always fires before the scheduler's.
   */
  private async checkRunning(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastRunningCheck < Math.min(this.config.taskHeartbeatMs, this.config.workerHeartbeatMs)) return;
    this.lastRunningCheck = now;
    if (this.blindSince !== undefined) {
      // The database (or Redis) was away: the workers could not write their heartbeats either, so
      // their silence counts only from now; judged on it, live workers would fail over and their
      // tasks run twice.
      this.sightSince = now;
      this.blindSince = undefined;
    }
    const live = new Map((await this.coordinator.listWorkers()).map((w) => [w.id, w]));
    const views = new Map<string, WorkerView>(
      // The fresher of a worker's two heartbeats: the database's survives a Redis flush, the live
      // registration's is not held up behind the worker's other writes when it is loaded.
      (await this.store.listWorkers()).map((w) => [
        w.id,
        { lastHeartbeat: Math.max(w.lastHeartbeat, live.get(w.id)?.lastHeartbeat ?? 0, this.sightSince), running: live.get(w.id)?.instances },
      ]),
    );
    // This process's own worker is alive as long as this code runs, however late its heartbeat
    // write is under load: never fail it over (that would run its tasks twice).
    const own = this.localWorker?.();
    if (own) views.set(own.id, { lastHeartbeat: now, running: own.instances ?? [] });
    for (const inst of await this.store.instancesInStates(['DISPATCHED', 'RUNNING'])) {
      const wf = await this.workflows.get(inst.workflowId);
      const seen = { ...inst, heartbeatAt: Math.max(inst.heartbeatAt ?? inst.startedAt ?? inst.createdAt, this.sightSince) };
      const verdict = judgeActive(seen, views.get(inst.workerId ?? ''), wf?.tasks.get(inst.taskId)?.timeoutMs, now, this.config);
      if (!verdict) continue;
      const guard = { from: [inst.state], attempt: inst.attempt, workerId: inst.workerId };
      const final = verdict.to !== 'WAITING';
      if (!(await this.store.transitionInstance(inst.id, guard, verdict.to, { reason: verdict.reason, ...(final && { finishedAt: now }) }))) continue;
      this.alert(`instance ${inst.id} (${inst.taskName}): ${verdict.reason}`);
      if (final) await this.onFinished({ ...inst, state: verdict.to, reason: verdict.reason, finishedAt: now });
      else this.kick();
    }
    await this.settleStuckRuns();
  }

  /** A run with nothing pending that is still RUNNING (an engine died between writes) is settled. */
  private async settleStuckRuns(): Promise<void> {
    for (const run of await this.store.listRuns({ states: ['RUNNING'], limit: 1_000 })) {
      if ((await this.store.pendingInstanceCount(run.id)) > 0) continue;
      if ((await this.store.listInstances(run.id)).length === 0) await this.runs.resumeRun(run);
      else await this.runs.settle(run);
    }
  }

  /** A retry's backoff rarely ends on a tick: dispatch it when it ends, not up to a tick later. */
  private async wakeForRetries(): Promise<void> {
    const at = await this.store.nextWaitingAt();
    const now = this.clock.now();
    if (at === undefined || at <= now || at - now >= this.config.tickMs) return;
    this.cancelRetryTimer?.();
    this.cancelRetryTimer = this.clock.setTimer(at - now, () => this.kick());
  }

  private async purgeLogs(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastPurge < 3_600_000) return;
    this.lastPurge = now;
    await this.store.purgeLogs(now - this.config.logRetentionMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTick?.();
    this.cancelRetryTimer?.();
    for (const cancel of this.fireTimers.values()) cancel();
    this.fireTimers.clear();
    await this.ticking;
    if (this.leaseToken !== null) await this.coordinator.releaseLease('scheduler', this.holder);
    this.leaseToken = null;
  }
}

// The embedded worker: takes dispatches from its queue up to its concurrency limit, admits each
// (the command comes from the store by instance id, never from the message) and hands it to its
// execution (task-execution.ts: process group, log lines, timeout, outcome). It beats for itself
// and its running tasks, stops the tasks that are cancelled or no longer its own, and drains. It
// never blocks the scheduler: all waiting is async.
import { because, type Reason } from '../../api/reasons.ts';
import type { WorkerRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator, DispatchMessage } from '../../ports/coordinator.ts';
import type { ProcessRunner } from '../../ports/process-runner.ts';
import type { InstanceStore, ReadModelStore, WorkerStore, RunStore, LogStore } from '../../ports/store.ts';
import { admitDispatch } from '../dispatch/dispatch-admission.ts';
import { formatDuration } from '../model/duration.ts';
import type { LogWriter } from '../logs/log-writer.ts';
import { repeat } from '../support/repeat.ts';
import { retrying } from '../support/retry.ts';
import type { Dispatcher } from '../dispatch/dispatcher.ts';
import type { RunManager } from '../runs/run-manager.ts';
import { type ExecutionOptions, type Running, STOPPED_LINE, TaskExecutor } from './task-execution.ts';
import { WorkerIdentity } from './worker-identity.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

/** The execution's options (id, kill grace, line limit, base environment) and the worker's own. */
export interface WorkerOptions extends ExecutionOptions {
  host: string;
  pid: number;
  version: string;
  labels: string[];
  acceptUnlabelled: boolean;
  acceptWorkflows?: string[];
  maxConcurrency: number;
  workerHeartbeatMs: number;
  taskHeartbeatMs: number;
  /** `ax drain` asked this worker to drain; the host decides how (usually: drain, then exit) */
  onDrainRequested?: () => void;
  /** shown by `ax workers` */
  role?: string;
  /**
   * The host's own knowledge that the process holding this id is dead (it ran here and is gone;
   * in solo mode the data-dir lock proves it): its id is taken over at once, not after it goes stale.
   */
  holderGone?: (holder: WorkerRecord) => boolean;
  /** the fingerprint of this node's secret: a worker id it held stays reserved to it for a while (core/execution/worker-id-reservation.ts) */
  nodeKey?: string;
  /** another node took this worker's id (it was judged lost): its tasks are stopped; the host should exit */
  onIdentityLost?: () => void;
  /** the host's randomness (set by the engine's wiring) */
  random: () => number;
}

export class Worker {
  private readonly running = new Map<number, Running>();
  private readonly executor: TaskExecutor;
  private stopping = false;
  /** messages taken and not yet done with: what the concurrency limit counts */
  private slots = 0;
  private drainNoticed = false;
  private loop: Promise<void> | undefined;
  private readonly startedAt: number;
  private readonly timers: (() => void)[] = [];
  /** heartbeats under way */
  private readonly beats = new Set<Promise<void>>();
  private idle: (() => void) | undefined;
  private wakeOnStop: () => void = () => undefined;
  private unsubscribe: (() => void) | undefined;
  /** this process's hold on its worker id (see worker-identity.ts) */
  private readonly registration: WorkerIdentity;
  private readonly stopSignal = new Promise<void>((resolve) => (this.wakeOnStop = resolve));

  constructor(
    private readonly store: InstanceStore & ReadModelStore & WorkerStore & RunStore & LogStore,
    private readonly coordinator: Coordinator,
    runner: ProcessRunner,
    private readonly logs: LogWriter,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly options: WorkerOptions,
    /**
     * Records an outcome with its follow-ups (RunManager.finish: one store step); false when the
     * guard refused it
     */
    recordOutcome: RunManager['finish'],
    /** told once an outcome is recorded: a slot is free */
    wakeDispatcher: Dispatcher['wake'],
    private readonly alert: (message: string) => void,
  ) {
    this.startedAt = clock.now();
    const gone = (h: WorkerRecord) => options.holderGone?.(h) ?? false;
    this.registration = new WorkerIdentity(
      store,
      coordinator,
      clock,
      options.workerHeartbeatMs,
      gone,
      alert,
      () => this.loseIdentity(),
      options.random,
      this.record(),
      options.nodeKey,
    );
    this.executor = new TaskExecutor(
      store,
      coordinator,
      runner,
      logs,
      clock,
      options,
      () => this.identityLost,
      recordOutcome,
      wakeDispatcher,
      alert,
    );
  }

  /** another node holds this id now: nothing more is written or started under it */
  private get identityLost(): boolean {
    return this.registration.lost;
  }

  get id(): string {
    return this.options.id;
  }

  /**
   * Makes the worker id this process's before anything runs under it (start-up recovery too);
   * throws a conflict naming the live holder.
   */
  claim(): Promise<void> {
    return this.registration.claim(this.record());
  }

  async start(): Promise<void> {
    await this.claim();
    await this.heartbeat();
    // The worker heartbeat keeps its cadence however long one write takes (the seed's incident:
    // a loaded worker's heartbeats stretched out and healthy tasks were judged lost).
    this.every(this.options.workerHeartbeatMs, () => this.heartbeat(), 'fixed');
    this.every(this.options.taskHeartbeatMs, () => this.beatTasks());
    // A cancel taken by another process (a CLI, another node) reaches this worker as an event;
    // the worker heartbeat's look at the store is the safety net for an event lost on the way.
    this.unsubscribe = await this.coordinator.subscribe(
      (e) => {
        // only cancels reach here (instanceStates)
        if (e.type !== 'instance' || !this.running.has(e.instanceId)) return;
        void this.store
          .cancelledAmong([e.instanceId])
          .then((ids) => ids.forEach((id) => this.stopCancelled(id)))
          .catch(() => undefined);
      },
      { instanceStates: ['CANCELLED'] },
    );
    this.loop = this.takeLoop();
  }

  /**
   * A user cancelled an instance this worker runs: stop its process group now. Called by the
   * engine that took the cancel when it is this worker's own, else found at the next heartbeat.
   */
  stopCancelled(instanceId: number): void {
    const r = this.running.get(instanceId);
    if (!r || r.cancelled) return;
    r.cancelled = true;
    // Its process has ended and its group was stopped before the outcome: what `ax cancel` waits for is so.
    if (r.reporting) return this.logs.system(instanceId, STOPPED_LINE);
    // Already being stopped for another reason (a task heartbeat that found the cancel before its
    // event came took it for a take-over): the kill under way goes on, and its end is still said.
    this.logs.system(
      instanceId,
      `cancelled: SIGTERM to the process group, SIGKILL after ${formatDuration(this.options.killGraceMs)}`,
    );
    this.stopTask(r, because('stop_cancelled'));
  }

  /** Stops every running task now: SIGKILL to their groups (a second Ctrl-C); resolves once they are gone. */
  async killAll(reason: Reason): Promise<void> {
    await Promise.all(
      [...this.running.values()].map((r) => {
        r.stopReason ??= reason;
        return r.process?.terminate(0);
      }),
    );
  }

  /** The worker itself stops a task (cancel, take-over, shutdown): its outcome carries the reason. */
  private stopTask(r: Running, reason: Reason): Promise<void> | undefined {
    r.stopReason ??= reason;
    return r.process?.terminate(this.options.killGraceMs);
  }

  /** Calls fn every ms (see repeat), until the worker is stopping with nothing left running. */
  private every(ms: number, fn: () => Promise<void>, cadence: 'after' | 'fixed' = 'after'): void {
    this.timers.push(
      repeat(this.clock, ms, fn, {
        cadence,
        onError: (err) => this.alert(`worker ${this.id}: ${err instanceof Error ? err.message : String(err)}`),
        until: () => this.stopping && this.running.size === 0,
      }),
    );
  }

  record(): WorkerRecord {
    const o = this.options;
    return {
      id: o.id,
      host: o.host,
      pid: o.pid,
      version: o.version,
      labels: o.labels,
      maxConcurrency: o.maxConcurrency,
      running: this.running.size,
      instances: [...this.running.keys()],
      startedAt: this.startedAt,
      lastHeartbeat: this.clock.now(),
      status: this.stopping ? 'draining' : 'online',
      role: o.role,
      acceptUnlabelled: o.acceptUnlabelled,
      acceptWorkflows: o.acceptWorkflows,
    };
  }

  private heartbeat(): Promise<void> {
    const beat = this.beatOnce();
    this.beats.add(beat);
    void beat.then(
      () => this.beats.delete(beat),
      () => this.beats.delete(beat),
    );
    return beat;
  }

  private async beatOnce(): Promise<void> {
    if (this.identityLost) return;
    const rec = this.record();
    const { live, stored } = this.registration.beat(rec);
    const writes = await Promise.allSettled([live, stored]);
    for (const w of writes) if (w.status === 'rejected') throw w.reason;
    const ids = [...this.running.keys()];
    if (ids.length) for (const id of await this.store.cancelledAmong(ids)) this.stopCancelled(id);
    if (!this.stopping && !this.drainNoticed && (await this.coordinator.drainRequested(this.id))) {
      if (this.drainNoticed) return;
      this.drainNoticed = true;
      // The store's count, as `ax workers`, `ax drain` and the UI show it (one source).
      const counts = await this.store.runningCountByWorker().catch(() => undefined);
      const running = counts ? (counts.get(this.id) ?? 0) : this.running.size;
      this.alert(`worker ${this.id}: drain requested: taking nothing new, finishing ${running} running task(s)`);
      this.options.onDrainRequested?.();
    }
  }

  /**
   * Another node took this id while this one was judged lost (frozen, cut off): whatever runs
   * here now competes with the new holder, so it is stopped, and nothing more is written or taken.
   */
  private loseIdentity(): void {
    this.stopping = true;
    this.wakeOnStop();
    this.idle?.();
    this.alert(
      `worker ${this.id}: another node now holds this worker id (this one was judged lost); stopping its ${this.running.size} task(s) and taking nothing new`,
    );
    for (const r of this.running.values()) void this.stopTask(r, because('stop_identity_lost'));
    this.options.onIdentityLost?.();
  }

  /** Task heartbeats: every running instance each interval, one round trip; fenced-off ones are killed. */
  private async beatTasks(): Promise<void> {
    const list = [...this.running.values()].filter((r) => r.process);
    if (list.length === 0) return;
    const at = this.clock.now();
    const beats = list.map((r) => ({ instanceId: r.inst.id, attempt: r.inst.attempt, at }));
    const owned = await this.store.recordTaskHeartbeats(this.id, beats);
    const lost = list.filter((r) => !owned.has(r.inst.id) && !r.stopReason && !r.reporting);
    if (lost.length === 0) return;
    // Not owned because a user cancelled it, its event not heard yet: a cancel, not a take-over.
    const cancelled = new Set(await this.store.cancelledAmong(lost.map((r) => r.inst.id)));
    for (const r of lost) {
      if (cancelled.has(r.inst.id)) this.stopCancelled(r.inst.id);
      else if (!r.stopReason && !r.reporting) {
        const why = because('stop_not_owned');
        this.alert(`instance ${r.inst.id} attempt ${r.inst.attempt}: ${why.reason}; killing its process`);
        void this.stopTask(r, why);
      }
    }
  }

  private async takeLoop(): Promise<void> {
    while (!this.stopping) {
      // The coordinator unreachable (Redis down): say so, wait, try again; running tasks go on.
      await retrying(this.clock, () => this.takeOnce(), {
        firstMs: 100,
        maxMs: 5_000,
        interrupt: this.stopSignal,
        onRetry: (err, delay) =>
          this.alert(
            `worker ${this.id}: cannot take work: ${err instanceof Error ? err.message : String(err)}; retrying in ${delay} ms`,
          ),
      });
    }
  }

  /** Takes what fits in the free slots and starts it; with nothing to take, waits for work. */
  private async takeOnce(): Promise<void> {
    if (this.stopping) return;
    // Slots are taken when a message is, not when its task starts (a few awaits later), so
    // the concurrency limit is a hard one.
    const free = this.options.maxConcurrency - this.slots;
    if (free <= 0) {
      await new Promise<void>((resolve) => (this.idle = resolve));
      return;
    }
    const messages = await this.coordinator.take(this.id, free);
    for (const m of messages) {
      this.slots += 1;
      let freed = false;
      const freeSlot = (): void => {
        if (freed) return;
        freed = true;
        this.slots -= 1;
        this.idle?.();
        this.idle = undefined;
      };
      // InstanceStore & ReadModelStore or Redis away before the task started: the message stays in flight and the
      // instance DISPATCHED, which the scheduler dispatches again (redispatchAfterMs).
      void this.execute(m, freeSlot)
        .catch((err: unknown) =>
          this.alert(
            `dispatch of instance ${m.instanceId} attempt ${m.attempt} not started: ${err instanceof Error ? err.message : String(err)}`,
          ),
        )
        .finally(freeSlot);
    }
    if (messages.length > 0) return;
    await Promise.race([this.coordinator.waitForWork(this.id, 1_000), this.stopSignal]);
  }

  /** `freeSlot`: the slot may take the next message (once the task is over; called again after, it does nothing). */
  private async execute(message: DispatchMessage, freeSlot: () => void): Promise<void> {
    const refuse = async (why: string) => {
      this.alert(`dispatch of instance ${message.instanceId} attempt ${message.attempt} ignored: ${why}`);
      await this.coordinator.ack(this.id, message);
    };
    // Under a lost id the dispatch is the new holder's: left in flight, it is dispatched again.
    if (this.identityLost) return;
    const admission = await admitDispatch(this.store, this.workflows, this.options, message);
    if ('refused' in admission) return refuse(admission.refused);
    const { inst, wf, task } = admission;
    const lockTtl = (task.timeoutMs ?? 86_400_000) + 2 * this.options.killGraceMs + 60_000;
    if (!(await this.coordinator.acquireStartLock(inst.id, inst.attempt, lockTtl)))
      return refuse('its start lock is held, so it is already starting or running: a duplicate delivery');

    const entry: Running = { inst, message, timedOut: false };
    this.running.set(inst.id, entry);
    try {
      await this.executor.run(entry, task, wf.graph.name, wf);
    } catch (err) {
      this.alert(`instance ${inst.id}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.running.delete(inst.id);
      // The task is over and its outcome recorded: the next take goes out with the release and
      // the ack below (one write to Redis) rather than a round trip after them.
      freeSlot();
      // Best effort: with Redis away the lock expires by its TTL, and the in-flight entry is only
      // a record; the outcome is already in the store.
      const cleanup = await Promise.allSettled([
        this.coordinator.releaseStartLock(inst.id, inst.attempt),
        this.coordinator.ack(this.id, message),
      ]);
      const failed = cleanup.find((c) => c.status === 'rejected');
      if (failed) this.alert(`instance ${inst.id}: could not clear its live state: ${String(failed.reason)}`);
    }
  }

  /**
   * Drain: take nothing new, let running tasks finish for up to timeoutMs, then stop the rest
   * (SIGTERM, SIGKILL after the grace); they are recorded FAILED with the reason.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.wakeOnStop();
    this.idle?.();
    await this.heartbeat().catch(() => undefined);
    const deadline = this.clock.now() + timeoutMs;
    while (this.running.size > 0 && this.clock.now() < deadline) {
      await new Promise<void>((resolve) => this.clock.setTimer(Math.min(100, deadline - this.clock.now()), resolve));
    }
    const left = [...this.running.values()];
    for (const r of left) {
      r.stopReason = because('stop_drain_timeout', { timeout: timeoutMs });
      this.logs.system(r.inst.id, r.stopReason.reason);
    }
    await Promise.all(left.map((r) => r.process?.terminate(this.options.killGraceMs)));
    while (this.running.size > 0) await new Promise<void>((resolve) => this.clock.setTimer(20, resolve));
    for (const cancel of this.timers) cancel();
    this.unsubscribe?.();
    // A beat still under way must not register this worker again after it is gone.
    await Promise.allSettled([...this.beats]);
    await this.loop;
    await this.registration.leave(this.record());
  }
}

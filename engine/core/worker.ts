// The embedded worker: takes dispatches from its queue, loads the command from the store by
// instance id (never from the message), runs it in its own process group, streams its lines to
// the log writer, enforces the timeout (SIGTERM, SIGKILL after the grace) and records the
// outcome with a fenced compare-and-set. It never blocks the scheduler: all waiting is async.
import type { InstanceRecord, InstanceState, RunRecord, WorkerRecord } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator, DispatchMessage } from '../ports/coordinator.ts';
import { instanceEvent } from './events.ts';
import type { ProcessRunner, RunningProcess } from '../ports/process-runner.ts';
import type { Finish, InstanceGuard, InstancePatch, Store, TaskDefinition } from '../ports/store.ts';
import { admitDispatch } from './dispatch-admission.ts';
import { formatDuration } from './duration.ts';
import { appendLateLine } from './late-log-line.ts';
import type { LogWriter } from './log-writer.ts';
import { persistently } from './persist.ts';
import { repeat } from './repeat.ts';
import { retrying } from './retry.ts';
import { taskLaunch, taskOutcome } from './task-launch.ts';
import { WorkerIdentity } from './worker-identity.ts';
import type { WorkflowCache } from './workflow-cache.ts';


/** how many runs' records a worker keeps for its tasks' environments */
const RUN_CACHE_SIZE = 64;
export interface WorkerOptions {
  id: string;
  host: string;
  pid: number;
  version: string;
  labels: string[];
  acceptUnlabelled: boolean;
  acceptWorkflows?: string[];
  maxConcurrency: number;
  workerHeartbeatMs: number;
  taskHeartbeatMs: number;
  killGraceMs: number;
  maxLineBytes: number;
  /** the environment every task starts from (the engine's own, usually) */
  baseEnv: Record<string, string>;
  /** `ax drain` asked this worker to drain; the host decides how (usually: drain, then exit) */
  onDrainRequested?: () => void;
  /** shown by `ax workers` */
  role?: string;
  /**
   * The host's own knowledge that the process holding this id is dead (it ran here and is gone;
   * in solo mode the data-dir lock proves it): its id is taken over at once, not after it goes stale.
   */
  holderGone?: (holder: WorkerRecord) => boolean;
  /** another node took this worker's id (it was judged lost): its tasks are stopped; the host should exit */
  onIdentityLost?: () => void;
}

interface Running {
  inst: InstanceRecord;
  message: DispatchMessage;
  process?: RunningProcess;
  timedOut: boolean;
  /** set when the worker itself stops the process (fenced off, shutdown) */
  stopReason?: string;
  /** its process ended and the outcome is being written: a beat that misses it is no take-over */
  reporting?: boolean;
  /** a user cancelled it: the store already says CANCELLED, so the refused outcome is expected */
  cancelled?: boolean;
}

export class Worker {
  private readonly running = new Map<number, Running>();
  /** runs of recent tasks, oldest first (see runOf) */
  private readonly runs = new Map<number, RunRecord>();
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
    private readonly store: Store,
    private readonly coordinator: Coordinator,
    private readonly runner: ProcessRunner,
    private readonly logs: LogWriter,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly options: WorkerOptions,
    /**
     * Records an outcome with its follow-ups (RunManager.finish: one store step); false when the
     * guard refused it
     */
    private readonly recordOutcome: (inst: InstanceRecord, guard: InstanceGuard, to: Finish['to'], patch: InstancePatch) => Promise<boolean>,
    /** told once an outcome is recorded: a slot is free */
    private readonly onFinished: () => void,
    private readonly alert: (message: string) => void,
  ) {
    this.startedAt = clock.now();
    const gone = (h: WorkerRecord) => options.holderGone?.(h) ?? false;
    this.registration = new WorkerIdentity(store, coordinator, clock, options.workerHeartbeatMs, gone, alert, () => this.loseIdentity(), this.record());
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
    this.unsubscribe = await this.coordinator.subscribe((e) => {
      if (e.type !== 'instance' || e.state !== 'CANCELLED' || !this.running.has(e.instanceId)) return;
      void this.store
        .cancelledAmong([e.instanceId])
        .then((ids) => ids.forEach((id) => this.stopCancelled(id)))
        .catch(() => undefined);
    });
    this.loop = this.takeLoop();
  }

  /**
   * A user cancelled an instance this worker runs: stop its process group now. Called by the
   * engine that took the cancel when it is this worker's own, else found at the next heartbeat.
   */
  stopCancelled(instanceId: number): void {
    const r = this.running.get(instanceId);
    if (!r || r.stopReason || r.reporting) return;
    r.cancelled = true;
    this.logs.system(instanceId, `cancelled: SIGTERM to the process group, SIGKILL after ${formatDuration(this.options.killGraceMs)}`);
    this.stopTask(r, 'cancelled');
  }

  /** Stops every running task now: SIGKILL to their groups (a second Ctrl-C); resolves once they are gone. */
  async killAll(reason: string): Promise<void> {
    await Promise.all(
      [...this.running.values()].map((r) => {
        r.stopReason ??= reason;
        return r.process?.terminate(0);
      }),
    );
  }

  /** The worker itself stops a task (cancel, take-over, shutdown): its outcome carries the reason. */
  private stopTask(r: Running, reason: string): Promise<void> | undefined {
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
      this.alert(`worker ${this.id}: drain requested: taking nothing new, finishing ${this.running.size} running task(s)`);
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
    this.alert(`worker ${this.id}: another node now holds this worker id (this one was judged lost); stopping its ${this.running.size} task(s) and taking nothing new`);
    for (const r of this.running.values()) void this.stopTask(r, 'this worker lost its id to another node (it was judged lost)');
    this.options.onIdentityLost?.();
  }

  /** Task heartbeats: every running instance each interval, one round trip; fenced-off ones are killed. */
  private async beatTasks(): Promise<void> {
    const list = [...this.running.values()].filter((r) => r.process);
    if (list.length === 0) return;
    const at = this.clock.now();
    const beats = list.map((r) => ({ instanceId: r.inst.id, attempt: r.inst.attempt, at }));
    const owned = await this.store.recordTaskHeartbeats(this.id, beats);
    for (const r of list) {
      if (!owned.has(r.inst.id) && !r.stopReason && !r.reporting) {
        const why = 'this worker no longer owns the instance (taken over after it was judged lost)';
        this.alert(`instance ${r.inst.id} attempt ${r.inst.attempt}: ${why}; killing its process`);
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
        onRetry: (err, delay) => this.alert(`worker ${this.id}: cannot take work: ${err instanceof Error ? err.message : String(err)}; retrying in ${delay} ms`),
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
      // Store or Redis away before the task started: the message stays in flight and the
      // instance DISPATCHED, which the scheduler dispatches again (redispatchAfterMs).
      void this.execute(m)
        .catch((err: unknown) =>
          this.alert(`dispatch of instance ${m.instanceId} attempt ${m.attempt} not started: ${err instanceof Error ? err.message : String(err)}`),
        )
        .finally(() => {
          this.slots -= 1;
          this.idle?.();
          this.idle = undefined;
        });
    }
    if (messages.length > 0) return;
    await Promise.race([this.coordinator.waitForWork(this.id, 1_000), this.stopSignal]);
  }

  private async execute(message: DispatchMessage): Promise<void> {
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
    if (!(await this.coordinator.acquireStartLock(inst.id, inst.attempt, lockTtl))) return refuse('its start lock is held, so it is already starting or running: a duplicate delivery');

    const entry: Running = { inst, message, timedOut: false };
    this.running.set(inst.id, entry);
    try {
      await this.run(entry, task, wf.graph.name);
    } catch (err) {
      this.alert(`instance ${inst.id}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.running.delete(inst.id);
      this.idle?.();
      this.idle = undefined;
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

  private async run(entry: Running, task: TaskDefinition, workflowName: string): Promise<void> {
    const { inst } = entry;
    const guard = { from: ['DISPATCHED' as InstanceState], attempt: inst.attempt, workerId: this.id };
    const startedAt = this.clock.now();
    if (!(await this.store.transitionInstance(inst.id, guard, 'RUNNING', { startedAt, heartbeatAt: startedAt }))) {
      this.alert(`instance ${inst.id} attempt ${inst.attempt}: start refused, it changed state meanwhile`);
      return;
    }
    const running = { ...inst, state: 'RUNNING' as const, startedAt };
    void this.coordinator.publish(instanceEvent(running, this.clock.now())).catch(() => undefined);
    // RUNNING now: a read that failed here (the database away) would leave it RUNNING with no
    // process, to be failed over later; so it waits for the database like the writes do.
    const run = await this.persist(`read the run of instance ${inst.id}`, () => this.runOf(inst.runId));
    this.logs.open(inst.id);
    const { env, envFiles } = taskLaunch(this.options.baseEnv, task, workflowName, inst, run, startedAt);
    const fence = { from: ['RUNNING' as InstanceState], attempt: inst.attempt, workerId: this.id };
    try {
      entry.process = await this.runner.start(
        { command: task.command, cwd: task.cwd, env, maxLineBytes: this.options.maxLineBytes, ...(envFiles && { envFiles }) },
        { onLine: (stream, line, bytes) => this.logs.append(inst.id, stream, line, bytes) },
      );
    } catch (err) {
      const reason = `could not start: ${err instanceof Error ? err.message : String(err)}`;
      this.logs.system(inst.id, reason);
      await this.finish(entry, fence, 'FAILED', { reason });
      return;
    }
    // Cancelled (or otherwise stopped) between RUNNING and the spawn: it goes at once.
    if (entry.stopReason) void entry.process.terminate(this.options.killGraceMs);
    await this.persist(`record the pid of instance ${inst.id}`, () => this.store.transitionInstance(inst.id, fence, undefined, { pid: entry.process?.pid }));
    const cancelTimeout =
      task.timeoutMs === undefined
        ? undefined
        : this.clock.setTimer(task.timeoutMs, () => {
            entry.timedOut = true;
            this.logs.system(inst.id, `timed out after ${formatDuration(task.timeoutMs as number)}: SIGTERM to the process group, SIGKILL after ${formatDuration(this.options.killGraceMs)}`);
            void entry.process?.terminate(this.options.killGraceMs);
          });
    const exit = await entry.process.exited;
    cancelTimeout?.();
    // Anything the command left running in its group goes with it: a retry must never overlap
    // a live leftover of the previous attempt (SPEC §7).
    await entry.process.terminate(this.options.killGraceMs);
    // What `ax cancel` waits for: the cancelled task's group is gone.
    if (entry.cancelled) this.logs.system(inst.id, 'stopped: no process of its group is left');
    const { state, reason, failedOver } = taskOutcome(entry, exit, task.timeoutMs);
    if (failedOver) this.logs.system(inst.id, reason as string);
    await this.finish(entry, fence, state, { exitCode: exit.code ?? undefined, reason, failedOver });
    // What left the group (setsid, a daemon) outlives the task: said at the end of its log where
    // the platform can tell, after the outcome, so that looking never delays a task or a slot.
    void this.reportLeftRunning(inst.id, entry.process);
  }

  /**
   * What a task's environment takes from its run (id, logical time, trigger, payload) never
   * changes: read once per run, not once per task (a run of 2,000 tasks is one read).
   */
  private async runOf(runId: number): Promise<RunRecord | undefined> {
    const cached = this.runs.get(runId);
    if (cached) return cached;
    const run = await this.store.getRun(runId);
    if (run) {
      if (this.runs.size >= RUN_CACHE_SIZE) this.runs.delete(this.runs.keys().next().value as number);
      this.runs.set(runId, run);
    }
    return run;
  }

  private async reportLeftRunning(instanceId: number, process: RunningProcess): Promise<void> {
    const left = await process.leftRunning?.().catch(() => []);
    for (const l of left ?? []) {
      await appendLateLine(this.store, this.coordinator, this.clock, instanceId, `left running: pid ${l.pid} (${l.command}): it left the task's process group, so it was not stopped with the task`);
    }
  }

  private async finish(
    entry: Running,
    fence: { from: InstanceState[]; attempt: number; workerId: string },
    state: Finish['to'],
    patch: { exitCode?: number; reason?: string; failedOver?: true },
  ): Promise<void> {
    const { inst } = entry;
    if (this.identityLost) {
      // Not ours to report: the scheduler fails it over (its new holder does not list it).
      this.alert(`instance ${inst.id} attempt ${inst.attempt}: ${state} not recorded: this worker lost its id`);
      return;
    }
    entry.reporting = true;
    // The log goes in before the outcome: a finished task's log is never lost. If the store
    // keeps refusing it, the outcome says so rather than passing for complete.
    const unstored = await this.logs.close(inst.id);
    if (unstored > 0) {
      const lost = `its log is incomplete: ${unstored} line(s) could not be stored`;
      patch = { ...patch, reason: patch.reason ? `${patch.reason}; ${lost}` : lost };
      this.alert(`instance ${inst.id} attempt ${inst.attempt} (${state}): ${lost}`);
    }
    const finishedAt = this.clock.now();
    let recorded: boolean;
    try {
      recorded = await this.persist(`record ${state} of instance ${inst.id}`, () => this.recordOutcome(inst, fence, state, { ...patch, finishedAt }));
    } catch (err) {
      // The store refuses for good (its file deleted under the engine): the outcome is said here,
      // since it can be kept nowhere else.
      const exit = patch.exitCode === undefined ? '' : ` (exit code ${patch.exitCode})`;
      this.alert(`task ${inst.taskName} of run #${inst.runId} (instance ${inst.id}, attempt ${inst.attempt}) ended ${state}${exit}, NOT recorded: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (!recorded) {
      // A retried write is refused when an earlier try landed but its reply was lost with the
      // connection: then the row holds exactly this outcome, and it is ours.
      const now = await this.persist(`read instance ${inst.id}`, () => this.store.getInstance(inst.id));
      const ours = now?.state === state && now.attempt === inst.attempt && now.workerId === this.id && now.finishedAt === finishedAt;
      if (!ours) {
        if (entry.cancelled || now?.state === 'CANCELLED') return;
        this.alert(`instance ${inst.id} attempt ${inst.attempt}: outcome ${state} refused, the instance was taken over`);
        return;
      }
    }
    this.onFinished();
  }

  /** Up to ten minutes of retries, then the scheduler's backstops take over. */
  private persist<T>(what: string, write: () => Promise<T>): Promise<T> {
    return persistently(this.clock, write, (err, delay) =>
      this.alert(`worker ${this.id}: could not ${what} (${err instanceof Error ? err.message : String(err)}); retrying in ${delay} ms`),
    );
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
      r.stopReason = `stopped: the engine shut down and the drain timeout (${formatDuration(timeoutMs)}) ran out`;
      this.logs.system(r.inst.id, r.stopReason);
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

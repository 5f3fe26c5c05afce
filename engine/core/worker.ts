// The embedded worker: takes dispatches from its queue, loads the command from the store by
// instance id (never from the message), runs it in its own process group, streams its lines to
// the log writer, enforces the timeout (SIGTERM, SIGKILL after the grace) and records the
// outcome with a fenced compare-and-set. It never blocks the scheduler: all waiting is async.
import type { InstanceRecord, InstanceState, WorkerRecord } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator, DispatchMessage } from '../ports/coordinator.ts';
import { instanceEvent } from './events.ts';
import type { ProcessRunner, RunningProcess } from '../ports/process-runner.ts';
import type { Store, TaskDefinition } from '../ports/store.ts';
import { formatDuration } from './duration.ts';
import type { LogWriter } from './log-writer.ts';
import { accepts } from './routing.ts';
import type { WorkflowCache } from './workflow-cache.ts';

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
}

export class Worker {
  private readonly running = new Map<number, Running>();
  private stopping = false;
  /** messages taken and not yet done with: what the concurrency limit counts */
  private slots = 0;
  private drainNoticed = false;
  private loop: Promise<void> | undefined;
  private readonly startedAt: number;
  private readonly timers: (() => void)[] = [];
  /** heartbeats under way, and the one store write of them in flight */
  private readonly beats = new Set<Promise<void>>();
  private storeBeat: Promise<void> | undefined;
  private idle: (() => void) | undefined;
  private wakeOnStop: () => void = () => undefined;
  private readonly stopSignal = new Promise<void>((resolve) => (this.wakeOnStop = resolve));

  constructor(
    private readonly store: Store,
    private readonly coordinator: Coordinator,
    private readonly runner: ProcessRunner,
    private readonly logs: LogWriter,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly options: WorkerOptions,
    /** called after an outcome is recorded, so the scheduler can react at once */
    private readonly onFinished: (inst: InstanceRecord) => void,
    private readonly alert: (message: string) => void,
  ) {
    this.startedAt = clock.now();
  }

  get id(): string {
    return this.options.id;
  }

  get instanceIds(): number[] {
    return [...this.running.keys()];
  }

  get runningCount(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    await this.heartbeat();
    // The worker heartbeat keeps its cadence however long one write takes (the seed's incident:
    // a loaded worker's heartbeats stretched out and healthy tasks were judged lost).
    this.every(this.options.workerHeartbeatMs, () => this.heartbeat(), 'fixed');
    this.every(this.options.taskHeartbeatMs, () => this.beatTasks());
    this.loop = this.takeLoop();
  }

  /** Calls fn every ms: after the previous call ended, or (`fixed`) on the clock, not waiting for it. */
  private every(ms: number, fn: () => Promise<void>, cadence: 'after' | 'fixed' = 'after'): void {
    let cancel: () => void = () => undefined;
    const schedule = () => {
      if (this.stopping && this.running.size === 0) return;
      cancel = this.clock.setTimer(ms, () => {
        const call = fn().catch((err: unknown) => this.alert(`worker ${this.id}: ${String(err)}`));
        if (cadence === 'fixed') schedule();
        else void call.finally(schedule);
      });
    };
    this.timers.push(() => cancel());
    schedule();
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
    const rec = this.record();
    // Both, independently: the scheduler judges this worker by the fresher of the two (SPEC §7),
    // so an outage of either must not silence it. At most one store write is in flight: under
    // load it queues behind this worker's own writes, and a beat must neither wait for an earlier
    // one nor pile more behind it; the live registration goes out on every beat regardless.
    const stored = this.storeBeat ? undefined : (this.storeBeat = this.store.upsertWorker(rec).finally(() => (this.storeBeat = undefined)));
    const writes = await Promise.allSettled([this.coordinator.heartbeatWorker(rec, 3 * this.options.workerHeartbeatMs), stored]);
    for (const w of writes) if (w.status === 'rejected') throw w.reason;
    if (!this.stopping && !this.drainNoticed && (await this.coordinator.drainRequested(this.id))) {
      if (this.drainNoticed) return;
      this.drainNoticed = true;
      this.alert(`worker ${this.id}: drain requested: taking nothing new, finishing ${this.running.size} running task(s)`);
      this.options.onDrainRequested?.();
    }
  }

  /** Task heartbeats: every running instance each interval, one round trip; fenced-off ones are killed. */
  private async beatTasks(): Promise<void> {
    const list = [...this.running.values()].filter((r) => r.process);
    if (list.length === 0) return;
    const at = this.clock.now();
    const beats = list.map((r) => ({ instanceId: r.inst.id, attempt: r.inst.attempt, at }));
    await this.coordinator.heartbeatTasks(beats);
    const owned = await this.store.recordTaskHeartbeats(this.id, beats);
    for (const r of list) {
      if (!owned.has(r.inst.id) && !r.stopReason && !r.reporting) {
        r.stopReason = 'this worker no longer owns the instance (taken over after it was judged lost)';
        this.alert(`instance ${r.inst.id} attempt ${r.inst.attempt}: ${r.stopReason}; killing its process`);
        void r.process?.terminate(this.options.killGraceMs);
      }
    }
  }

  private async takeLoop(): Promise<void> {
    let backoffMs = 100;
    while (!this.stopping) {
      try {
        // Slots are taken when a message is, not when its task starts (a few awaits later), so
        // the concurrency limit is a hard one.
        const free = this.options.maxConcurrency - this.slots;
        if (free > 0) {
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
          backoffMs = 100;
          if (messages.length > 0) continue;
          await Promise.race([this.coordinator.waitForWork(this.id, 1_000), this.stopSignal]);
        } else {
          await new Promise<void>((resolve) => (this.idle = resolve));
        }
      } catch (err) {
        // The coordinator is unreachable (Redis down): say so, wait, try again; running tasks go on.
        this.alert(`worker ${this.id}: cannot take work: ${err instanceof Error ? err.message : String(err)}; retrying in ${backoffMs} ms`);
        await Promise.race([new Promise<void>((resolve) => this.clock.setTimer(backoffMs, resolve)), this.stopSignal]);
        backoffMs = Math.min(backoffMs * 2, 5_000);
      }
    }
  }

  private async execute(message: DispatchMessage): Promise<void> {
    const refuse = async (why: string) => {
      this.alert(`dispatch of instance ${message.instanceId} attempt ${message.attempt} ignored: ${why}`);
      await this.coordinator.ack(this.id, message);
    };
    const inst = await this.store.getInstance(message.instanceId);
    if (!inst) return refuse('no such instance');
    if (inst.state !== 'DISPATCHED' || inst.attempt !== message.attempt || inst.workerId !== this.id) {
      return refuse(`it is ${inst.state} (attempt ${inst.attempt}, worker ${inst.workerId ?? 'none'}): a duplicate or stale delivery`);
    }
    const wf = await this.workflows.get(inst.workflowId);
    const task = wf?.tasks.get(inst.taskId);
    if (!wf || !task) return refuse('its task no longer exists');
    const policy = { labels: this.options.labels, workflows: this.options.acceptWorkflows, acceptUnlabelled: this.options.acceptUnlabelled };
    if (!accepts(policy, { workflowName: wf.graph.name, labels: task.labels })) {
      await this.store.transitionInstance(inst.id, { from: ['DISPATCHED'], attempt: inst.attempt, workerId: this.id }, 'WAITING', {
        reason: `worker ${this.id} does not accept this task`,
      });
      return refuse('this worker does not accept it (accept-policy)');
    }
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
      // Best effort: with Redis away the lock expires by its TTL, and the beat and the in-flight
      // entry are only records; the outcome is already in the store.
      const cleanup = await Promise.allSettled([
        this.coordinator.releaseStartLock(inst.id, inst.attempt),
        this.coordinator.clearTaskHeartbeat(inst.id),
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
    this.publishState(running);
    // RUNNING now: a read that failed here (the database away) would leave it RUNNING with no
    // process, to be failed over later; so it waits for the database like the writes do.
    const run = await this.persist(`read the run of instance ${inst.id}`, () => this.store.getRun(inst.runId));
    this.logs.open(inst.id);
    const env: Record<string, string> = {
      ...this.options.baseEnv,
      ...task.env,
      AX_WORKFLOW: workflowName,
      AX_TASK: task.name,
      AX_RUN_ID: String(inst.runId),
      AX_INSTANCE_ID: String(inst.id),
      AX_ATTEMPT: String(inst.attempt),
      AX_LOGICAL_TIME: new Date(run?.logicalTime ?? startedAt).toISOString(),
      ...(run?.eventPayload !== undefined && { AX_EVENT_PAYLOAD: run.eventPayload }),
    };
    const fence = { from: ['RUNNING' as InstanceState], attempt: inst.attempt, workerId: this.id };
    try {
      entry.process = this.runner.start(
        { command: task.command, cwd: task.cwd, env, maxLineBytes: this.options.maxLineBytes },
        { onLine: (stream, line, bytes) => this.logs.append(inst.id, stream, line, bytes) },
      );
    } catch (err) {
      const reason = `could not start: ${err instanceof Error ? err.message : String(err)}`;
      this.logs.system(inst.id, reason);
      await this.finish(entry, fence, 'FAILED', { reason });
      return;
    }
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

    const state: InstanceState = entry.timedOut ? 'TIMEOUT' : entry.stopReason ? 'FAILED' : exit.code === 0 ? 'SUCCESS' : 'FAILED';
    const reason = entry.timedOut
      ? `timed out after ${formatDuration(task.timeoutMs as number)}`
      : entry.stopReason ?? (exit.signal ? `killed by ${exit.signal}` : exit.code === 0 ? undefined : `exit code ${exit.code}`);
    await this.finish(entry, fence, state, { exitCode: exit.code ?? undefined, reason });
  }

  private async finish(
    entry: Running,
    fence: { from: InstanceState[]; attempt: number; workerId: string },
    state: InstanceState,
    patch: { exitCode?: number; reason?: string },
  ): Promise<void> {
    const { inst } = entry;
    entry.reporting = true;
    // The log goes in before the outcome: a finished task's log is never lost.
    await this.logs.close(inst.id);
    const finishedAt = this.clock.now();
    if (!(await this.persist(`record ${state} of instance ${inst.id}`, () => this.store.transitionInstance(inst.id, fence, state, { ...patch, finishedAt })))) {
      // A retried write is refused when an earlier try landed but its reply was lost with the
      // connection: then the row holds exactly this outcome, and it is ours.
      const now = await this.persist(`read instance ${inst.id}`, () => this.store.getInstance(inst.id));
      const ours = now?.state === state && now.attempt === inst.attempt && now.workerId === this.id && now.finishedAt === finishedAt;
      if (!ours) {
        this.alert(`instance ${inst.id} attempt ${inst.attempt}: outcome ${state} refused, the instance was taken over`);
        return;
      }
    }
    this.onFinished({ ...inst, state, finishedAt, exitCode: patch.exitCode, reason: patch.reason, workerId: this.id });
  }

  /**
   * A write the outcome depends on survives a database restart: retried with backoff (up to ten
   * minutes, then the scheduler's backstops take over) rather than lost.
   */
  private async persist<T>(what: string, write: () => Promise<T>): Promise<T> {
    const giveUpAt = this.clock.now() + 600_000;
    for (let delay = 200; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        return await write();
      } catch (err) {
        if (this.clock.now() > giveUpAt) throw err;
        this.alert(`worker ${this.id}: could not ${what} (${err instanceof Error ? err.message : String(err)}); retrying in ${delay} ms`);
        await new Promise<void>((resolve) => this.clock.setTimer(delay, resolve));
      }
    }
  }

  private publishState(inst: InstanceRecord): void {
    void this.coordinator.publish(instanceEvent(inst, this.clock.now())).catch(() => undefined);
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
    // A beat still under way must not register this worker again after it is gone.
    await Promise.allSettled([...this.beats]);
    await this.loop;
    await this.coordinator.removeWorker(this.id);
    await this.store.upsertWorker({ ...this.record(), status: 'offline' });
  }
}

// The design.md §7 backstops as the leader runs them, every heartbeat interval: each DISPATCHED or
// RUNNING instance judged (backstops.ts) against its worker's heartbeats, and the verdict applied
// (redispatch, fail-over, TIMEOUT) with a fenced transition. A live worker's own timeout always
// fires before the scheduler's.
import type { WorkerRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import { EXTERNAL_TASK_ID, type InstanceStore, type WorkerStore } from '../../ports/store.ts';
import { type AlertHooks, NO_ALERTS } from '../alerts/alert-rules.ts';
import { judgeActive, type WorkerView } from '../model/backstops.ts';
import type { ReasonCode } from '../../api/reason-code.ts';
import { type EngineConfig, workerLostAfterMs } from '../model/config.ts';
import type { Dispatcher } from '../dispatch/dispatcher.ts';
import type { RunManager } from '../runs/run-manager.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

/** A DISPATCHED instance's worker judged lost: whatever start lock it took is freed with the requeue. */
const LOST_BEFORE_START: ReasonCode['code'][] = ['worker_lost_before_start', 'worker_unregistered_before_start'];

/** A worker silent for longer than this was lost long ago: no alert. */
const LOST_NEWS_MS = 3_600_000;

export class BackstopPass {
  private lastRunningCheck = 0;
  /** since when this scheduler's ticks fail (the store or Redis away): it sees nothing */
  private blindSince: number | undefined;
  /** when it could see again: silence before this is not held against workers or tasks */
  private sightSince = 0;
  /** when this process was not run (notRun), oldest first */
  private readonly stalls: { at: number; ms: number }[] = [];
  /** losses already reported (worker id and its last heartbeat) */
  private readonly reportedLost = new Set<string>();

  constructor(
    private readonly store: InstanceStore & WorkerStore,
    private readonly coordinator: Coordinator,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly config: EngineConfig,
    private readonly runs: RunManager,
    private readonly wakeDispatcher: Dispatcher['wake'],
    private readonly alert: (message: string) => void,
    /** the worker embedded in this engine, if any: asked directly, never judged by its heartbeat */
    private readonly localWorker?: () => WorkerRecord | undefined,
    private readonly alerts: AlertHooks = NO_ALERTS,
  ) {}

  /**
   * This process was not run for `ms` (its tick's timer fired that late). When the whole machine
   * stalled (a virtual machine paused, a host asleep) the workers on it were not run either and
   * wrote no heartbeat, and the first look now would find them all as silent as the stall was
   * long: judged on it, live workers would fail over and their tasks run twice. That time is not
   * counted in anyone's silence (credited); a worker that is really gone is judged as late as the
   * stall was long, never not at all.
   */
  notRun(ms: number): void {
    const at = this.clock.now();
    this.stalls.push({ at, ms });
    // A stall older than an hour no longer matters: a heartbeat before it is old news anyway.
    while (this.stalls.length > 100 || (this.stalls[0] && this.stalls[0].at < at - LOST_NEWS_MS)) this.stalls.shift();
  }

  /** A heartbeat time moved later by the time this process was not run since then. */
  private credited(heartbeat: number): number {
    let credit = 0;
    for (const s of this.stalls) if (s.at > heartbeat) credit += Math.min(s.ms, s.at - heartbeat);
    return heartbeat + credit;
  }

  /** A scheduler tick failed: the store or Redis is away, for the workers too. */
  blind(): void {
    this.blindSince ??= this.clock.now();
  }

  /**
   * A worker silent past the lost threshold (and not for hours: one gone long ago is old news)
   * raises `worker_lost`, once per silence; a worker that left cleanly is `offline`, not lost.
   */
  private reportLost(stored: WorkerRecord[], views: Map<string, WorkerView>, now: number): void {
    const lostAfter = workerLostAfterMs(this.config);
    for (const w of stored) {
      const last = views.get(w.id)?.lastHeartbeat ?? w.lastHeartbeat;
      const silent = now - last;
      const key = `${w.id}:${w.lastHeartbeat}`;
      if (w.status === 'offline' || silent <= lostAfter || silent > LOST_NEWS_MS || this.reportedLost.has(key))
        continue;
      this.reportedLost.add(key);
      if (this.reportedLost.size > 1000) this.reportedLost.delete(this.reportedLost.values().next().value as string);
      this.alerts.workerLost(w, silent);
    }
  }

  async checkRunning(): Promise<void> {
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
    const stored = await this.store.listWorkers();
    const views = new Map<string, WorkerView>(
      // The fresher of a worker's two heartbeats: the database's survives a Redis flush, the live
      // registration's is not held up behind the worker's other writes when it is loaded.
      stored.map((w) => [
        w.id,
        {
          lastHeartbeat: this.credited(Math.max(w.lastHeartbeat, live.get(w.id)?.lastHeartbeat ?? 0, this.sightSince)),
          running: live.get(w.id)?.instances,
        },
      ]),
    );
    // This process's own worker is alive as long as this code runs, however late its heartbeat
    // write is under load: never fail it over (that would run its tasks twice).
    const own = this.localWorker?.();
    if (own) views.set(own.id, { lastHeartbeat: now, running: own.instances ?? [] });
    this.reportLost(stored, views, now);
    const active = await this.store.instancesInStates(['DISPATCHED', 'RUNNING']);
    for (const inst of active) {
      // A monitor's run goes on outside, with no worker: its pings and the monitor check end it.
      if (inst.taskId === EXTERNAL_TASK_ID) continue;
      // A call: task waits for its child run, on no worker: judged by the call sweep below.
      if (inst.childRunId !== undefined) continue;
      const wf = await this.workflows.get(inst.workflowId);
      const seen = {
        ...inst,
        heartbeatAt: this.credited(Math.max(inst.heartbeatAt ?? inst.startedAt ?? inst.createdAt, this.sightSince)),
      };
      const verdict = judgeActive(
        seen,
        views.get(inst.workerId ?? ''),
        wf?.tasks.get(inst.taskId)?.timeoutMs,
        now,
        this.config,
      );
      if (!verdict) continue;
      const guard = { from: [inst.state], attempt: inst.attempt, workerId: inst.workerId };
      // A fail-over or timeout ends the instance with its follow-ups, in one store step.
      const done =
        verdict.to === 'WAITING'
          ? await this.store.requeueInstance(inst.id, guard, verdict.reason, verdict.reasonCode)
          : await this.runs.finish(inst, guard, verdict.to, {
              reason: verdict.reason,
              reasonCode: verdict.reasonCode,
              finishedAt: now,
              ...(verdict.failover && { failedOver: true }),
            });
      if (!done) continue;
      // Its lost worker may have died holding the attempt's start lock (taken, not yet started):
      // freed now, or the next worker's delivery of the same attempt is refused until it expires.
      if (LOST_BEFORE_START.includes(verdict.reasonCode.code))
        await this.coordinator.clearStartLock(inst.id, inst.attempt).catch(() => undefined);
      this.alert(`instance ${inst.id} (${inst.taskName}): ${verdict.reason}`);
      this.wakeDispatcher();
    }
    await this.runs.calls.sweep(active);
  }
}

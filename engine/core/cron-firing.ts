// Cron firing, by the leader: each scan plans every schedule's fires (misfire policy after
// downtime, exact timers within the look-ahead window) and starts the due runs; a schedule that
// cannot be planned is reported on its workflow. The store's fire key makes a fire create one
// run even when two schedulers both believe they lead.
import type { Clock } from '../ports/clock.ts';
import type { ScheduleRecord, Store } from '../ports/store.ts';
import type { EngineConfig } from './config.ts';
import { nextFire } from './cron.ts';
import type { LeaderLease } from './leader-lease.ts';
import { planFires } from './misfire.ts';
import type { RunManager } from './run-manager.ts';
import type { WorkflowCache } from './workflow-cache.ts';

export class CronFiring {
  private readonly fireTimers = new Map<string, () => void>();

  constructor(
    private readonly store: Store,
    private readonly runs: RunManager,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly config: EngineConfig,
    private readonly lease: LeaderLease,
    private readonly alert: (message: string) => void,
  ) {}

  async scanSchedules(): Promise<void> {
    const now = this.clock.now();
    const schedules = await this.store.listSchedules();
    const live = new Set<string>();
    for (const s of schedules) {
      // One schedule that cannot be planned must not stop the others, nor fail in silence.
      try {
        await this.scanSchedule(s, now, live);
      } catch (err) {
        await this.scheduleBroken(s, err);
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

  /**
   * A schedule that cannot compute its fires: an alert (once, not every tick) and the reason on
   * the workflow (`ax ls`, the UI), until it fires again or is changed.
   */
  private async scheduleBroken(s: ScheduleRecord, err: unknown): Promise<void> {
    const message = `its schedule "${s.cron}" (${s.timezone}) cannot fire: ${err instanceof Error ? err.message : String(err)}`;
    if (s.error === message) return;
    this.alert(`workflow ${s.workflowName}: ${message}`);
    await this.store.setScheduleError(s.id, message);
  }

  private async scanSchedule(s: ScheduleRecord, now: number, live: Set<string>): Promise<void> {
    // Throws when the schedule has no fire after the last one at all (remembered per lastFireAt, so cheap).
    nextFire(s.cron, s.timezone, s.lastFireAt);
    if (s.error !== undefined) await this.store.setScheduleError(s.id, null);
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

  private async fire(s: ScheduleRecord, fireTime: number): Promise<void> {
    this.fireTimers.delete(`${s.id}:${fireTime}:${s.cron}:${s.timezone}`);
    if (!this.lease.isLeader) return;
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

  /** Drops every pending fire timer. */
  stop(): void {
    for (const cancel of this.fireTimers.values()) cancel();
    this.fireTimers.clear();
  }
}

// Cron firing, by the leader: each scan plans every schedule's fires (misfire policy after
// downtime, exact timers within the look-ahead window) and starts the due runs; a schedule that
// cannot be planned is reported on its workflow. The store's fire key makes a fire create one
// run even when two schedulers both believe they lead.
// While a user has paused all scheduling (read from the store on every scan and before every
// timed fire, so a pause set through any node holds on the leader) nothing fires and no
// schedule's last fire moves: the fires held back are missed fires, and the first scan after the
// resume deals with them by each schedule's misfire policy, exactly as after downtime.
// A wall clock that steps BACK (it had gone ahead, NTP or a restored snapshot set it right)
// leaves schedules whose last fire lies ahead of now: nothing would fire until the clock caught
// up. Past a tolerance that is a step, not skew: such a schedule is re-planned from now, the step
// audited per workflow and alerted once per scan (`clock_step`). A forward jump needs nothing
// here: its missed fires follow the misfire policy, bounded.
import type { Clock } from '../../ports/clock.ts';
import type { ScheduleRecord, DefinitionStore, FlagStore, AuditStore } from '../../ports/store.ts';
import { type AlertHooks, NO_ALERTS } from '../alerts/alert-rules.ts';
import type { EngineConfig } from '../model/config.ts';
import { nextFire } from '../model/cron.ts';
import { formatDuration } from '../model/duration.ts';
import type { LeaderLease } from './leader-lease.ts';
import { planFires } from '../model/misfire.ts';
import type { RunManager } from '../runs/run-manager.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

/** What one scan did: fires that made a run (started, queued or skipped by overlap), and missed fires the misfire policies dropped. */
export interface CronScan {
  paused: boolean;
  fired: number;
  dropped: number;
}

export class CronFiring {
  private readonly fireTimers = new Map<string, () => void>();

  constructor(
    private readonly store: DefinitionStore & FlagStore & AuditStore,
    private readonly runs: RunManager,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly config: EngineConfig,
    private readonly lease: LeaderLease,
    private readonly alert: (message: string) => void,
    private readonly alerts: AlertHooks = NO_ALERTS,
  ) {}

  async scanSchedules(): Promise<CronScan> {
    const scan: CronScan = { paused: false, fired: 0, dropped: 0 };
    /** workflows whose schedule was re-planned from now because the clock stepped back */
    const rebased: string[] = [];
    let stepMs = 0;
    const live = new Set<string>();
    if (await this.store.getSchedulingPause()) {
      scan.paused = true;
    } else {
      const now = this.clock.now();
      for (const s of await this.store.listSchedules()) {
        // A pass slower than the lease (a loaded box, a slow database) may have let a standby
        // take it: this one decides on no further schedule.
        if (!this.lease.isCurrent) break;
        // A monitor's fires start nothing: monitor-check.ts looks at them.
        if (s.monitorGraceMs !== undefined) continue;
        // One schedule that cannot be planned must not stop the others, nor fail in silence.
        try {
          const back = await this.rebaseIfStepped(s, now);
          if (back > 0) rebased.push(s.workflowName);
          stepMs = Math.max(stepMs, back);
          await this.scanSchedule(back > 0 ? { ...s, lastFireAt: now } : s, now, live, scan);
        } catch (err) {
          await this.scheduleBroken(s, err);
        }
      }
      if (rebased.length > 0) this.alerts.clockStepped(stepMs, rebased, now);
    }
    // Schedules that changed or were disabled drop their pending timers (all of them, paused).
    for (const [key, cancel] of this.fireTimers) {
      if (!live.has(key)) {
        cancel();
        this.fireTimers.delete(key);
      }
    }
    return scan;
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

  /** How far the clock stepped back past this schedule's last fire, once re-planned from now; 0: no step. */
  private async rebaseIfStepped(s: ScheduleRecord, now: number): Promise<number> {
    const ahead = s.lastFireAt - now;
    if (ahead <= Math.max(this.config.clockStepToleranceMs, this.config.lookAheadMs)) return 0;
    // Another scheduler may have re-planned it meanwhile: then that one said so.
    if (!(await this.store.rebaseScheduleLastFire(s.id, s.lastFireAt, now))) return 0;
    const next = nextFire(s.cron, s.timezone, now);
    await this.store.audit({
      at: now,
      actor: 'scheduler',
      action: 'clock.step',
      object: `workflow:${s.workflowName}`,
      detail: `the clock stepped back: the schedule's last fire (${new Date(s.lastFireAt).toISOString()}) lay ${formatDuration(Math.round(ahead / 1000) * 1000)} ahead of now; re-planned from now, next fire ${new Date(next).toISOString()}`,
    });
    return ahead;
  }

  private async scanSchedule(s: ScheduleRecord, now: number, live: Set<string>, scan: CronScan): Promise<void> {
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
      // The decision is taken once, in the store: the last fire moves on from the one it was made
      // on only while nobody moved it meanwhile. A second leader (a deposed one whose pass outlived
      // its lease, a split brain) finds it moved and neither audits nor fires what the first decided.
      if (!(await this.store.advanceScheduleLastFire(s.id, s.lastFireAt, latest))) return;
      scan.dropped += plan.skipped;
      await this.store.audit({
        at: now,
        actor: 'scheduler',
        action: 'misfire.skip',
        object: `workflow:${s.workflowName}`,
        detail: `${plan.skippedCapped ? 'more than ' : ''}${plan.skipped} missed fire(s) up to ${new Date(latest).toISOString()} not run (misfire policy: ${s.misfire})`,
      });
      this.alerts.misfireSkipped(s.workflowName, plan.skipped, latest, s.misfire);
    }
    for (const f of plan.fireNow) if (await this.fire(s, f)) scan.fired++;
    for (const f of plan.upcoming) {
      const key = `${s.id}:${f}:${s.cron}:${s.timezone}`;
      live.add(key);
      if (!this.fireTimers.has(key)) {
        this.fireTimers.set(
          key,
          this.clock.setTimer(f - now, () => void this.fire(s, f).catch((err: unknown) => this.alert(String(err)))),
        );
      }
    }
  }

  /** Makes the run of one fire; false when it made none (not leading, paused, changed, a duplicate). */
  private async fire(s: ScheduleRecord, fireTime: number): Promise<boolean> {
    this.fireTimers.delete(`${s.id}:${fireTime}:${s.cron}:${s.timezone}`);
    if (!this.lease.isCurrent) return false;
    // A timer set before the workflow was disabled, its schedule changed or scheduling was
    // paused lives until the next scan; it must not start a run meanwhile.
    const current = (await this.workflows.get(s.workflowId))?.graph;
    const plan = current?.schedule;
    if (!current?.enabled || plan?.id !== s.id || plan.cron !== s.cron || plan.timezone !== s.timezone) return false;
    if (await this.store.getSchedulingPause()) return false;
    const run = await this.runs.startRun({
      workflowId: s.workflowId,
      trigger: 'cron',
      triggeredBy: 'cron',
      logicalTime: fireTime,
      scheduleId: s.id,
      applyOverlap: true,
    });
    await this.store.setScheduleLastFire(s.id, fireTime);
    return run !== undefined;
  }

  /** Drops every pending fire timer. */
  stop(): void {
    for (const cancel of this.fireTimers.values()) cancel();
    this.fireTimers.clear();
  }
}

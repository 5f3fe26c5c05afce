// The monitor check (design.md §13), by the leader on every tick: for each monitor, each fire
// whose grace has passed since it was last checked is met by a run reported from `fire − slack`
// to `fire + grace` (slack: a minute, or half the gap to the fire before, for clocks that differ
// between the job's host and AX), or else it is missed: a FAILED run records the miss (its
// schedule and fire time are its unique key, so it is recorded once, by whichever scheduler,
// before or after a restart) and raises `monitor_missed`. A reported start whose end has not come
// by the fire after it plus the grace ends FAILED, "no end reported". The schedule's last fire is
// the last fire checked, so fires missed while the engine was down are checked on its return.
import type { RunRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { AuditStore, DefinitionStore, InstanceStore, RunStore, ScheduleRecord } from '../../ports/store.ts';
import type { AlertHooks } from '../alerts/alert-rules.ts';
import { firesBetween, nextFire, prevFire } from '../model/cron.ts';
import type { RunManager } from '../runs/run-manager.ts';

/** A reported run may come this much before its fire (clocks differ) — at most half the gap to the fire before. */
const EARLY_MS = 60_000;
/** the recent runs of a monitor its check reads */
const RECENT_RUNS = 200;

/** `02:10` (or `02:10:30`) in the schedule's zone: when a miss or an end was due (one writer: the reasons catalogue's). */
import { because, englishClock as clockTime } from '../../api/reasons.ts';

export { clockTime };

/** Whether a reported run counts for the fire: it started within the fire's window. */
export function meetsFire(run: RunRecord, fire: number, previous: number | undefined, graceMs: number): boolean {
  const slack = previous === undefined ? EARLY_MS : Math.min(EARLY_MS, (fire - previous) / 2);
  const started = run.startedAt ?? run.createdAt;
  return (
    run.trigger === 'external' && run.scheduleId === undefined && started >= fire - slack && started <= fire + graceMs
  );
}

export class MonitorCheck {
  constructor(
    private readonly store: DefinitionStore & RunStore & InstanceStore & AuditStore,
    private readonly runs: RunManager,
    private readonly clock: Clock,
    private readonly maxFires: number,
    private readonly alerts: AlertHooks,
    private readonly alert: (message: string) => void,
  ) {}

  async check(): Promise<void> {
    for (const s of await this.store.listSchedules()) {
      if (s.monitorGraceMs === undefined) continue;
      // One monitor that cannot be checked must not stop the others.
      try {
        await this.checkMonitor(s, s.monitorGraceMs);
      } catch (err) {
        this.alert(`monitor ${s.workflowName}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private async checkMonitor(s: ScheduleRecord, graceMs: number): Promise<void> {
    const now = this.clock.now();
    let fires = firesBetween(s.cron, s.timezone, s.lastFireAt, now - graceMs, this.maxFires + 1);
    // Runs are read only when a fire is to be judged, or one reported run may be left without an end.
    const running =
      fires.length === 0
        ? await this.store.listRuns({ workflowName: s.workflowName, states: ['RUNNING'], limit: 100 })
        : [];
    if (fires.length === 0 && running.every((r) => r.trigger !== 'external')) return;
    const recent = (
      fires.length === 0 ? running : await this.store.listRuns({ workflowName: s.workflowName, limit: RECENT_RUNS })
    ).filter((r) => r.trigger === 'external');
    await this.endStale(s, graceMs, recent, now);
    if (fires.length === 0) return;
    if (fires.length > this.maxFires) {
      // Down for long: the latest fires are checked, the older ones said in the audit, once.
      const latest: number[] = [];
      for (let at = now - graceMs; latest.length < this.maxFires;) {
        const f = prevFire(s.cron, s.timezone, at);
        if (f === undefined || f <= s.lastFireAt) break;
        latest.unshift(f);
        at = f - 1;
      }
      await this.store.audit({
        at: now,
        actor: 'scheduler',
        action: 'monitor.unchecked',
        object: `workflow:${s.workflowName}`,
        detail: `fires from ${new Date(fires[0] as number).toISOString()} to before ${new Date(latest[0] as number).toISOString()} were not checked: only the latest ${this.maxFires} are after a long downtime`,
      });
      fires = latest;
    }
    let previous = prevFire(s.cron, s.timezone, (fires[0] as number) - 1);
    for (const fire of fires) {
      if (!recent.some((r) => meetsFire(r, fire, previous, graceMs))) await this.recordMiss(s, fire, graceMs);
      previous = fire;
    }
    await this.store.setScheduleLastFire(s.id, fires.at(-1) as number);
  }

  /** The FAILED run that says a fire was missed, and its alert; nothing when another check recorded it. */
  private async recordMiss(s: ScheduleRecord, fire: number, graceMs: number): Promise<void> {
    const due = fire + graceMs;
    const { reason, reasonCode } = because('monitor_missed', { due, fire, grace: graceMs, zone: s.timezone });
    const started = await this.store.startExternalRun({
      workflowId: s.workflowId,
      taskName: s.workflowName,
      triggeredBy: 'monitor',
      startedAt: due,
      state: 'FAILED',
      reason,
      reasonCode,
      logicalTime: fire,
      scheduleId: s.id,
    });
    if (!started) return;
    await this.runs.publish({ done: true, created: [], ended: [started.instance], runs: [started.run] });
    this.alerts.monitorMissed(s.workflowName, started.run, fire, due, { reason, reasonCode });
  }

  /** Reported starts whose end has not come by the fire after them plus the grace: FAILED. */
  private async endStale(s: ScheduleRecord, graceMs: number, recent: RunRecord[], now: number): Promise<void> {
    for (const run of recent) {
      if (run.state !== 'RUNNING') continue;
      const started = run.startedAt ?? run.createdAt;
      const due = nextFire(s.cron, s.timezone, started) + graceMs;
      if (now < due) continue;
      const inst = (await this.store.listInstances(run.id)).find((i) => i.state === 'RUNNING');
      if (!inst) continue;
      await this.runs.finish(inst, { from: ['RUNNING'], attempt: inst.attempt }, 'FAILED', {
        ...because('monitor_no_end', { started, due, zone: s.timezone }),
        finishedAt: now,
      });
    }
  }
}

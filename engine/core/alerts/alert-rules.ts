// The alert rules: what the engine's parts tell (an instance failed for good, a run ended,
// a worker went silent, …) turned into alerts for the AlertCenter. Each part calls these without
// waiting: the look-ups a rule needs (the failed tasks of a run, the run before it) happen in the
// background, and only when some route listens to the rule.
import type { ReasonCode } from '../../api/reason-code.ts';
import { alertText, type Reason, reasonLine } from '../../api/reasons.ts';
import type { AlertRule } from '../../api/alerts.ts';
import type { InstanceRecord, RunRecord, WorkerRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { RunStore, DefinitionStore, ReadModelStore } from '../../ports/store.ts';
import { ANOMALY_FACTOR, ANOMALY_HISTORY, durationAnomaly } from '../model/duration-anomaly.ts';
import type { AlertCenter, AlertInput } from './alert-center.ts';

/** What the engine's parts call: none of these waits, none throws. */
export interface AlertHooks {
  /** an instance ended FAILED or TIMEOUT with no attempt after it */
  taskFailed(
    inst: InstanceRecord,
    state: 'FAILED' | 'TIMEOUT',
    reason: string | undefined,
    workflowName?: string,
    reasonCode?: ReasonCode,
  ): void;
  /** a run ended (any state; FAILED and SUCCESS matter) */
  runEnded(run: RunRecord): void;
  workerLost(worker: WorkerRecord, silentForMs: number): void;
  queueLong(worker: string, length: number, threshold: number): void;
  misfireSkipped(workflow: string, skipped: number, latest: number, policy: string): void;
  runOverdue(run: RunRecord, expectedMs: number): void;
  /** the wall clock stepped back: schedules whose last fire lay ahead of now were re-planned from now */
  clockStepped(backMs: number, schedules: string[], at: number): void;
  /** a monitor's fire passed its grace with no run reported; `run` records the miss (design.md §13) */
  monitorMissed(workflow: string, run: RunRecord, fire: number, due: number, reason: Reason): void;
  /** a run reported from outside ended: judged against its monitor's history (run_duration_anomaly) */
  externalRunEnded(run: RunRecord): void;
  /** the engine's free-text alerts */
  engine(message: string): void;
}

export const NO_ALERTS: AlertHooks = {
  taskFailed: () => undefined,
  runEnded: () => undefined,
  workerLost: () => undefined,
  queueLong: () => undefined,
  misfireSkipped: () => undefined,
  runOverdue: () => undefined,
  clockStepped: () => undefined,
  monitorMissed: () => undefined,
  externalRunEnded: () => undefined,
  engine: () => undefined,
};

export class AlertRules implements AlertHooks {
  /** runs already reported overdue */
  private readonly overdue = new Set<number>();

  constructor(
    private readonly center: AlertCenter,
    private readonly store: RunStore & DefinitionStore & ReadModelStore,
    private readonly clock: Clock,
    private readonly node: string,
  ) {}

  /** A promise is a look-up: part of the alert's background work, never the caller's. */
  private raise(input: AlertInput | Promise<AlertInput | undefined>): void {
    this.center.raise(input);
  }

  /** A rule's look-up, made only when some route takes the rule (with `toChannel`: and sends it somewhere). */
  private raiseIfHeard(
    rule: AlertRule,
    workflow: string | undefined,
    lookUp: () => Promise<AlertInput | undefined>,
    toChannel = false,
  ): void {
    this.raise(this.center.listens(rule, workflow, toChannel).then((heard) => (heard ? lookUp() : undefined)));
  }

  taskFailed(
    inst: InstanceRecord,
    state: 'FAILED' | 'TIMEOUT',
    reason: string | undefined,
    workflowName?: string,
    reasonCode?: ReasonCode,
  ): void {
    this.raiseIfHeard('task_failed', workflowName, () =>
      this.store.getRun(inst.runId).then((run) => {
        const workflow = run?.workflowName ?? workflowName ?? `workflow ${inst.workflowId}`;
        return {
          rule: 'task_failed' as const,
          subject: `workflow:${workflow}`,
          event: `instance:${inst.id}`,
          workflow,
          runId: inst.runId,
          instanceId: inst.id,
          severity: 'critical' as const,
          ...alertText(
            {
              code: state === 'TIMEOUT' ? 'alert_task_timed_out' : 'alert_task_failed',
              args: { workflow, task: inst.taskName, attempt: inst.attempt },
            },
            [
              { code: 'alert_run_instance', args: { run: inst.runId, instance: inst.id } },
              ...(reason ? [reasonLine(reason, reasonCode)] : []),
              { code: 'alert_worker', args: { worker: inst.workerId ?? '-' } },
            ],
          ),
        };
      }),
    );
  }

  runEnded(run: RunRecord): void {
    // A missed fire's record (an external run with its schedule) is told by monitor_missed.
    if (run.trigger === 'external' && run.scheduleId !== undefined) return;
    if (run.state === 'FAILED') this.raiseIfHeard('run_failed', run.workflowName, () => this.runFailed(run));
    // Every success would cost a look at the run before it: only when a channel would hear of it.
    else if (run.state === 'SUCCESS') this.raiseIfHeard('recovered', run.workflowName, () => this.recovered(run), true);
  }

  private async runFailed(run: RunRecord): Promise<AlertInput> {
    const failures = await this.store.finalFailures([run.id]);
    const first = failures[0];
    const title: ReasonCode = first
      ? {
          code:
            first.state === 'TIMEOUT'
              ? 'alert_run_failed_timeout'
              : first.state === 'CANCELLED'
                ? 'alert_run_failed_cancel'
                : 'alert_run_failed_task',
          args: { workflow: run.workflowName, run: run.id, task: first.taskName, attempts: first.attempt },
        }
      : { code: 'alert_run_failed', args: { workflow: run.workflowName, run: run.id } };
    const finished = run.finishedAt ?? '?';
    return {
      rule: 'run_failed',
      subject: `workflow:${run.workflowName}`,
      event: `run:${run.id}`,
      workflow: run.workflowName,
      runId: run.id,
      ...(first && { instanceId: first.id }),
      severity: 'critical',
      ...alertText(title, [
        {
          code: 'alert_run_ended_failed',
          args: { run: run.id, trigger: run.trigger, logical: run.logicalTime, finished },
        },
        ...failures.map((f) => {
          const args = { task: f.taskName, state: f.state, instance: f.id, attempt: f.attempt };
          return f.reason
            ? reasonLine(f.reason, f.reasonCode, { code: 'alert_failure_reason', args })
            : { code: 'alert_failure', args };
        }),
      ]),
    };
  }

  /** A success right after a failed run is a recovery; any other success says nothing. */
  private async recovered(run: RunRecord): Promise<AlertInput | undefined> {
    const [previous] = await this.store.listRuns({
      workflowName: run.workflowName,
      states: ['SUCCESS', 'FAILED'],
      beforeId: run.id,
      limit: 1,
    });
    if (previous?.state !== 'FAILED') return undefined;
    return {
      rule: 'recovered',
      subject: `workflow:${run.workflowName}`,
      event: `run:${run.id}`,
      workflow: run.workflowName,
      runId: run.id,
      severity: 'info',
      ...alertText(
        { code: 'alert_recovered', args: { workflow: run.workflowName, run: run.id, previous: previous.id } },
        [
          {
            code: 'alert_run_ended_success',
            args: {
              run: run.id,
              trigger: run.trigger,
              logical: run.logicalTime ?? '?',
              finished: run.finishedAt ?? '?',
            },
          },
        ],
      ),
    };
  }

  workerLost(worker: WorkerRecord, silentForMs: number): void {
    this.raise({
      rule: 'worker_lost',
      subject: `worker:${worker.id}`,
      // One loss is one alert, whichever scheduler judges it: its last heartbeat names it.
      event: `${worker.id}:${worker.lastHeartbeat}`,
      severity: 'critical',
      ...alertText(
        {
          code: 'alert_worker_lost',
          args: { worker: worker.id, host: worker.host, silent: Math.round(silentForMs / 1000) * 1000 },
        },
        [{ code: 'alert_worker_lost_body', args: { at: worker.lastHeartbeat } }],
      ),
    });
  }

  queueLong(worker: string, length: number, threshold: number): void {
    this.raise({
      rule: 'queue_long',
      subject: 'queue',
      severity: 'warning',
      ...alertText({ code: 'alert_queue_long', args: { worker, length, threshold } }, [
        { code: 'alert_queue_long_body' },
      ]),
    });
  }

  misfireSkipped(workflow: string, skipped: number, latest: number, policy: string): void {
    this.raise({
      rule: 'misfire_skipped',
      subject: `workflow:${workflow}`,
      event: `misfire:${latest}`,
      workflow,
      severity: 'warning',
      ...alertText({ code: 'alert_misfire_skipped', args: { workflow, skipped, latest, policy } }, [
        { code: 'alert_misfire_skipped_body' },
      ]),
    });
  }

  /**
   * Runs still going past their workflow's `alerts.expected_duration` (a scheduler's sweep): one
   * alert per run, whichever scheduler sees it first (the run is its key).
   */
  async checkOverdue(): Promise<void> {
    const now = this.clock.now();
    const expected = new Map<string, number | undefined>();
    for (const run of await this.store.listRuns({ states: ['RUNNING'], limit: 1000 })) {
      if (this.overdue.has(run.id)) continue;
      if (!expected.has(run.workflowName))
        expected.set(
          run.workflowName,
          (await this.store.getWorkflowSpec(run.workflowName))?.alerts?.expectedDurationMs,
        );
      const ms = expected.get(run.workflowName);
      if (ms === undefined || now - (run.startedAt ?? run.createdAt) <= ms) continue;
      this.overdue.add(run.id);
      if (this.overdue.size > 10_000) this.overdue.delete(this.overdue.values().next().value as number);
      this.runOverdue(run, ms);
    }
  }

  runOverdue(run: RunRecord, expectedMs: number): void {
    this.raise({
      rule: 'run_overdue',
      subject: `workflow:${run.workflowName}`,
      event: `run:${run.id}`,
      workflow: run.workflowName,
      runId: run.id,
      severity: 'warning',
      ...alertText(
        { code: 'alert_run_overdue', args: { workflow: run.workflowName, run: run.id, expected: expectedMs } },
        [{ code: 'alert_run_overdue_body', args: { started: run.startedAt ?? run.createdAt } }],
      ),
    });
  }

  clockStepped(backMs: number, schedules: string[], at: number): void {
    const back = backMs >= 60_000 ? Math.round(backMs / 60_000) * 60_000 : Math.round(backMs / 1000) * 1000;
    const shown = schedules.slice(0, 10).join(', ');
    const more = schedules.length - 10;
    this.raise({
      rule: 'clock_step',
      subject: `node:${this.node}`,
      severity: 'warning',
      ...alertText({ code: 'alert_clock_step', args: { node: this.node, back, count: schedules.length } }, [
        more > 0
          ? { code: 'alert_clock_step_body_more', args: { at, schedules: shown, more } }
          : { code: 'alert_clock_step_body', args: { at, schedules: shown } },
      ]),
    });
  }

  monitorMissed(workflow: string, run: RunRecord, fire: number, due: number, reason: Reason): void {
    this.raise({
      rule: 'monitor_missed',
      subject: `workflow:${workflow}`,
      // One alert per expected fire, whichever scheduler sees it, before or after a restart.
      event: `fire:${fire}`,
      workflow,
      runId: run.id,
      severity: 'critical',
      ...alertText({ code: 'alert_monitor_missed', args: { workflow, fire, due } }, [
        reason.reasonCode,
        { code: 'alert_monitor_missed_body', args: { run: run.id } },
      ]),
    });
  }

  externalRunEnded(run: RunRecord): void {
    if (run.state !== 'SUCCESS' && run.state !== 'FAILED') return;
    this.raiseIfHeard('run_duration_anomaly', run.workflowName, () => this.durationAnomaly(run));
  }

  /** A run far shorter or longer than the monitor's last successful runs (duration-anomaly.ts). */
  private async durationAnomaly(run: RunRecord): Promise<AlertInput | undefined> {
    const took = runDuration(run);
    if (took === undefined) return undefined;
    const history = (
      await this.store.listRuns({
        workflowName: run.workflowName,
        states: ['SUCCESS'],
        beforeId: run.id,
        limit: ANOMALY_HISTORY * 2,
      })
    )
      .filter((r) => r.trigger === 'external')
      .map(runDuration)
      .filter((d): d is number => d !== undefined);
    const anomaly = durationAnomaly(took, history);
    if (!anomaly) return undefined;
    const ms = (n: number) => Math.max(1000, Math.round(n / 1000) * 1000);
    return {
      rule: 'run_duration_anomaly',
      subject: `workflow:${run.workflowName}`,
      event: `run:${run.id}`,
      workflow: run.workflowName,
      runId: run.id,
      severity: 'warning',
      ...alertText(
        {
          code: anomaly.kind === 'longer' ? 'alert_duration_longer' : 'alert_duration_shorter',
          args: { workflow: run.workflowName, run: run.id, took: ms(took), median: ms(anomaly.medianMs) },
        },
        [
          {
            code: 'alert_duration_anomaly_body',
            args: { factor: ANOMALY_FACTOR, runs: anomaly.runs, state: run.state },
          },
        ],
      ),
    };
  }

  engine(message: string): void {
    this.raise({
      rule: 'engine',
      subject: `node:${this.node}`,
      event: `${this.clock.now()}:${message.slice(0, 60)}`,
      severity: 'warning',
      title: message.split('\n')[0] as string,
      message,
    });
  }
}

/** How long a reported run took; undefined for one reported without a start (it started and ended at once). */
function runDuration(run: RunRecord): number | undefined {
  if (run.startedAt === undefined || run.finishedAt === undefined) return undefined;
  const took = run.finishedAt - run.startedAt;
  return took > 0 ? took : undefined;
}

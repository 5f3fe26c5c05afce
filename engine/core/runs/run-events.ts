// What a run's store steps did, told: live events for followers (UI, --follow), the run-ended
// alert, the metrics, and a wake-up for the dispatcher when there is new work.
import type { InstanceRecord, InstanceState, RunRecord, RunState } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { EngineMetrics } from '../../ports/metrics.ts';
import type { TransitionResult } from '../../ports/store.ts';
import type { AlertHooks } from '../alerts/alert-rules.ts';
import { instanceEvent } from '../model/instance-event.ts';

const FINAL_INSTANCE_STATES: InstanceState[] = [
  'SUCCESS',
  'FAILED',
  'TIMEOUT',
  'CANCELLED',
  'UPSTREAM_FAILED',
  'SKIPPED',
];
const FINAL_RUN_STATES: RunState[] = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];

export class RunEvents {
  constructor(
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    private readonly wakeDispatcher: () => void,
    private readonly alerts: AlertHooks,
    private readonly metrics: EngineMetrics,
  ) {}

  /** Tells followers what a store step did, and the dispatcher when there is new work. */
  async publish(result: TransitionResult): Promise<void> {
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
        run.trigger,
      );
    }
  }

  // Live events are for followers (UI, --follow), who read the store for the truth: with Redis
  // away they are dropped, never allowed to stop a run half-way between its store writes. Sent,
  // not waited for: they still leave in the order asked (one connection keeps it), and a worker's
  // outcome event goes with its ack and next take (one write to Redis) instead of a round trip
  // before them.
  async publishInstance(inst: InstanceRecord): Promise<void> {
    void this.coordinator.publish(instanceEvent(inst, this.clock.now())).catch(() => undefined);
  }

  private async publishRun(run: Pick<RunRecord, 'id' | 'workflowName' | 'state'>): Promise<void> {
    void this.coordinator
      .publish({ type: 'run', runId: run.id, workflowName: run.workflowName, state: run.state, at: this.clock.now() })
      .catch(() => undefined);
  }
}

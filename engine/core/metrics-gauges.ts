// The scrape-time half of the metrics (see ports/metrics.ts): what the engine's state is now,
// read from the store and the coordinator when someone asks, not counted on the hot path. Every
// read is a small indexed one (three instance and two run counts from the state indexes, one
// flag row, the worker registrations and one queue length per live worker), and a read serves
// every scrape for `maxAgeMs`, so a scrape storm costs one read per interval. A store or coordinator that
// does not answer is reported as down (and its gauges left out) rather than failing the scrape.
import type { InstanceState, RunState, WorkerRecord } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type { GaugeSnapshot } from '../ports/metrics.ts';
import type { ReadModelStore, FlagStore } from '../ports/store.ts';

/** The instance states a scrape counts: the active ones (finished ones are counters, see EngineMetrics). */
export const GAUGED_STATES: InstanceState[] = ['WAITING', 'DISPATCHED', 'RUNNING'];
/** The run states a scrape counts: runs going, and runs queued behind them (overlap `queue`). */
export const GAUGED_RUN_STATES: RunState[] = ['RUNNING', 'QUEUED'];

export class MetricsGauges {
  private last: { at: number; read: Promise<GaugeSnapshot> } | undefined;

  constructor(
    private readonly store: ReadModelStore & FlagStore,
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    /** every worker the engine knows with its judged status (EngineViews.listWorkers) */
    private readonly workers: () => Promise<WorkerRecord[]>,
    private readonly maxAgeMs = 2_000,
  ) {}

  /** The snapshot, read again only when the last one is older than maxAgeMs (concurrent scrapes share one read). */
  read(): Promise<GaugeSnapshot> {
    const now = this.clock.now();
    if (!this.last || now - this.last.at >= this.maxAgeMs) this.last = { at: now, read: this.readNow() };
    return this.last.read;
  }

  private async readNow(): Promise<GaugeSnapshot> {
    const [store, workers] = await Promise.all([this.readStore(), this.readWorkers()]);
    return { ...store, ...workers };
  }

  private async readStore(): Promise<
    Pick<GaugeSnapshot, 'instances' | 'runs' | 'schedulingPaused' | 'storeRoundTripMs' | 'storeUp'>
  > {
    try {
      // The probe: one row by its key, timed alone so that the round trip is not the counts' work.
      const start = this.clock.now();
      const pause = await this.store.getSchedulingPause();
      const storeRoundTripMs = this.clock.now() - start;
      const [counts, runCounts] = await Promise.all([
        Promise.all(GAUGED_STATES.map((s) => this.store.countInstances([s]))),
        Promise.all(GAUGED_RUN_STATES.map((s) => this.store.countRuns([s]))),
      ]);
      const instances = Object.fromEntries(GAUGED_STATES.map((s, i) => [s, counts[i]]));
      const runs = Object.fromEntries(GAUGED_RUN_STATES.map((s, i) => [s, runCounts[i]]));
      return { instances, runs, schedulingPaused: pause !== undefined, storeRoundTripMs, storeUp: true };
    } catch {
      return { storeUp: false };
    }
  }

  private async readWorkers(): Promise<Pick<GaugeSnapshot, 'workers' | 'live' | 'coordinatorUp'>> {
    try {
      const all = await this.workers();
      const liveOnes = all.filter((w) => w.status === 'online' || w.status === 'draining');
      const lengths = await Promise.all(liveOnes.map((w) => this.coordinator.queueLength(w.id)));
      return {
        workers: all.map((w) => ({ id: w.id, status: w.status })),
        live: liveOnes.map((w, i) => ({
          id: w.id,
          running: w.running,
          maxConcurrency: w.maxConcurrency,
          queueLength: lengths[i] ?? 0,
        })),
        coordinatorUp: true,
      };
    } catch {
      return { coordinatorUp: false };
    }
  }
}

// The engine's metrics in the Prometheus text format, through prom-client. One
// Registry per engine, never prom-client's global one: a process may hold several engines (the
// desktop host's solo engine and its team worker; tests). Counters and histograms are bumped in
// memory on the hot path; gauges are filled from the engine's scrape-time snapshot
// (core/metrics-gauges.ts) while the registry collects. Node's own metrics (event-loop delay,
// heap, CPU, GC) are prom-client's default collectors, registered on first scrape, so an engine
// nobody scrapes (a one-off `ax ls`) starts no event-loop monitor.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { INSTANCE_STATES, type InstanceState, RUN_STATES, type RunState, type TriggerType } from '../../api/types.ts';
import type { AlertOutcome, EngineMetrics, GaugeSnapshot } from '../../ports/metrics.ts';

const FINAL_INSTANCE_STATES = INSTANCE_STATES.filter((s) => !['WAITING', 'DISPATCHED', 'RUNNING'].includes(s));
const FINAL_RUN_STATES = RUN_STATES.filter((s) => s !== 'QUEUED' && s !== 'RUNNING');
/** WAITING → RUNNING: a few ms on an idle engine, minutes behind a full queue. */
const DISPATCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** A run: seconds for a personal job, hours for a nightly ETL chain. */
const RUN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];
const WORKER_STATUSES = ['online', 'draining', 'lost', 'offline'] as const;

export class PromMetrics implements EngineMetrics {
  readonly registry = new Registry();
  private read: () => Promise<GaugeSnapshot> = async () => ({ storeUp: false, coordinatorUp: false });
  private defaultsOn = false;

  private readonly dispatchLatency = new Histogram({
    name: 'ax_dispatch_latency_seconds',
    help: 'Time from an instance becoming due (WAITING) to its start on a worker of this node (RUNNING)',
    buckets: DISPATCH_BUCKETS,
    registers: [this.registry],
  });
  private readonly runDuration = new Histogram({
    name: 'ax_run_duration_seconds',
    help: 'Duration of runs that ended, from start to end, by final state (runs this node ended)',
    labelNames: ['state'] as const,
    buckets: RUN_BUCKETS,
    registers: [this.registry],
  });
  private readonly runsFinished = new Counter({
    name: 'ax_runs_finished_total',
    help: 'Runs that reached a final state on this node (SKIPPED: an overlap-skipped fire)',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  /** the same runs by what started them: a monitor's runs (`external`) beside cron, manual, event, rerun */
  private readonly runsByTrigger = new Counter({
    name: 'ax_runs_finished_by_trigger_total',
    help: "Runs that reached a final state on this node, by trigger (external: a monitor's run reported from outside)",
    labelNames: ['trigger', 'state'] as const,
    registers: [this.registry],
  });
  private readonly instancesFinished = new Counter({
    name: 'ax_instances_finished_total',
    help: 'Task instances that reached a final state, recorded by this node',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly storedLines = new Counter({
    name: 'ax_log_lines_written_total',
    help: "Log lines this node stored (task output and the engine's own lines)",
    registers: [this.registry],
  });
  private readonly droppedLines = new Counter({
    name: 'ax_log_lines_dropped_total',
    help: 'Log lines dropped because the store did not keep up (each gap is marked in its log)',
    registers: [this.registry],
  });
  private readonly alerts = new Counter({
    name: 'ax_alerts_total',
    help: 'Alert deliveries by channel and outcome (sent, or failed after its retries)',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly droppedEvents = new Counter({
    name: 'ax_events_dropped_total',
    help: "Messages on the coordinator's events channel (Redis) that were not valid events, dropped before any client saw them",
    registers: [this.registry],
  });

  constructor() {
    const snapshot = () => this.read();
    const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, s: GaugeSnapshot) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        async collect() {
          // Values of the last scrape go: a worker that left, a store that no longer answers.
          this.reset();
          fill(this, await snapshot());
        },
      });
    gauge(
      'ax_instances',
      'Active task instances by state (WAITING: the shared queue in the database), team-wide',
      ['state'],
      (g, s) => {
        for (const [state, n] of Object.entries(s.instances ?? {})) g.set({ state }, n ?? 0);
      },
    );
    gauge(
      'ax_runs',
      'Runs going (RUNNING) and waiting behind an earlier run of their workflow (QUEUED), team-wide',
      ['state'],
      (g, s) => {
        for (const [state, n] of Object.entries(s.runs ?? {})) g.set({ state }, n ?? 0);
      },
    );
    gauge('ax_workers', 'Workers by status (online, draining, lost, offline), team-wide', ['status'], (g, s) => {
      if (!s.workers) return;
      for (const status of WORKER_STATUSES) g.set({ status }, s.workers.filter((w) => w.status === status).length);
    });
    gauge('ax_worker_running_tasks', 'Tasks running on each live worker', ['worker'], (g, s) => {
      for (const w of s.live ?? []) g.set({ worker: w.id }, w.running);
    });
    gauge('ax_worker_max_concurrency', 'Task slots of each live worker', ['worker'], (g, s) => {
      for (const w of s.live ?? []) g.set({ worker: w.id }, w.maxConcurrency);
    });
    gauge('ax_worker_queue_length', "Dispatched instances waiting in each live worker's queue", ['worker'], (g, s) => {
      for (const w of s.live ?? []) g.set({ worker: w.id }, w.queueLength);
    });
    gauge('ax_store_up', "1 when the store (SQLite or MySQL) answered the last scrape's reads", [], (g, s) =>
      g.set(s.storeUp ? 1 : 0),
    );
    gauge(
      'ax_coordinator_up',
      '1 when the worker registrations and queues (in-process or Redis) could be read',
      [],
      (g, s) => g.set(s.coordinatorUp ? 1 : 0),
    );
    gauge(
      'ax_store_round_trip_seconds',
      'Round trip of one keyed read from the store, measured at the last scrape',
      [],
      (g, s) => {
        if (s.storeRoundTripMs !== undefined) g.set(s.storeRoundTripMs / 1000);
      },
    );
    gauge('ax_scheduling_paused', '1 while all scheduling is paused (ax pause)', [], (g, s) => {
      if (s.schedulingPaused !== undefined) g.set(s.schedulingPaused ? 1 : 0);
    });
    // Every final state shows from the start (at 0), so rate() and increase() work from the first run.
    for (const state of FINAL_RUN_STATES) this.runsFinished.inc({ state }, 0);
    for (const state of FINAL_INSTANCE_STATES) this.instancesFinished.inc({ state }, 0);
    this.droppedEvents.inc(0);
  }

  gaugesFrom(read: () => Promise<GaugeSnapshot>): void {
    this.read = read;
  }

  instanceStarted(waitedMs: number): void {
    this.dispatchLatency.observe(Math.max(0, waitedMs) / 1000);
  }

  instanceFinished(state: InstanceState): void {
    this.instancesFinished.inc({ state });
  }

  runFinished(state: RunState, durationMs: number | undefined, trigger?: TriggerType): void {
    this.runsFinished.inc({ state });
    if (trigger !== undefined) this.runsByTrigger.inc({ trigger, state });
    if (durationMs !== undefined) this.runDuration.observe({ state }, Math.max(0, durationMs) / 1000);
  }

  logLinesStored(count: number): void {
    this.storedLines.inc(count);
  }

  logLinesDropped(count: number): void {
    this.droppedLines.inc(count);
  }

  alertDelivered(channel: string, outcome: AlertOutcome): void {
    this.alerts.inc({ channel, outcome });
  }

  eventDropped(): void {
    this.droppedEvents.inc();
  }

  async exposition(): Promise<{ contentType: string; text: string }> {
    if (!this.defaultsOn) {
      this.defaultsOn = true;
      // nodejs_eventloop_lag_seconds (and its percentiles), process CPU and memory, heap, GC.
      collectDefaultMetrics({ register: this.registry });
    }
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

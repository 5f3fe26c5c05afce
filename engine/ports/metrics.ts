// What the engine counts while it works, for an exporter the host chooses (prom-client's, for
// GET /metrics: adapters/metrics/prom-metrics.ts). The counting calls sit on hot paths (each
// task start and end, each stored log batch), so an implementation only bumps numbers in memory.
// What is cheaper to read than to count (instances by state, workers, queues) is read from the
// store and the coordinator when someone scrapes: the engine hands a reader to `gaugesFrom`.
import type { InstanceState, RunState, TriggerType, WorkerRecord } from '../api/types.ts';

/** An alert delivery's end: sent, or given up after its retries. */
export type AlertOutcome = 'sent' | 'failed';

/** The engine's state as a scrape sees it, read (and cached briefly) by core/metrics-gauges.ts. */
export interface GaugeSnapshot {
  /** active instances by state (WAITING is the shared queue in the database), from the store's state index */
  instances?: Partial<Record<InstanceState, number>>;
  /** runs going (RUNNING) and waiting for an earlier one of their workflow (QUEUED: the overlap policy's queue) */
  runs?: Partial<Record<RunState, number>>;
  /** whether all scheduling is paused (the probe that times the store's round trip) */
  schedulingPaused?: boolean;
  /** how long the probe took, ms; undefined when the store did not answer */
  storeRoundTripMs?: number;
  storeUp: boolean;
  /** every worker the engine knows, with its status */
  workers?: Pick<WorkerRecord, 'id' | 'status'>[];
  /** the live workers' load and queue lengths (the coordinator's) */
  live?: { id: string; running: number; maxConcurrency: number; queueLength: number }[];
  coordinatorUp: boolean;
}

export interface EngineMetrics {
  /** an instance went RUNNING `waitedMs` after it became due (WAITING → RUNNING) */
  instanceStarted(waitedMs: number): void;
  /** an instance reached a final state */
  instanceFinished(state: InstanceState): void;
  /** a run reached a final state; durationMs from its start (none for a run that never started); trigger: what started it */
  runFinished(state: RunState, durationMs: number | undefined, trigger?: TriggerType): void;
  /** log lines stored (counted once their batch is in the store) */
  logLinesStored(count: number): void;
  /** log lines dropped because the store did not keep up (see LogWriter) */
  logLinesDropped(count: number): void;
  /** an event from the coordinator's channel that is not an event (api/event-schema.ts) was dropped */
  eventDropped(): void;
  /** one alert delivery on a channel (webhook, email, desktop…), after its retries */
  alertDelivered(channel: string, outcome: AlertOutcome): void;
  /** where the scrape-time gauges come from; the engine calls it once, when it is built */
  gaugesFrom(read: () => Promise<GaugeSnapshot>): void;
  /** the exposition for GET /metrics; absent when the host exports nothing */
  exposition?(): Promise<{ contentType: string; text: string }>;
}

/** For engines nobody scrapes (one-off commands, most tests): counts nothing, exports nothing. */
export const noMetrics: EngineMetrics = {
  instanceStarted: () => undefined,
  instanceFinished: () => undefined,
  runFinished: () => undefined,
  logLinesStored: () => undefined,
  logLinesDropped: () => undefined,
  alertDelivered: () => undefined,
  eventDropped: () => undefined,
  gaugesFrom: () => undefined,
};

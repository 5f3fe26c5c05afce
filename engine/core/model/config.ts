// Engine settings and their defaults (design.md §10, from the seed's production tuning).

export interface EngineConfig {
  /** worker liveness heartbeat; a worker is lost after 3 × this */
  workerHeartbeatMs: number;
  /** per running instance "last active"; never stretched by batching */
  taskHeartbeatMs: number;
  /** a running instance is suspected lost when its task heartbeat is older than factor × interval */
  heartbeatGraceFactor: number;
  /** a DISPATCHED instance not started by a live worker within this is dispatched again */
  redispatchAfterMs: number;
  /** SIGTERM → SIGKILL grace on timeout, cancel and shutdown */
  killGraceMs: number;
  /** scheduler look-ahead: fires within it get exact timers */
  lookAheadMs: number;
  /** a fire later than this is "missed" and follows the misfire policy */
  misfireThresholdMs: number;
  /**
   * a schedule whose last fire lies further ahead of now than this (or the look-ahead, if longer)
   * means the wall clock stepped back: it is re-planned from now rather than frozen until the
   * clock catches up (cron-firing.ts)
   */
  clockStepToleranceMs: number;
  /** cap for misfire policy `all` */
  maxCatchUp: number;
  /** scheduler scan interval (schedules, due retries, recovery) */
  tickMs: number;
  /**
   * whether this engine fires cron schedules; false for a one-shot engine (`ax run` with no
   * server), which runs only what it is asked to: fires and catch-ups wait for `ax serve`
   */
  fireSchedules: boolean;
  maxConcurrency: number;
  /** the one size limit of an event payload, at every door (API, ax trigger, webhook) */
  maxEventPayloadBytes: number;
  /** fail-overs per task and run that spend no retry; past it a fail-over counts as a failure, with an alert */
  maxFailovers: number;
  queueAlertThreshold: number;
  maxLineBytes: number;
  /** per instance; beyond it output is dropped with one notice, the process keeps running */
  maxOutputBytes: number;
  logRetentionMs: number;
  logBatchLines: number;
  logFlushMs: number;
  /** log lines waiting for the store (an outage) are bounded by this; past it lines are dropped, with one marker */
  logBufferBytes: number;
  /** how long a finished task's log may wait for the store before its outcome is recorded saying the log is incomplete */
  logGiveUpMs: number;
  /** how often a node looks for alert groups whose summary is due, and (schedulers) for overdue runs */
  alertSweepMs: number;
}

export const DEFAULT_CONFIG: EngineConfig = {
  workerHeartbeatMs: 5_000,
  taskHeartbeatMs: 30_000,
  heartbeatGraceFactor: 2.5,
  redispatchAfterMs: 30_000,
  killGraceMs: 10_000,
  lookAheadMs: 10_000,
  misfireThresholdMs: 5_000,
  clockStepToleranceMs: 60_000,
  maxCatchUp: 100,
  tickMs: 1_000,
  fireSchedules: true,
  maxConcurrency: 8,
  maxEventPayloadBytes: 1024 * 1024,
  maxFailovers: 3,
  queueAlertThreshold: 1_000,
  maxLineBytes: 64 * 1024,
  maxOutputBytes: 50 * 1024 * 1024,
  logRetentionMs: 30 * 86_400_000,
  logBatchLines: 500,
  logFlushMs: 200,
  logBufferBytes: 32 * 1024 * 1024,
  logGiveUpMs: 600_000,
  alertSweepMs: 30_000,
};

/** The scheduler-side timeout backstop: configured timeout + 1.5 × the heartbeat interval (design.md §7). */
export function timeoutBackstopMs(timeoutMs: number, config: Pick<EngineConfig, 'taskHeartbeatMs'>): number {
  return timeoutMs + 1.5 * config.taskHeartbeatMs;
}

/** How old a task heartbeat may be before the instance is suspected lost. */
export function taskLostAfterMs(config: Pick<EngineConfig, 'taskHeartbeatMs' | 'heartbeatGraceFactor'>): number {
  return config.heartbeatGraceFactor * config.taskHeartbeatMs;
}

export function workerLostAfterMs(config: Pick<EngineConfig, 'workerHeartbeatMs'>): number {
  return 3 * config.workerHeartbeatMs;
}

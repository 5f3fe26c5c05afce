// Monitors (design.md §13): a workflow with a schedule and a grace and no tasks, whose runs are
// reported from outside — `ax ping`, POST /ping/NAME, `ax wrap` — and recorded as runs with the
// trigger `external`.
import type { RunRecord } from './types.ts';

/** What a ping says: the job started, or ended (success, failure, an exit code). */
export type PingWhat = 'start' | 'success' | 'fail' | 'exit';

export interface PingReport {
  what: PingWhat;
  /** with `exit`: 0 is a success, anything else a failure with that code */
  exitCode?: number;
  /** the run a `start` answered (ax wrap): the end goes to it; without, to the oldest running one */
  runId?: number;
  /** the job's output (a POST body, what ax wrap captured): the run's log, at most MAX_PING_LOG_BYTES */
  log?: string;
  /** where it comes from, the run's `triggeredBy`: `ax ping on HOST`, `webhook from ADDRESS` */
  from: string;
}

export interface PingAnswer {
  run: RunRecord;
  instanceId: number;
  /** the log was longer than MAX_PING_LOG_BYTES: its start was cut (the log says so) */
  logCut?: boolean;
}

/** The most of a ping's log kept: its last 1 MiB (the end of a job's output says how it ended). */
export const MAX_PING_LOG_BYTES = 1024 * 1024;

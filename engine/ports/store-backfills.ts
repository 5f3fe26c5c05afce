// Backfills (api/backfill.ts): the object, its logical times and its runs. The runs themselves
// are created by RunStore.startRun with the run's backfillId: that step refuses a backfill that is
// no longer RUNNING, and the unique (backfill, logical time) makes a time's run once.
import type { BackfillRecord, BackfillState } from '../api/backfill.ts';
import type { ParamValue, RunRecord } from '../api/types.ts';

export interface NewBackfill {
  workflowId: number;
  workflowName: string;
  from: number;
  to: number;
  every?: string;
  /** oldest first */
  times: number[];
  params?: Record<string, ParamValue>;
  maxParallel: number;
  rerunExisting: boolean;
  createdBy: string;
  createdAt: number;
}

/** A backfill as the scheduler's pump reads it: the record and when its failed runs were asked to run again. */
export interface BackfillRow extends BackfillRecord {
  workflowId: number;
  rerunAt?: number;
}

export interface BackfillStore {
  /** a new backfill, RUNNING, with its logical times */
  createBackfill(backfill: NewBackfill): Promise<BackfillRow>;
  /** the backfill with its progress (done, failed, running of total) */
  getBackfill(id: number): Promise<BackfillRow | undefined>;
  /** newest first */
  listBackfills(filter: { workflowName?: string; states?: BackfillState[]; limit?: number }): Promise<BackfillRow[]>;
  /** its logical times, oldest first */
  backfillTimes(id: number): Promise<number[]>;
  /** its runs, oldest logical time first */
  backfillRuns(id: number): Promise<RunRecord[]>;
  /** the logical times in [from, to] the workflow has a run for already (any trigger) */
  runLogicalTimes(workflowId: number, from: number, to: number): Promise<number[]>;
  /**
   * end-backfill, one transaction: a RUNNING backfill becomes `state` (SUCCESS, FAILED,
   * CANCELLED) at `now`; false, with nothing written, when it was not RUNNING. After a
   * CANCELLED, startRun creates no run of it.
   */
  endBackfill(id: number, state: Exclude<BackfillState, 'RUNNING'>, now: number): Promise<boolean>;
  /**
   * reopen-backfill, one transaction: a SUCCESS or FAILED backfill is RUNNING again, with
   * rerunAt `now` (its FAILED runs that ended before then are due to run again); false when it
   * was RUNNING or CANCELLED.
   */
  reopenBackfill(id: number, now: number): Promise<boolean>;
}

// Backfills (`ax backfill`, the UI's backfill dialog and page): one run per logical time of a
// window, created by the leading scheduler at most `maxParallel` live at a time, oldest first.
import type { Actor } from './actor.ts';
import type { ParamValue, RunRecord } from './types.ts';

/** More runs than this in one backfill are refused unless the request says `force`. */
export const BACKFILL_FORCE_LIMIT = 1000;
/** The most runs one backfill may have at all, even with `force`. */
export const BACKFILL_MAX_RUNS = 100_000;
/** `maxParallel`'s range. */
export const BACKFILL_MAX_PARALLEL = 100;

export const BACKFILL_STATES = ['RUNNING', 'SUCCESS', 'FAILED', 'CANCELLED'] as const;
export type BackfillState = (typeof BACKFILL_STATES)[number];

/** What `backfill()` is asked: a window (epoch ms, both ends included) of a workflow. */
export interface BackfillRequest {
  workflow: string;
  /** the window's first moment (epoch ms) */
  from: number;
  /** the window's last moment (epoch ms), included */
  to: number;
  /**
   * a step ('1d', '1h', '15m'): one run per step from `from`; required for a workflow without a
   * schedule, refused for one with a schedule (its fires are the logical times)
   */
  every?: string;
  /** the runs' params (checked against the workflow's params) */
  params?: Record<string, ParamValue>;
  /** runs live at once (default 1); above 1 refused when the workflow's overlap is skip or queue */
  maxParallel?: number;
  /** also create runs for logical times that already have a run (any trigger) */
  rerunExisting?: boolean;
  /** only plan: list the logical times, create nothing */
  dryRun?: boolean;
  /** allow more than BACKFILL_FORCE_LIMIT runs */
  force?: boolean;
}

export interface BackfillRecord {
  id: number;
  workflowName: string;
  from: number;
  to: number;
  state: BackfillState;
  maxParallel: number;
  params?: Record<string, ParamValue>;
  /** the runs it will have in all (logical times after skipping the existing ones) */
  total: number;
  /** runs that ended (any final state, failed ones included) */
  done: number;
  /** runs that ended FAILED */
  failed: number;
  /** runs live now (QUEUED or RUNNING) */
  running: number;
  createdBy: string;
  createdAt: number;
  finishedAt?: number;
  /** the step it was asked with (`every`), absent when the schedule's fires are its times */
  every?: string;
  rerunExisting?: boolean;
}

/** What `backfill()` answers: the logical times (oldest first) it creates, or would on a dry run. */
export interface BackfillPlan {
  /** the backfill created; absent on a dry run */
  backfill?: BackfillRecord;
  /** the logical times that get a run, oldest first */
  logicalTimes: number[];
  /** logical times left out because a run of the workflow has them already (without rerunExisting) */
  skippedExisting: number[];
  /** logicalTimes.length */
  total: number;
  /** a note on what was decided for the caller (e.g. the overlap policy) */
  notes?: string[];
}

export interface BackfillDetail {
  backfill: BackfillRecord;
  /** every logical time of the backfill, oldest first */
  logicalTimes: number[];
  /** its runs, oldest logical time first */
  runs: RunRecord[];
}

/** The EngineApi's backfill methods (each in API_METHODS, with its schema in schemas.ts). */
export interface BackfillApi {
  /**
   * A backfill: one run per logical time of the window, oldest first, created by the leading
   * scheduler at most maxParallel live at once; dryRun: the plan only. Refused (validation, with
   * the field's path) over BACKFILL_FORCE_LIMIT runs without force, saying how many. Audited.
   */
  backfill(request: BackfillRequest, actor: Actor): Promise<BackfillPlan>;
  /** backfills, newest first, with their progress */
  listBackfills(filter: { workflow?: string; limit?: number }): Promise<BackfillRecord[]>;
  /** one backfill with its logical times and runs */
  getBackfill(id: number): Promise<BackfillDetail>;
  /** cancels a running backfill: its live runs are cancelled and it creates no more. Audited. */
  cancelBackfill(id: number, actor: Actor): Promise<BackfillDetail>;
  /**
   * Re-runs a finished backfill's FAILED runs in place (their failed tasks and downstream, as
   * rerunTask), within maxParallel, by the scheduler; the backfill is RUNNING again. Audited.
   */
  rerunBackfillFailed(id: number, actor: Actor): Promise<BackfillDetail>;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** The zone's offset (wall clock minus UTC, ms) at instant t. */
function offsetAt(zone: string, t: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(t);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return (
    Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - Math.floor(t / 1000) * 1000
  );
}

/** A wall-clock time in a zone as epoch ms (the earlier instant when the wall clock repeats). */
function zoned(wall: number, zone: string): number {
  const first = wall - offsetAt(zone, wall);
  return wall - offsetAt(zone, first);
}

/**
 * A window's end as people write it (`ax backfill --from/--to`, the UI's date fields), in `zone`
 * (the workflow schedule's): a date alone is that whole day (its start for `from`, its last
 * millisecond for `to`), a date and time without an offset is that wall-clock time in the zone,
 * an ISO 8601 time with `Z` or an offset is exact. An error names the field and the forms.
 */
export function windowBound(text: string, zone: string, end: 'from' | 'to'): { ms: number } | { error: string } {
  const input = text.trim();
  const date = DATE.exec(input);
  const wrong = {
    error: `${end}: "${text}" is not a date or time: write 2026-11-01 (a whole day in ${zone}), 2026-11-01T06:00 (in ${zone}) or an ISO 8601 time with its offset (2026-11-01T06:00:00Z)`,
  };
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const day = Date.UTC(y, m - 1, d);
    if (new Date(day).getUTCDate() !== d) return wrong;
    return end === 'from' ? { ms: zoned(day, zone) } : { ms: zoned(Date.UTC(y, m - 1, d + 1), zone) - 1 };
  }
  const local = LOCAL.exec(input);
  if (local) {
    const [y, mo, d, h, mi, s] = local.slice(1).map((v) => Number(v ?? 0)) as number[];
    const wall = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
    if (Number.isNaN(wall) || new Date(wall).getUTCDate() !== d) return wrong;
    return { ms: zoned(wall, zone) };
  }
  if (/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(input)) {
    const ms = Date.parse(input);
    if (!Number.isNaN(ms)) return { ms };
  }
  return wrong;
}

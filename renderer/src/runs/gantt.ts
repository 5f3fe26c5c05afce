// Geometry of the run timeline: one row per attempt, bars from start to finish (or now), placed
// in percent of the run's span so the chart needs no measuring; axis ticks at round intervals
// from the start. Before its bar an attempt may show a retry's backoff (a retry is created when
// the failed attempt ends, due notBefore later) and the time it waited for an upstream in another
// workflow or a free worker slot; an attempt still waiting grows to now.
import type { InstanceRecord, InstanceState } from '../../../engine/api/types.ts';

/** A held instance's notBefore (engine/ports HELD_FOR_UPSTREAM): never due until released. */
const HELD = 8_640_000_000_000_000;
/** Shorter waits (the dispatcher's own latency) are not drawn. */
export const MIN_WAIT_MS = 1000;

/** A stretch of a row, in percent of the track, and how long it lasted. */
export interface GanttSpan {
  left: number;
  width: number;
  ms: number;
}

export interface GanttRow {
  instance: InstanceRecord;
  /** bar start and width in percent of the track; a waiting instance has a queued bar only */
  left: number;
  width: number;
  /** the part before the process started (dispatched, waiting for a slot), in percent */
  queuedLeft?: number;
  queuedWidth?: number;
  /** still running: the bar's end is "now" */
  open: boolean;
  state: InstanceState;
  /** ms of run time so far (finished - started, or now - started) */
  durationMs?: number;
  /** a retry's delay before it was due */
  backoff?: GanttSpan;
  /** due (or held for another workflow) but not yet on a worker; up to now while it waits */
  waiting?: GanttSpan;
  /** it never started and has a waiting span: no run bar, only the wait */
  waitOnly?: boolean;
}

export interface GanttTick {
  /** ms since the start of the chart (ticks are labelled "+10 s", not by the clock) */
  offset: number;
  /** percent of the track */
  pos: number;
}

export interface GanttLayout {
  start: number;
  end: number;
  rows: GanttRow[];
  ticks: GanttTick[];
  /** ms between ticks */
  step: number;
}

/** Smallest bar, in percent, so that a 5 ms task is still a visible, clickable mark. */
export const MIN_BAR = 0.4;

const STEPS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * 1000)
  .concat(
    [1, 2, 5, 10, 15, 30].map((m) => m * 60_000),
    [1, 2, 3, 6, 12, 24].map((h) => h * 3_600_000),
  );

/** A round tick interval giving about `target` ticks over `span` ms. */
export function tickStep(span: number, target = 6): number {
  const raw = span / Math.max(1, target);
  for (const s of [100, 200, 500, ...STEPS]) if (s >= raw) return s;
  return Math.ceil(raw / 86_400_000) * 86_400_000;
}

export function ganttLayout(
  instances: readonly InstanceRecord[],
  now: number,
  options: { tickTarget?: number } = {},
): GanttLayout {
  // by start; tasks starting together keep the engine's order (topological, ties by name)
  const sorted = [...instances].sort(
    (a, b) => (a.startedAt ?? a.dispatchedAt ?? a.createdAt) - (b.startedAt ?? b.dispatchedAt ?? b.createdAt),
  );
  const starts = sorted.map((i) => Math.min(i.createdAt, i.dispatchedAt ?? i.startedAt ?? i.createdAt));
  // an attempt that has not ended reaches now: running, queued, or waiting for an upstream
  const ends = sorted.map((i) => i.finishedAt ?? now);
  const start = starts.length ? Math.min(...starts) : now;
  // At least one second wide, so that a run of instant tasks does not divide by zero.
  const end = Math.max(start + 1000, ...ends);
  const span = end - start;
  const pct = (t: number) => ((Math.min(Math.max(t, start), end) - start) / span) * 100;
  const spanOf = (from: number, to: number): GanttSpan => ({
    left: pct(from),
    width: Math.max(0, pct(to) - pct(from)),
    ms: Math.max(0, to - from),
  });

  const rows: GanttRow[] = sorted.map((inst) => {
    const open = inst.finishedAt === undefined && inst.startedAt !== undefined;
    const row: GanttRow = { instance: inst, state: inst.state, open, left: 0, width: 0 };
    // when it left the waiting state: dispatched, started, ended without starting, or not yet
    const ready = inst.dispatchedAt ?? inst.startedAt ?? inst.finishedAt ?? now;
    let waitFrom = inst.createdAt;
    if (inst.attempt > 1 && inst.notBefore > inst.createdAt && inst.notBefore !== HELD) {
      waitFrom = Math.min(inst.notBefore, ready);
      row.backoff = spanOf(inst.createdAt, waitFrom);
    }
    const stillWaiting = inst.state === 'WAITING' && inst.finishedAt === undefined;
    if (ready - waitFrom >= MIN_WAIT_MS || (stillWaiting && ready > waitFrom)) row.waiting = spanOf(waitFrom, ready);
    if (inst.dispatchedAt !== undefined) {
      const qEnd = inst.startedAt ?? inst.finishedAt ?? now;
      row.queuedLeft = pct(inst.dispatchedAt);
      row.queuedWidth = Math.max(0, pct(qEnd) - row.queuedLeft);
    }
    if (inst.startedAt !== undefined) {
      const barEnd = inst.finishedAt ?? now;
      row.left = pct(inst.startedAt);
      row.width = Math.max(MIN_BAR, pct(barEnd) - row.left);
      if (row.left + row.width > 100) row.left = 100 - row.width;
      row.durationMs = Math.max(0, barEnd - inst.startedAt);
    } else if (stillWaiting && row.waiting) {
      row.waitOnly = true;
    } else {
      // never started (cancelled, upstream failed): a mark where it was created/ended
      row.left = Math.min(100 - MIN_BAR, pct(inst.finishedAt ?? inst.createdAt));
      row.width = MIN_BAR;
    }
    return row;
  });

  const step = tickStep(span, options.tickTarget);
  const ticks: GanttTick[] = [];
  for (let offset = 0; start + offset <= end; offset += step) ticks.push({ offset, pos: pct(start + offset) });
  return { start, end, rows, ticks, step };
}

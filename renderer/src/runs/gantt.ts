// Geometry of the run timeline: one row per attempt, bars from start to finish (or now), placed
// in percent of the run's span so the chart needs no measuring; axis ticks at round intervals
// from the start.
import type { InstanceRecord, InstanceState } from '../../../engine/api/types.ts';

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
  const starts = sorted.map((i) => i.dispatchedAt ?? i.startedAt ?? i.createdAt);
  const ends = sorted.map(
    (i) => i.finishedAt ?? (i.startedAt !== undefined || i.dispatchedAt !== undefined ? now : i.createdAt),
  );
  const start = starts.length ? Math.min(...starts) : now;
  // At least one second wide, so that a run of instant tasks does not divide by zero.
  const end = Math.max(start + 1000, ...ends);
  const span = end - start;
  const pct = (t: number) => ((Math.min(Math.max(t, start), end) - start) / span) * 100;

  const rows: GanttRow[] = sorted.map((inst) => {
    const open = inst.finishedAt === undefined && inst.startedAt !== undefined;
    const row: GanttRow = { instance: inst, state: inst.state, open, left: 0, width: 0 };
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
    } else {
      // never started (waiting, cancelled, upstream failed): a mark where it was created/ended
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

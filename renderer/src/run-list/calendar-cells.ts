// The calendar's arithmetic, apart from React: the days of a range, the grid of days ×
// workflows from the engine's cells, and how strongly a cell is coloured.
import type { CalendarCell } from '../../../engine/api/run-views.ts';
import { addDays } from './run-filters.ts';

export interface DayCounts {
  success: number;
  failed: number;
  other: number;
  active: number;
}

export const NO_RUNS: DayCounts = { success: 0, failed: 0, other: 0, active: 0 };

export const totalOf = (c: DayCounts) => c.success + c.failed + c.other + c.active;

/** the `count` days ending with `last`, oldest first */
export function daysEnding(last: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => addDays(last, i - count + 1));
}

export function add(a: DayCounts, b: DayCounts): DayCounts {
  return {
    success: a.success + b.success,
    failed: a.failed + b.failed,
    other: a.other + b.other,
    active: a.active + b.active,
  };
}

export interface CalendarGrid {
  /** workflows with a run in the range, by name */
  workflows: string[];
  /** `${workflow}\0${day}` → counts */
  byCell: Map<string, DayCounts>;
  /** day → counts over every workflow */
  byDay: Map<string, DayCounts>;
  /** the largest run count of one cell (of one day, for `byDay`): the top of the colour scale */
  maxCell: number;
  maxDay: number;
}

export const cellKey = (workflow: string, day: string) => `${workflow}\u0000${day}`;

export function calendarGrid(cells: CalendarCell[]): CalendarGrid {
  const byCell = new Map<string, DayCounts>();
  const byDay = new Map<string, DayCounts>();
  const workflows = new Set<string>();
  let maxCell = 0;
  for (const c of cells) {
    const counts = { success: c.success, failed: c.failed, other: c.other, active: c.active };
    workflows.add(c.workflow);
    byCell.set(cellKey(c.workflow, c.day), counts);
    byDay.set(c.day, add(byDay.get(c.day) ?? NO_RUNS, counts));
    maxCell = Math.max(maxCell, totalOf(counts));
  }
  const maxDay = Math.max(0, ...[...byDay.values()].map(totalOf));
  return { workflows: [...workflows].sort((a, b) => a.localeCompare(b)), byCell, byDay, maxCell, maxDay };
}

export type CellTone = 'none' | 'success' | 'failed' | 'active' | 'other';

/**
 * What a cell shows: any failure makes it a failure cell, stronger the larger the failed share;
 * otherwise successes, stronger the more runs (on a log scale, so one busy workflow does not
 * wash out the others). `strength` is 0.3–1.
 */
export function cellTone(c: DayCounts, max: number): { tone: CellTone; strength: number } {
  const total = totalOf(c);
  if (total === 0) return { tone: 'none', strength: 0 };
  if (c.failed > 0) return { tone: 'failed', strength: 0.45 + 0.55 * (c.failed / total) };
  const scale = max > 1 ? Math.log(1 + total) / Math.log(1 + max) : 1;
  if (c.success > 0) return { tone: 'success', strength: 0.3 + 0.7 * scale };
  if (c.active > 0) return { tone: 'active', strength: 0.8 };
  return { tone: 'other', strength: 0.6 };
}

// The run-history grid turned on its side (issue 24): tasks are rows (the workflow's topological
// order), runs are columns with the newest on the RIGHT, so a 150-task workflow grows down, not
// across. The engine pages newest first; this model only reorders and measures.
import type { GridCell, RunGrid } from '../../../engine/api/engine-api.ts';
import type { RunRecord } from '../../../engine/api/types.ts';

export interface GridModel {
  /** rows: the workflow's current tasks, then tasks these runs had that it no longer has */
  tasks: string[];
  /** columns, oldest first (left) to newest (right) */
  runs: RunRecord[];
  /** cells[task row][run column]; undefined when the task did not run in that run */
  cells: (GridCell | undefined)[][];
  /** the longest run's duration here (ms): the bar chart's full height; 0 when none started */
  maxDurationMs: number;
}

/** A run's duration: finished − started, or up to `now` while it runs; undefined before it starts. */
export function runDurationMs(run: RunRecord, now: number): number | undefined {
  if (run.startedAt === undefined) return undefined;
  return Math.max(0, (run.finishedAt ?? now) - run.startedAt);
}

/** A cell's duration (ms), or undefined while it has no start or no end. */
export function cellDurationMs(cell: GridCell): number | undefined {
  return cell.startedAt !== undefined && cell.finishedAt !== undefined
    ? Math.max(0, cell.finishedAt - cell.startedAt)
    : undefined;
}

export function rotateGrid(grid: RunGrid, now: number): GridModel {
  const rows = [...grid.rows].reverse();
  const tasks = [...grid.tasks];
  const known = new Set(tasks);
  for (const row of rows)
    for (const task of Object.keys(row.cells))
      if (!known.has(task)) {
        known.add(task);
        tasks.push(task);
      }
  const cells = tasks.map((task) => rows.map((row) => row.cells[task]));
  const maxDurationMs = rows.reduce((max, row) => Math.max(max, runDurationMs(row.run, now) ?? 0), 0);
  return { tasks, runs: rows.map((r) => r.run), cells, maxDurationMs };
}

/**
 * Paging across runs: a stack of `beforeRunId` cursors, [undefined] being the newest page.
 * "Older" pushes the page's next cursor; "newer" pops back towards the newest.
 */
export type Cursors = (number | undefined)[];

export const NEWEST: Cursors = [undefined];

export function olderPage(cursors: Cursors, nextBeforeRunId: number | undefined): Cursors {
  return nextBeforeRunId === undefined ? cursors : [...cursors, nextBeforeRunId];
}

export function newerPage(cursors: Cursors): Cursors {
  return cursors.length > 1 ? cursors.slice(0, -1) : cursors;
}

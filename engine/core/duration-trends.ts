// Duration trends (issue 24): a workflow's last N finished runs, their p50/p95, and each current
// task's p50/p95 over the same runs. Nearest-rank percentiles: every figure is a real duration
// that happened, so "p95 = 4 min" points at a run someone can open.
import type { DurationTrends, Percentiles } from '../api/run-views.ts';
import type { FinishedRunDurations } from '../ports/store-views.ts';

/** Nearest-rank p50/p95 of durations in ms; no figures when there is nothing to measure. */
export function percentiles(durations: readonly number[]): Percentiles {
  const count = durations.length;
  if (count === 0) return { count };
  const sorted = [...durations].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * count) - 1)] as number;
  return { count, p50: rank(0.5), p95: rank(0.95) };
}

/**
 * Trends from the store's rows: `tasks` lists the workflow's current tasks (in its order), each
 * over its latest finished attempt per run; `durations` is aligned with `runs` (null: the task
 * did not finish in that run) so a sparkline's x is the run's.
 */
export function durationTrends(workflow: string, tasks: readonly string[], rows: FinishedRunDurations): DurationTrends {
  const runs = rows.runs.map((r) => ({
    runId: r.runId,
    state: r.state,
    startedAt: r.startedAt,
    durationMs: Math.max(0, r.finishedAt - r.startedAt),
  }));
  const column = new Map(runs.map((r, i) => [r.runId, i]));
  const perTask = new Map<string, (number | null)[]>(tasks.map((t) => [t, runs.map(() => null)]));
  // attempts come in id order: a later attempt of the same task and run overwrites an earlier one
  for (const a of rows.attempts) {
    const series = perTask.get(a.task);
    const i = column.get(a.runId);
    if (series && i !== undefined) series[i] = Math.max(0, a.finishedAt - a.startedAt);
  }
  return {
    workflow,
    runs,
    total: percentiles(runs.map((r) => r.durationMs)),
    tasks: tasks.map((task) => {
      const durations = perTask.get(task) ?? [];
      return { task, ...percentiles(durations.filter((d): d is number => d !== null)), durations };
    }),
  };
}

// The day timeline's layout, apart from React: one row per workflow (ordered by its first run of
// the day), runs that overlap within a workflow stacked in lanes, bars as fractions of the day,
// and the hour ticks of the viewer's zone (a day with a clock change has 23 or 25 hours).
import type { RunListing } from '../../../engine/api/engine-api.ts';

export interface GanttBar {
  run: RunListing;
  start: number;
  end: number;
  /** 0–1 of the day */
  left: number;
  width: number;
  lane: number;
  /** still queued or running: its end is now */
  open: boolean;
}

export interface GanttRow {
  workflow: string;
  lanes: number;
  bars: GanttBar[];
}

export function ganttRows(runs: RunListing[], from: number, to: number, now: number): GanttRow[] {
  const span = to - from;
  const byWorkflow = new Map<string, GanttBar[]>();
  for (const run of runs) {
    const open = run.finishedAt === undefined && (run.state === 'RUNNING' || run.state === 'QUEUED');
    const began = run.startedAt ?? run.createdAt;
    // a run of the day before is drawn only when it was still going at midnight
    if ((run.finishedAt ?? (open ? now : began)) <= from || began >= to) continue;
    const start = Math.max(from, began);
    const end = Math.min(to, Math.max(start, run.finishedAt ?? (open ? now : start)));
    const bar = { run, start, end, left: (start - from) / span, width: (end - start) / span, lane: 0, open };
    byWorkflow.set(run.workflowName, [...(byWorkflow.get(run.workflowName) ?? []), bar]);
  }
  const rows: GanttRow[] = [];
  for (const [workflow, bars] of byWorkflow) {
    bars.sort((a, b) => a.start - b.start || a.run.id - b.run.id);
    // each lane's end; a bar takes the first lane free at its start (1 s apart so touching runs share)
    const laneEnds: number[] = [];
    for (const bar of bars) {
      const free = laneEnds.findIndex((end) => end <= bar.start);
      bar.lane = free === -1 ? laneEnds.length : free;
      laneEnds[bar.lane] = Math.max(bar.end, bar.start + 1_000);
    }
    rows.push({ workflow, lanes: Math.max(1, laneEnds.length), bars });
  }
  return rows.sort((a, b) => (a.bars[0]?.start ?? 0) - (b.bars[0]?.start ?? 0) || a.workflow.localeCompare(b.workflow));
}

/** local hours of the day every `step` hours: epoch ms and 0–1 position */
export function hourTicks(day: { y: number; m: number; d: number }, from: number, to: number, step: number) {
  const ticks: { at: number; pos: number; hour: number }[] = [];
  for (let h = 0; h < 24; h += step) {
    const at = new Date(day.y, day.m - 1, day.d, h).getTime();
    // a clock change can skip an hour (02:00 → 03:00) or name one twice: keep ticks that exist, once
    if (at < from || at >= to || ticks.some((t) => t.at === at)) continue;
    ticks.push({ at, pos: (at - from) / (to - from), hour: new Date(at).getHours() });
  }
  return ticks;
}

// What a cron did over a window, from the runs and the audit log: one run per fire time, the
// fires missing, the largest gap, and what the misfire policy dropped (and said so).
import type { RunRecord } from '../../../engine/api/types.ts';
import type { Team } from './harness.ts';

export interface FireReport {
  /** the cron runs whose fire time lies in the window, ascending by fire time */
  runs: RunRecord[];
  /** fire times with more than one run */
  duplicates: number[];
  /** whole seconds of the window that have no run */
  missing: number[];
  /** the largest distance between consecutive fire times in the window, edges included (1000 when none is missing) */
  maxGapMs: number;
  /** fires the misfire policy dropped, by the audit log (entries written in the window or after) */
  skippedByPolicy: number;
  /** those audit entries: when the scan ran, how many it dropped, the latest one dropped */
  skips: { at: number; count: number; latest: number }[];
}

/** What an every-second cron did over [from, to] (both whole seconds). */
export async function everySecondFires(team: Team, workflow: string, from: number, to: number): Promise<FireReport> {
  const store = team.store;
  const all = (await store.listRuns({ workflowName: workflow, limit: 100_000 })).filter((r) => r.trigger === 'cron');
  const runs = all
    .filter((r) => r.logicalTime >= from && r.logicalTime <= to)
    .sort((a, b) => a.logicalTime - b.logicalTime || a.id - b.id);
  const count = new Map<number, number>();
  for (const r of runs) count.set(r.logicalTime, (count.get(r.logicalTime) ?? 0) + 1);
  const duplicates = [...count].filter(([, n]) => n > 1).map(([t]) => t);
  const missing: number[] = [];
  for (let t = from; t <= to; t += 1_000) if (!count.has(t)) missing.push(t);
  const times = [from - 1_000, ...count.keys(), to + 1_000].sort((a, b) => a - b);
  let maxGapMs = 0;
  for (let k = 1; k < times.length; k++) maxGapMs = Math.max(maxGapMs, (times[k] as number) - (times[k - 1] as number));
  const skips: FireReport['skips'] = [];
  for (const e of await store.listAudit(10_000)) {
    if (e.action !== 'misfire.skip' || e.object !== `workflow:${workflow}`) continue;
    const m = /^(more than )?(\d+) missed fire\(s\) up to (\S+) not run/.exec(e.detail ?? '');
    if (m && Date.parse(m[3] as string) >= from)
      skips.push({ at: e.at, count: Number(m[2]), latest: Date.parse(m[3] as string) });
  }
  return { runs, duplicates, missing, maxGapMs, skippedByPolicy: skips.reduce((n, k) => n + k.count, 0), skips };
}

export const wholeSecondAfter = (t: number): number => Math.ceil(t / 1_000) * 1_000;

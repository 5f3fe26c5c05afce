// When a run took far longer or far shorter than its history (design.md §13): outside
// [median / 3, median × 3] of the last 20 durations, judged once there are at least 5.

export const ANOMALY_HISTORY = 20;
export const ANOMALY_MIN_HISTORY = 5;
export const ANOMALY_FACTOR = 3;

export interface DurationAnomaly {
  kind: 'longer' | 'shorter';
  medianMs: number;
  /** the history it was judged against */
  runs: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `history`: earlier durations, newest first (only the first ANOMALY_HISTORY count). */
export function durationAnomaly(durationMs: number, history: number[]): DurationAnomaly | undefined {
  const recent = history.slice(0, ANOMALY_HISTORY);
  if (recent.length < ANOMALY_MIN_HISTORY) return undefined;
  const m = median(recent);
  if (durationMs > m * ANOMALY_FACTOR) return { kind: 'longer', medianMs: m, runs: recent.length };
  if (durationMs < m / ANOMALY_FACTOR) return { kind: 'shorter', medianMs: m, runs: recent.length };
  return undefined;
}

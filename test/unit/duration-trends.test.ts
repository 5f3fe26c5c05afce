import { describe, expect, it } from 'vitest';
import { durationTrends, percentiles } from '../../engine/core/duration-trends.ts';

describe('percentiles', () => {
  it('takes nearest ranks: every figure is a duration that happened', () => {
    const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(percentiles(ten)).toEqual({ count: 10, p50: 5, p95: 10 });
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentiles(hundred)).toEqual({ count: 100, p50: 50, p95: 95 });
    expect(percentiles([7])).toEqual({ count: 1, p50: 7, p95: 7 });
  });

  it('gives no figures when nothing finished', () => {
    expect(percentiles([])).toEqual({ count: 0 });
  });
});

describe('durationTrends', () => {
  it("measures runs and each current task's latest finished attempt, aligned with the runs", () => {
    const trends = durationTrends('etl', ['extract', 'load', 'new'], {
      runs: [
        { runId: 1, state: 'SUCCESS', startedAt: 0, finishedAt: 1000 },
        { runId: 2, state: 'FAILED', startedAt: 5000, finishedAt: 8000 },
      ],
      attempts: [
        { runId: 1, task: 'extract', startedAt: 0, finishedAt: 400 },
        { runId: 1, task: 'load', startedAt: 400, finishedAt: 1000 },
        { runId: 2, task: 'extract', startedAt: 5000, finishedAt: 5100 },
        // the retry is the latest attempt: it replaces the first
        { runId: 2, task: 'extract', startedAt: 6000, finishedAt: 6300 },
        { runId: 2, task: 'gone', startedAt: 6000, finishedAt: 7000 },
      ],
    });
    expect(trends.runs).toEqual([
      { runId: 1, state: 'SUCCESS', startedAt: 0, durationMs: 1000 },
      { runId: 2, state: 'FAILED', startedAt: 5000, durationMs: 3000 },
    ]);
    expect(trends.total).toEqual({ count: 2, p50: 1000, p95: 3000 });
    expect(trends.tasks).toEqual([
      { task: 'extract', count: 2, p50: 300, p95: 400, durations: [400, 300] },
      { task: 'load', count: 1, p50: 600, p95: 600, durations: [600, null] },
      { task: 'new', count: 0, durations: [null, null] },
    ]);
  });
});

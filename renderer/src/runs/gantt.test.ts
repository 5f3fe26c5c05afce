import { describe, expect, it } from 'vitest';
import { ganttLayout, MIN_BAR, tickStep } from './gantt.ts';
import { inst } from './test-instances.ts';

describe('ganttLayout', () => {
  it('places bars in percent of the run span, ordered by start, running ones up to now', () => {
    const a = inst('a', { state: 'SUCCESS', createdAt: 0, dispatchedAt: 0, startedAt: 0, finishedAt: 4000 });
    const b = inst('b', { state: 'RUNNING', createdAt: 4000, dispatchedAt: 4000, startedAt: 5000 });
    const c = inst('c', { state: 'WAITING', createdAt: 4000 });
    const g = ganttLayout([b, c, a], 10_000);
    expect(g.start).toBe(0);
    expect(g.end).toBe(10_000);
    expect(g.rows.map((r) => r.instance.taskName)).toEqual(['a', 'c', 'b']);
    const [ra, rc, rb] = g.rows;
    expect(ra).toMatchObject({ left: 0, width: 40, open: false, durationMs: 4000 });
    expect(rb).toMatchObject({ left: 50, width: 50, open: true, durationMs: 5000, queuedLeft: 40, queuedWidth: 10 });
    // never started, still waiting: no run bar, a wait from its creation up to now
    expect(rc).toMatchObject({ waitOnly: true, waiting: { left: 40, width: 60, ms: 6000 } });
    expect(rc?.durationMs).toBeUndefined();
  });

  it('grows a task held for another workflow to now, not to a second after it was created', () => {
    const a = inst('a', { state: 'SUCCESS', createdAt: 0, dispatchedAt: 0, startedAt: 0, finishedAt: 1000 });
    const held = inst('b', { state: 'WAITING', createdAt: 1000, notBefore: 8_640_000_000_000_000 });
    const g = ganttLayout([a, held], 57_000);
    expect(g.end).toBe(57_000);
    const row = g.rows.find((r) => r.instance.taskName === 'b');
    expect(row?.waiting?.ms).toBe(56_000);
    expect((row?.waiting?.left ?? 0) + (row?.waiting?.width ?? 0)).toBeCloseTo(100);
    expect(row?.backoff).toBeUndefined();
  });

  it("draws a retry's backoff from the failed attempt's end to when it was due, then its wait for a worker", () => {
    const first = inst('a', { attempt: 1, state: 'FAILED', createdAt: 0, startedAt: 0, finishedAt: 2000 });
    const retry = inst('a', {
      attempt: 2,
      state: 'SUCCESS',
      createdAt: 2000,
      notBefore: 7000,
      dispatchedAt: 9000,
      startedAt: 9000,
      finishedAt: 10_000,
    });
    const g = ganttLayout([first, retry], 10_000);
    const row = g.rows[1];
    expect(row?.backoff).toEqual({ left: 20, width: 50, ms: 5000 });
    expect(row?.waiting).toEqual({ left: 70, width: 20, ms: 2000 });
    expect(row).toMatchObject({ left: 90, width: 10 });
    // the first attempt started at once: nothing before its bar
    expect(g.rows[0]?.backoff).toBeUndefined();
    expect(g.rows[0]?.waiting).toBeUndefined();
  });

  it('names a wait that was released: first attempt, due later than created, an upstream held it', () => {
    const released = inst('b', {
      state: 'SUCCESS',
      createdAt: 0,
      notBefore: 30_000,
      dispatchedAt: 30_100,
      startedAt: 30_200,
      finishedAt: 40_000,
    });
    const row = ganttLayout([released], 40_000).rows[0];
    expect(row?.backoff).toBeUndefined();
    expect(row?.waiting?.ms).toBe(30_100);
  });

  it("draws no wait for the dispatcher's own latency, and a cancelled waiter only up to its end", () => {
    const quick = inst('a', { state: 'SUCCESS', createdAt: 0, dispatchedAt: 40, startedAt: 50, finishedAt: 5000 });
    const cancelled = inst('b', { state: 'CANCELLED', createdAt: 0, finishedAt: 3000 });
    const g = ganttLayout([quick, cancelled], 90_000);
    expect(g.end).toBe(5000);
    expect(g.rows.find((r) => r.instance.taskName === 'a')?.waiting).toBeUndefined();
    const c = g.rows.find((r) => r.instance.taskName === 'b');
    expect(c?.waiting?.ms).toBe(3000);
    expect(c?.waitOnly).toBeUndefined();
  });

  it('keeps an instant task visible and inside the track', () => {
    const a = inst('a', { state: 'SUCCESS', createdAt: 0, dispatchedAt: 0, startedAt: 0, finishedAt: 2 });
    const g = ganttLayout([a], 2);
    expect(g.end - g.start).toBe(1000);
    expect(g.rows[0]?.width).toBe(MIN_BAR);
    const late = inst('z', { state: 'SUCCESS', createdAt: 0, startedAt: 1000, finishedAt: 1000 });
    const g2 = ganttLayout([a, late], 1000);
    const row = g2.rows.find((r) => r.instance.taskName === 'z');
    expect((row?.left ?? 0) + (row?.width ?? 0)).toBeLessThanOrEqual(100);
  });

  it('puts one row per attempt', () => {
    const first = inst('a', { attempt: 1, state: 'FAILED', createdAt: 0, startedAt: 0, finishedAt: 1000 });
    const second = inst('a', { attempt: 2, state: 'SUCCESS', createdAt: 3000, startedAt: 3000, finishedAt: 4000 });
    const g = ganttLayout([second, first], 5000);
    expect(g.rows.map((r) => [r.instance.attempt, r.state])).toEqual([
      [1, 'FAILED'],
      [2, 'SUCCESS'],
    ]);
  });

  it('ticks at round intervals inside the span', () => {
    expect(tickStep(60_000)).toBe(10_000);
    expect(tickStep(3_600_000)).toBe(600_000);
    expect(tickStep(900)).toBe(200);
    const a = inst('a', { state: 'SUCCESS', createdAt: 1500, startedAt: 1500, finishedAt: 61_500 });
    const g = ganttLayout([a], 61_500);
    expect(g.ticks.map((t) => t.offset)).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
    expect(g.ticks[1]?.pos).toBeCloseTo((10_000 / 60_000) * 100);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMEOUT_MS, systemClock } from '../../engine/adapters/system-clock.ts';

// vitest's fake timers reproduce Node's overflow: a setTimeout delay past 2³¹−1 ms fires after 1 ms.
describe('the system clock keeps long timers', () => {
  beforeEach(() =>
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: Date.UTC(2026, 10, 30) }),
  );
  afterEach(() => vi.useRealTimers());

  const DAY = 86_400_000;

  it('a 25-day timeout fires after 25 days, not after 1 ms', () => {
    const fired: number[] = [];
    const start = Date.now();
    systemClock.setTimer(25 * DAY, () => fired.push(Date.now() - start));
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(MAX_TIMEOUT_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(25 * DAY);
    expect(fired).toEqual([25 * DAY]);
  });

  it('365 days fires once, on time', () => {
    const fired: number[] = [];
    const start = Date.now();
    systemClock.setTimer(365 * DAY, () => fired.push(Date.now() - start));
    vi.advanceTimersByTime(365 * DAY - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([365 * DAY]);
    vi.advanceTimersByTime(365 * DAY);
    expect(fired).toHaveLength(1);
  });

  it('cancelling a long timer stops the whole chain, also after a link has passed', () => {
    const fired: number[] = [];
    const cancel = systemClock.setTimer(60 * DAY, () => fired.push(1));
    vi.advanceTimersByTime(30 * DAY);
    cancel();
    vi.advanceTimersByTime(60 * DAY);
    expect(fired).toEqual([]);
  });

  it('short and negative delays behave as setTimeout', () => {
    const fired: string[] = [];
    systemClock.setTimer(-5, () => fired.push('now'));
    systemClock.setTimer(50, () => fired.push('50ms'));
    vi.advanceTimersByTime(0);
    expect(fired).toEqual(['now']);
    vi.advanceTimersByTime(50);
    expect(fired).toEqual(['now', '50ms']);
  });

  it('a wall clock set back 3 h does not hold a pending timer for 3 more hours (deadlines are monotonic)', () => {
    const fired: string[] = [];
    systemClock.setTimer(1000, () => fired.push('1s'));
    vi.setSystemTime(Date.now() - 3 * 3600_000);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(['1s']);
  });
});

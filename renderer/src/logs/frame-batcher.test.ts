import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FrameBatcher } from './frame-batcher.ts';

describe('FrameBatcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** a batcher whose frames run only when the test says so */
  function setup(minIntervalMs = 100) {
    const frames: (() => void)[] = [];
    const batches: number[][] = [];
    const b = new FrameBatcher<number>((items) => batches.push(items), {
      minIntervalMs,
      fallbackMs: 250,
      requestFrame: (cb) => frames.push(cb),
      cancelFrame: () => undefined,
      now: () => Date.now(),
    });
    const frame = () => frames.splice(0).forEach((f) => f());
    return { b, batches, frame, frames };
  }

  it('hands over everything pushed before a frame in one batch', () => {
    const { b, batches, frame, frames } = setup();
    for (let i = 0; i < 1000; i++) b.push(i);
    expect(frames).toHaveLength(1);
    frame();
    expect(batches.map((x) => x.length)).toEqual([1000]);
  });

  it('flushes at most once per interval, whatever the rate', () => {
    const { b, batches, frame } = setup(100);
    b.push(1);
    frame();
    b.push(2);
    frame(); // no frame was asked for yet: the interval has not passed
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(99);
    frame();
    expect(batches).toEqual([[1]]);
    b.push(3);
    vi.advanceTimersByTime(1);
    frame();
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('flushes on a timer when no frame comes (hidden tab), and drops items on cancel', () => {
    const { b, batches } = setup(0);
    b.push(1);
    b.push(2);
    vi.advanceTimersByTime(249);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([[1, 2]]);
    b.push(3);
    b.cancel();
    vi.advanceTimersByTime(1000);
    expect(batches).toEqual([[1, 2]]);
  });
});

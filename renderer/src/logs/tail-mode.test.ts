import { describe, expect, it } from 'vitest';
import { DEFAULT_TAIL_POLICY, keepPolling, RateMeter } from './tail-mode.ts';

describe('tail mode', () => {
  it('says "too fast" once the limit is reached within one second, and starts over each second', () => {
    const meter = new RateMeter(1000);
    expect(meter.add(600, 0)).toBe(false);
    expect(meter.add(399, 900)).toBe(false);
    expect(meter.add(1, 950)).toBe(true);
    expect(meter.add(10, 1000)).toBe(false);
    for (let t = 1001; t < 1990; t++) meter.add(1, t);
    expect(meter.add(100, 1995)).toBe(true);
  });

  it('keeps polling while reads bring a lot, goes back to events when output slows down', () => {
    expect(keepPolling(DEFAULT_TAIL_POLICY.pollLimit)).toBe(true);
    expect(keepPolling(2000)).toBe(true); // 10,000 lines/s at 5 reads/s
    expect(keepPolling(45)).toBe(false); // 225 lines/s
    expect(keepPolling(0)).toBe(false);
  });
});

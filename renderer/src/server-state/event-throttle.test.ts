import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventThrottle } from './event-throttle.ts';

describe('EventThrottle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('trailing: a burst of events costs one call, at the end of the window the first opened', () => {
    let calls = 0;
    const throttle = new EventThrottle(() => calls++, { windowMs: 500, now: () => Date.now() });
    for (let i = 0; i < 200; i++) throttle.poke();
    vi.advanceTimersByTime(499);
    expect(calls).toBe(0);
    vi.advanceTimersByTime(1);
    expect(calls).toBe(1);
    throttle.poke();
    vi.advanceTimersByTime(500);
    expect(calls).toBe(2);
  });

  it('leading: the first event after a quiet window calls at once, the rest of the window once at its end', () => {
    let calls = 0;
    const throttle = new EventThrottle(() => calls++, { windowMs: 250, leading: true, now: () => Date.now() });
    throttle.poke();
    vi.advanceTimersByTime(0);
    expect(calls).toBe(1);
    vi.advanceTimersByTime(100);
    throttle.poke();
    throttle.poke();
    vi.advanceTimersByTime(149);
    expect(calls).toBe(1);
    vi.advanceTimersByTime(1);
    expect(calls).toBe(2);
    // quiet again: at once
    vi.advanceTimersByTime(1_000);
    throttle.poke();
    vi.advanceTimersByTime(0);
    expect(calls).toBe(3);
  });

  it('cancel drops the pending call', () => {
    let calls = 0;
    const throttle = new EventThrottle(() => calls++, { windowMs: 300 });
    throttle.poke();
    throttle.cancel();
    vi.advanceTimersByTime(1_000);
    expect(calls).toBe(0);
  });
});

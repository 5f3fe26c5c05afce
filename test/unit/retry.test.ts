// The one retry-with-backoff helper (engine/core/support/retry.ts) on a fake clock: its waits double and
// stop at the cap, a failure retrying cannot help is thrown at once, a deadline ends it, and a
// shutdown cuts a wait short.
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../engine/core/model/backoff.ts';
import { retrying } from '../../engine/core/support/retry.ts';
import { FakeClock, settle } from '../helpers/fake-clock.ts';

/** An attempt that fails `failures` times, then returns 'done'; records when it was called. */
function flaky(clock: FakeClock, failures: number) {
  const calls: number[] = [];
  return {
    calls,
    attempt: async () => {
      calls.push(clock.now());
      if (calls.length <= failures) throw new Error(`failure ${calls.length}`);
      return 'done';
    },
  };
}

describe('backoffDelay', () => {
  it('doubles from firstMs per failure and holds at maxMs, even after a very long outage', () => {
    const b = { firstMs: 200, maxMs: 5_000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(b, n))).toEqual([200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
    expect(backoffDelay(b, 100_000)).toBe(5_000);
    expect(backoffDelay(b, 0)).toBe(200);
  });
});

describe('retrying', () => {
  it('waits the doubling backoff between tries and returns the first success', async () => {
    const clock = new FakeClock(0);
    const { calls, attempt } = flaky(clock, 4);
    const told: number[] = [];
    const result = retrying(clock, attempt, { firstMs: 100, maxMs: 300, onRetry: (_err, delay) => told.push(delay) });
    await settle();
    await clock.advance(10_000);
    expect(await result).toBe('done');
    expect(calls).toEqual([0, 100, 300, 600, 900]);
    expect(told).toEqual([100, 200, 300, 300]);
  });

  it('throws at once what retrying cannot help, without waiting', async () => {
    const clock = new FakeClock(0);
    const { calls, attempt } = flaky(clock, 5);
    const result = retrying(clock, attempt, {
      firstMs: 100,
      maxMs: 1_000,
      retryable: (err) => !String(err).includes('failure 1'),
    });
    await expect(result).rejects.toThrow('failure 1');
    expect(calls).toEqual([0]);
  });

  it('gives up with the last error once a failure comes after the deadline', async () => {
    const clock = new FakeClock(0);
    const { calls, attempt } = flaky(clock, 100);
    const result = retrying(clock, attempt, { firstMs: 1_000, maxMs: 1_000, giveUpAfterMs: 2_500 });
    const settled = result.catch((err: unknown) => err);
    await settle();
    await clock.advance(10_000);
    expect(String(await settled)).toContain('failure 4');
    expect(calls).toEqual([0, 1_000, 2_000, 3_000]);
  });

  it('an interrupt ends the wait early: the next try comes at once', async () => {
    const clock = new FakeClock(0);
    const { calls, attempt } = flaky(clock, 1);
    let stop: () => void = () => undefined;
    const interrupt = new Promise<void>((resolve) => (stop = resolve));
    const result = retrying(clock, attempt, { firstMs: 60_000, maxMs: 60_000, interrupt });
    await settle();
    expect(calls).toEqual([0]);
    stop();
    expect(await result).toBe('done');
    expect(calls).toEqual([0, 0]);
  });
});

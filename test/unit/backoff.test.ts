import { describe, it, expect } from 'vitest';
import { retryDelay } from '../../engine/core/model/backoff.ts';

describe('retryDelay', () => {
  it('fixed: the same delay after every failure, the cap notwithstanding', () => {
    const fixed = { kind: 'fixed', delayMs: 30_000, maxDelayMs: 30_000 } as const;
    expect([1, 2, 5, 50].map((n) => retryDelay(fixed, n))).toEqual([30_000, 30_000, 30_000, 30_000]);
  });

  it('exponential: doubles per failed attempt from delayMs, then holds at maxDelayMs', () => {
    const exp = { kind: 'exponential', delayMs: 1_000, maxDelayMs: 10_000 } as const;
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelay(exp, n))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('exponential: a huge attempt number gives the cap, not Infinity or NaN', () => {
    expect(retryDelay({ kind: 'exponential', delayMs: 1_000, maxDelayMs: 600_000 }, 5_000)).toBe(600_000);
    expect(retryDelay({ kind: 'exponential', delayMs: 0, maxDelayMs: 600_000 }, 5_000)).toBe(0);
  });

  it('exponential: attempt 0 or below counts as the first failure', () => {
    expect(retryDelay({ kind: 'exponential', delayMs: 500, maxDelayMs: 10_000 }, 0)).toBe(500);
  });
});

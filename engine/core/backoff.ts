// How long a failed instance waits before its next attempt (SPEC §3 retries).
import type { RetryBackoff } from '../api/types.ts';

/**
 * The delay before retrying after attempt `failedAttempt` (1 = the first run) failed.
 * fixed: always delayMs; exponential: delayMs, 2×, 4×, … capped at maxDelayMs.
 */
export function retryDelay(backoff: RetryBackoff, failedAttempt: number): number {
  const base = Math.max(0, backoff.delayMs);
  if (backoff.kind === 'fixed' || base === 0) return base;
  const doublings = Math.max(0, Math.floor(failedAttempt) - 1);
  // 2 ** 1100 is Infinity, so a huge attempt number still lands on the cap rather than NaN.
  return Math.min(base * 2 ** doublings, Math.max(base, backoff.maxDelayMs));
}

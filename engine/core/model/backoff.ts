// How long to wait before trying again: a failed instance's next attempt (a task's retry
// backoff), and the doubling wait of every retry loop in the engine (support/retry.ts).
import type { RetryBackoff } from '../../api/types.ts';

/**
 * The delay before retrying after attempt `failedAttempt` (1 = the first run) failed.
 * fixed: always delayMs; exponential: delayMs, 2×, 4×, … capped at maxDelayMs.
 */
export function retryDelay(backoff: RetryBackoff, failedAttempt: number): number {
  const base = Math.max(0, backoff.delayMs);
  if (backoff.kind === 'fixed' || base === 0) return base;
  return backoffDelay({ firstMs: base, maxMs: Math.max(base, backoff.maxDelayMs) }, Math.floor(failedAttempt));
}

export interface Backoff {
  /** the wait after the first failure */
  firstMs: number;
  /** the doubling stops here */
  maxMs: number;
}

/** The wait after `failures` failures in a row (1 = the first): firstMs, 2×, 4×, … capped at maxMs. */
export function backoffDelay(backoff: Backoff, failures: number): number {
  // 2 ** 1100 is Infinity: a long outage still lands on the cap.
  return Math.min(backoff.firstMs * 2 ** Math.max(0, failures - 1), backoff.maxMs);
}

// How long a failed instance waits before its next attempt (SPEC §3 retries).
import type { RetryBackoff } from '../api/types.ts';
import { backoffDelay } from './retry.ts';

/**
 * The delay before retrying after attempt `failedAttempt` (1 = the first run) failed.
 * fixed: always delayMs; exponential: delayMs, 2×, 4×, … capped at maxDelayMs.
 */
export function retryDelay(backoff: RetryBackoff, failedAttempt: number): number {
  const base = Math.max(0, backoff.delayMs);
  if (backoff.kind === 'fixed' || base === 0) return base;
  return backoffDelay({ firstMs: base, maxMs: Math.max(base, backoff.maxDelayMs) }, Math.floor(failedAttempt));
}

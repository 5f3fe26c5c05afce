// A write (or read) an outcome depends on survives a database restart: retried with backoff, up
// to a deadline, rather than lost. A storage error (the file deleted, read-only, damaged) is not
// retried: it lasts until a person acts.
import { AxError } from '../../api/errors.ts';
import type { Clock } from '../../ports/clock.ts';
import { type Backoff, retrying } from './retry.ts';

/** Whether retrying cannot help: the store refuses until a person acts. */
export function notRetryable(err: unknown): boolean {
  return err instanceof AxError && err.code === 'storage';
}

/** How the engine waits for its database: 200 ms, doubling up to 5 s. */
export const STORE_BACKOFF: Backoff = { firstMs: 200, maxMs: 5_000 };

export function persistently<T>(
  clock: Clock,
  write: () => Promise<T>,
  onRetry: (err: unknown, delayMs: number) => void,
  giveUpAfterMs = 600_000,
): Promise<T> {
  return retrying(clock, write, { ...STORE_BACKOFF, retryable: (err) => !notRetryable(err), giveUpAfterMs, onRetry });
}

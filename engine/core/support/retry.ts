// Retrying with backoff, the one loop behind every "try again later" in the engine: outcome
// writes (store-retry.ts), the worker's take loop, the log writer's failed writes and `ax serve`
// waiting for its servers. Each caller says how long the first wait is and where the doubling
// stops; the waiting is on the injected clock, so a fake clock drives it in tests.
import type { Clock } from '../../ports/clock.ts';
import { type Backoff, backoffDelay } from '../model/backoff.ts';

export type { Backoff } from '../model/backoff.ts';

export interface RetryOptions extends Backoff {
  /** false: thrown at once, retrying cannot help (a wrong password, a deleted file) */
  retryable?: (err: unknown) => boolean;
  /** the last error is thrown once a failure comes this long after the first try */
  giveUpAfterMs?: number;
  /** told before each wait */
  onRetry?: (err: unknown, delayMs: number) => void;
  /** cuts a wait short when it settles (a shutdown); the caller's attempt then sees why */
  interrupt?: Promise<unknown>;
}

/** Calls attempt until it resolves, waiting a doubling backoff after each failure. */
export async function retrying<T>(clock: Clock, attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const giveUpAt = options.giveUpAfterMs === undefined ? Infinity : clock.now() + options.giveUpAfterMs;
  for (let failures = 1; ; failures++) {
    try {
      return await attempt();
    } catch (err) {
      if (options.retryable?.(err) === false || clock.now() > giveUpAt) throw err;
      const delay = backoffDelay(options, failures);
      options.onRetry?.(err, delay);
      let cancel: () => void = () => undefined;
      const waited = new Promise<void>((resolve) => (cancel = clock.setTimer(delay, resolve)));
      await (options.interrupt ? Promise.race([waited, options.interrupt]) : waited);
      cancel();
    }
  }
}

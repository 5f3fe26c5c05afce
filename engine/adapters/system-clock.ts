import type { Clock } from '../ports/clock.ts';

/** The longest delay setTimeout honours (2³¹−1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * setTimeout for any duration: a delay past MAX_TIMEOUT_MS is waited for in a chain of shorter
 * timers, each re-aimed at the same deadline. Timers are unref'd: they never keep the process alive.
 * Returns a function that cancels the chain.
 *
 * The deadline is on the monotonic clock, not the wall clock: a wall clock set back by 3 h (it had
 * gone ahead; NTP, a restored snapshot) would otherwise hold every re-aimed timer, the scheduler's
 * tick among them, for 3 more hours.
 */
export function setLongTimeout(ms: number, fn: () => void): () => void {
  const deadline = performance.now() + Math.max(0, ms);
  let timer: NodeJS.Timeout;
  const arm = (delay: number) => {
    timer = setTimeout(
      () => {
        const left = deadline - performance.now();
        if (left > 0) arm(left);
        else fn();
      },
      Math.min(Math.max(0, delay), MAX_TIMEOUT_MS),
    );
    timer.unref();
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** Wall-clock time; timers of any length, which never keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: setLongTimeout,
};

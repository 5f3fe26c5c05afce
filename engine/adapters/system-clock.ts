import type { Clock } from '../ports/clock.ts';

/** Wall-clock time; timers never keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return () => clearTimeout(t);
  },
};

// Calling something again and again on the injected clock, without overlapping calls piling up.
import type { Clock } from '../../ports/clock.ts';

export interface RepeatOptions {
  /** `after` (default): the next call ms after the previous one ended; `fixed`: every ms on the clock, not waiting for it */
  cadence?: 'after' | 'fixed';
  /** told when a call rejects; the repetition goes on */
  onError?: (err: unknown) => void;
  /** checked before each scheduling: true ends the repetition */
  until?: () => boolean;
}

/** Calls fn every ms; returns a function that stops it. */
export function repeat(clock: Clock, ms: number, fn: () => Promise<void>, options: RepeatOptions = {}): () => void {
  let cancel: () => void = () => undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped || options.until?.()) return;
    cancel = clock.setTimer(ms, () => {
      const call = fn().catch((err: unknown) => options.onError?.(err));
      if (options.cadence === 'fixed') schedule();
      else void call.finally(schedule);
    });
  };
  schedule();
  return () => {
    stopped = true;
    cancel();
  };
}

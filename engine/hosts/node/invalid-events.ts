// What a node does with a message on the team's events channel that is not an event (forged, or
// from an incompatible version): counted (ax_events_dropped_total) and told on the node's log at
// most once per window, so a flood of forgeries is one line a minute, not one line each.
import type { EngineMetrics } from '../../ports/metrics.ts';

export interface InvalidEventOptions {
  metrics: Pick<EngineMetrics, 'eventDropped'>;
  /** one line for the node's log (stderr, or the desktop shell's alert) */
  say: (message: string) => void;
  /** where the events come from, for the message (e.g. the Redis prefix) */
  source: string;
  windowMs?: number;
}

/** Returns the coordinator's onInvalidEvent: counts each, tells the first at once and the rest once per window. */
export function invalidEventReporter(options: InvalidEventOptions): (problem: string) => void {
  const windowMs = options.windowMs ?? 60_000;
  let pending = 0;
  let last = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    timer = undefined;
    if (pending === 0) return;
    options.say(
      `dropped ${pending} more invalid event${pending === 1 ? '' : 's'} from ${options.source} in the last ${Math.round(windowMs / 1000)} s; the last: ${last}`,
    );
    pending = 0;
    timer = setTimeout(flush, windowMs);
    timer.unref?.();
  };
  return (problem) => {
    options.metrics.eventDropped();
    if (timer) {
      pending++;
      last = problem;
      return;
    }
    options.say(
      `dropped an invalid event from ${options.source} (${problem}): it reached no client; someone holding the team's Redis credentials may be publishing on its events channel. More are counted in ax_events_dropped_total and told once a minute`,
    );
    timer = setTimeout(flush, windowMs);
    timer.unref?.();
  };
}

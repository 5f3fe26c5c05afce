// How the viewer follows a live log. Line events (`log:ID`) give the lowest latency, but each is
// one WebSocket message: a task printing 10,000 lines a second is 10,000 messages a second, more
// than a busy browser can take (measured: the viewer fell minutes behind at 6 frames a second).
// Above `fastLinesPerSec` the viewer drops the subscription and reads the stored tail in pages
// a few times a second (one message per read); when the output slows down it subscribes again.
export type TailMode = 'events' | 'poll';

export interface TailPolicy {
  /** line events per second above which reading the tail is cheaper */
  fastLinesPerSec: number;
  /** how often the tail is read while polling */
  pollMs: number;
  /** at most this many lines per read (the engine clamps readLogs at 10,000) */
  pollLimit: number;
  /**
   * full reads in a row after which the viewer stops reading every line and jumps to the end
   * (api.logInfo): a log that grows faster than it can be read is followed at its end, and the
   * lines skipped are read only if someone scrolls to them
   */
  skipAfterFullReads: number;
}

export const DEFAULT_TAIL_POLICY: TailPolicy = {
  fastLinesPerSec: 1000,
  pollMs: 200,
  pollLimit: 1000,
  skipAfterFullReads: 3,
};

/** Counts line events per one-second window and says when they come too fast. */
export class RateMeter {
  private windowStart = 0;
  private count = 0;

  constructor(private readonly limitPerSec: number) {}

  /** true once `limitPerSec` lines arrived within one second */
  add(lines: number, now: number): boolean {
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.count = 0;
    }
    this.count += lines;
    return this.count >= this.limitPerSec;
  }
}

/**
 * After a read of the tail: keep polling while a read brings more than a quarter of the fast
 * rate's share of lines (or a full page), go back to events otherwise.
 */
export function keepPolling(linesRead: number, policy: TailPolicy = DEFAULT_TAIL_POLICY): boolean {
  if (linesRead >= policy.pollLimit) return true;
  return linesRead > (policy.fastLinesPerSec * policy.pollMs) / 1000 / 4;
}

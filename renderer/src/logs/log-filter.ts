// The log with one stream only (stdout, stderr or the engine's [ax] lines). The store numbers a
// log's lines in one sequence for all streams and reads by seq, so which lines are stderr is known
// only by reading them: the filter reads the log from the start in large pages, keeps the lines of
// its stream (each with its own seq, which the viewer shows as the line number) and reads on as
// the log grows, so a filter stays on while the viewer follows a running task. Up to MAX_KEPT
// lines are kept; past that it says so rather than fill the page's memory.
import type { LogLine, LogStream } from '../../../engine/api/types.ts';
import type { LogSource } from './log-pages.ts';

export type StreamFilter = 'all' | LogStream;
export const STREAM_FILTERS: StreamFilter[] = ['all', 'stdout', 'stderr', 'system'];

const READ_LINES = 5_000;
export const MAX_KEPT = 200_000;
const RETRY_MS = 500;

export class FilteredLog {
  readonly lines: LogLine[] = [];
  /** every line up to this seq has been looked at */
  readTo = 0;
  /** the last seq the log is known to have; reading goes on until readTo reaches it */
  private wantTo = 0;
  private reading = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** more lines matched than MAX_KEPT: the rest are not shown */
  full = false;
  error: unknown;
  version = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly source: LogSource,
    readonly instanceId: number,
    readonly stream: LogStream,
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Still reading towards the known end of the log. */
  get loading(): boolean {
    return this.readTo < this.wantTo && !this.full && this.error === undefined;
  }

  /** The log is known to reach lastSeq (logInfo, live lines): read up to there. */
  want(lastSeq: number): void {
    if (lastSeq <= this.wantTo) return;
    this.wantTo = lastSeq;
    void this.read();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.listeners.clear();
  }

  /** The row of the first kept line at or after seq (a search hit in another stream lands next to it). */
  rowOf(seq: number): number {
    let lo = 0;
    let hi = this.lines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.lines[mid] as LogLine).seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return Math.min(lo, Math.max(0, this.lines.length - 1));
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    clearTimeout(this.retry);
    this.reading = true;
    try {
      while (!this.stopped && !this.full && this.readTo < this.wantTo) {
        const page = await this.source.readLogs(this.instanceId, this.readTo, READ_LINES);
        if (this.stopped) return;
        this.error = undefined;
        for (const line of page) {
          if (line.stream !== this.stream) continue;
          if (this.lines.length >= MAX_KEPT) {
            this.full = true;
            break;
          }
          this.lines.push(line);
        }
        const last = page.at(-1)?.seq;
        if (last !== undefined) this.readTo = last;
        this.changed();
        // Fewer lines than asked: the store has no more yet (live lines reach the page first).
        if (page.length < READ_LINES) break;
      }
    } catch (err) {
      this.error = err;
      this.changed();
    } finally {
      this.reading = false;
    }
    // Lines the page heard of live are stored within a second: look again then.
    if (!this.stopped && !this.full && this.error === undefined && this.readTo < this.wantTo)
      this.retry = setTimeout(() => void this.read(), RETRY_MS);
  }

  private changed(): void {
    this.version += 1;
    for (const l of this.listeners) l();
  }
}

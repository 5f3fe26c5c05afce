// Execution logs written asynchronously in batches (SPEC §8): the seed saturated MySQL with
// 5,000 single-row inserts a second. A crash loses at most the unflushed batch of a running
// task; the worker flushes an instance's lines before it records the final state.
import type { LogLine, LogStream } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Store } from '../ports/store.ts';

interface InstanceOutput {
  seq: number;
  bytes: number;
  truncated: boolean;
}

export interface LogWriterOptions {
  batchLines: number;
  flushMs: number;
  maxOutputBytes: number;
  /** also flush when this many bytes are buffered, so long lines cannot pile up in memory */
  batchBytes?: number;
  onLines?: (lines: LogLine[]) => void;
}

export class LogWriter {
  private buffer: LogLine[] = [];
  private bufferedBytes = 0;
  private readonly outputs = new Map<number, InstanceOutput>();
  private flushing: Promise<void> = Promise.resolve();
  private cancelTimer: (() => void) | undefined;
  private failure: unknown;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: LogWriterOptions,
  ) {}

  /** Starts numbering an instance's lines (after any lines it already has). */
  open(instanceId: number, lastSeq = 0): void {
    this.outputs.set(instanceId, { seq: lastSeq, bytes: 0, truncated: false });
  }

  append(instanceId: number, stream: LogStream, line: string, bytes: number): void {
    const out = this.outputs.get(instanceId);
    if (!out || out.truncated) return;
    out.bytes += bytes;
    if (out.bytes > this.options.maxOutputBytes) {
      out.truncated = true;
      const cap = Math.round(this.options.maxOutputBytes / 1024 / 1024);
      line = `[output truncated: more than ${cap} MB; the process keeps running, further output is not stored]`;
      stream = 'system';
    }
    this.push({ instanceId, seq: ++out.seq, stream, ts: this.clock.now(), line });
  }

  /** A line from the engine itself (retries, kills, refusals), shown with the task's output. */
  system(instanceId: number, line: string): void {
    const out = this.outputs.get(instanceId) ?? { seq: 0, bytes: 0, truncated: false };
    this.outputs.set(instanceId, out);
    this.push({ instanceId, seq: ++out.seq, stream: 'system', ts: this.clock.now(), line });
  }

  private push(line: LogLine): void {
    this.buffer.push(line);
    this.bufferedBytes += line.line.length;
    if (this.buffer.length >= this.options.batchLines || this.bufferedBytes >= (this.options.batchBytes ?? 4 * 1024 * 1024)) {
      void this.flush();
    } else if (!this.cancelTimer) {
      this.cancelTimer = this.clock.setTimer(this.options.flushMs, () => {
        this.cancelTimer = undefined;
        void this.flush();
      });
    }
  }

  /** Writes everything buffered so far; resolves when it is in the store. */
  flush(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.bufferedBytes = 0;
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.store.appendLogs(batch);
        this.options.onLines?.(batch);
      } catch (err) {
        // Keep the lines for the next flush rather than lose them; report once.
        this.buffer.unshift(...batch);
        this.failure = err;
      }
    });
    return this.flushing;
  }

  /**
   * Flushes until the store has every line, then forgets the instance. The worker records a
   * task's outcome only after this, so a finished task's log is never lost (SPEC §8): a store
   * that is away is retried with backoff (up to ten minutes, then the error is thrown).
   */
  async close(instanceId: number): Promise<void> {
    const giveUpAt = this.clock.now() + 600_000;
    for (let delay = 200; ; delay = Math.min(delay * 2, 5_000)) {
      await this.flush();
      const failure = this.takeFailure();
      if (failure === undefined) break;
      if (this.clock.now() > giveUpAt) throw failure;
      await new Promise<void>((resolve) => this.clock.setTimer(delay, resolve));
    }
    this.outputs.delete(instanceId);
  }

  takeFailure(): unknown {
    const f = this.failure;
    this.failure = undefined;
    return f;
  }
}

// Execution logs written asynchronously in batches (design.md §8): the seed saturated MySQL with
// 5,000 single-row inserts a second. A crash loses at most the unflushed batch of a running
// task; the worker records a task's outcome only once every line of it is in the store.
//
// While the store is away, lines wait in a buffer bounded in bytes: past the bound an instance's
// further lines are dropped, and once there is room again one marker line says how many. One
// write is in flight at a time, and a failed one is retried after a backoff, not on every line.
//
// Group commit: a finishing task does not force a write of its own. close() waits for the next
// group write (due within flushMs of the oldest buffered line, at once when a batch is full), so
// tasks that finish within one flush interval share one transaction.
import type { LogLine, LogStream } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { LogStore } from '../../ports/store.ts';
import { notRetryable, STORE_BACKOFF } from '../support/store-retry.ts';
import { backoffDelay } from '../model/backoff.ts';
import { replaceControls } from './line-splitter.ts';
import { formatSize, MAX_LOG_LIMIT, readableSize } from '../../api/size.ts';

interface InstanceOutput {
  seq: number;
  /** the highest seq in the store: every line up to it is stored (lines go in in order) */
  stored: number;
  bytes: number;
  truncated: boolean;
  /** this attempt's cap: the task's log_limit, else the node's maxOutputBytes */
  limit: number;
  /** the cap is the task's own */
  taskLimit: boolean;
  /** output past the cap, not stored: counted in a line when the instance closes */
  overBytes: number;
  overLines: number;
  /** lines dropped for want of buffer space and not yet reported by a marker */
  dropped: number;
}

export interface LogWriterOptions {
  batchLines: number;
  flushMs: number;
  maxOutputBytes: number;
  /** also flush when this many bytes are buffered, so long lines cannot pile up in memory */
  batchBytes?: number;
  /** the buffer's bound while the store is away; default 32 MiB */
  maxBufferBytes?: number;
  /** how long close() waits for the store before giving up on an instance's lines; default 10 min */
  giveUpMs?: number;
  /** told of each batch once stored */
  onLines?: (lines: LogLine[]) => void;
  /** told of each line dropped for want of buffer space (see append) */
  onDropped?: () => void;
  /** the node's secret mask, for the engine's own lines (a task's are masked before their cut) */
  mask?: (text: string) => string;
}

/**
 * The line written the moment an attempt's output reaches its cap (so an engine killed later still
 * leaves it in the store): nothing more is stored, the task runs on, and how to raise the cap.
 */
export function overLimitNotice(limit: number, taskLimit: boolean): string {
  const more = formatSize(Math.min(limit * 4, MAX_LOG_LIMIT));
  // The task's own log_limit wins over the node's: then only the task's raises it.
  const raise = taskLimit
    ? `raise the task's log_limit in its workflow file, e.g. log_limit: ${more}`
    : `raise it with log_limit: ${more} on the task in its workflow file, or for the node running it with "ax settings set log-limit ${more}" and a restart`;
  return `[output over the ${readableSize(limit)} log limit is not stored: the task runs on; ${raise}]`;
}

/** The line an attempt's log ends with when its output went past the cap: how much was not stored. */
export function overLimitCount(limit: number, bytes: number, lines: number): string {
  return `[output past the ${readableSize(limit)} limit: ${readableSize(bytes)} (${lines} line${lines === 1 ? '' : 's'}) not stored]`;
}

/** What a line costs in memory: its text and the object around it. */
const cost = (line: LogLine) => line.line.length + 128;
/**
 * Lines per store write: one transaction each. One write is in flight at a time, so this over a
 * write's latency is the most the writer stores a second: 10,000 lines (compressed chunks,
 * log-chunks.ts) is 50,000 lines/s with writes of up to 200 ms. Not more: with 20,000, the
 * write that empties a full buffer after the database comes back held a worker's heartbeats
 * past the fail-over limit (test/team-services/log-durability.test.ts, under load).
 */
const WRITE_LINES = 10_000;

export class LogWriter {
  /** lines not yet in the store, oldest first; a failed write puts its lines back at the front */
  private buffer: LogLine[] = [];
  private bufferedBytes = 0;
  /** bytes of the lines the write under way holds: still in memory, and back in the buffer if it fails */
  private writingBytes = 0;
  private readonly outputs = new Map<number, InstanceOutput>();
  /** the write under way, and the one queued behind it (which takes whatever came meanwhile) */
  private writing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private cancelTimer: (() => void) | undefined;
  /** after a failed write, none before this */
  private retryAt = 0;
  private failures = 0;
  private failure: unknown;
  /** close() calls waiting for the next write to end */
  private roundWaiters: (() => void)[] = [];
  /** flush() asked for everything buffered, not only full batches */
  private everything = false;

  constructor(
    private readonly store: LogStore,
    private readonly clock: Clock,
    private readonly options: LogWriterOptions,
  ) {}

  /** bytes of lines waiting for a write (not those a write under way holds): how far the store is behind */
  get backlogBytes(): number {
    return this.bufferedBytes;
  }

  private get maxBufferBytes(): number {
    return this.options.maxBufferBytes ?? 32 * 1024 * 1024;
  }

  /**
   * What the bound is checked against: the buffer and the write under way. Not the buffer alone:
   * while a write to an unreachable store is pending the buffer looks empty, and lines let in then
   * (with a marker) overflow it once the failed batch comes back, so one gap got two markers.
   */
  private get heldBytes(): number {
    return this.bufferedBytes + this.writingBytes;
  }

  /** Starts numbering an instance's lines (after any lines it already has); `limit`: the task's own cap on them. */
  open(instanceId: number, lastSeq = 0, limit?: number): void {
    this.outputs.set(instanceId, {
      seq: lastSeq,
      stored: lastSeq,
      bytes: 0,
      truncated: false,
      limit: limit ?? this.options.maxOutputBytes,
      taskLimit: limit !== undefined,
      overBytes: 0,
      overLines: 0,
      dropped: 0,
    });
  }

  private output(instanceId: number): InstanceOutput {
    let out = this.outputs.get(instanceId);
    if (!out)
      this.outputs.set(
        instanceId,
        (out = {
          seq: 0,
          stored: 0,
          bytes: 0,
          truncated: false,
          limit: this.options.maxOutputBytes,
          taskLimit: false,
          overBytes: 0,
          overLines: 0,
          dropped: 0,
        }),
      );
    return out;
  }

  append(instanceId: number, stream: LogStream, line: string, bytes: number): void {
    const out = this.outputs.get(instanceId);
    if (!out) return;
    // Past the cap, output is counted, not kept: one notice at once, the count at close.
    if (out.truncated || out.bytes + bytes > out.limit) {
      if (!out.truncated) {
        out.truncated = true;
        this.push(out, instanceId, 'system', overLimitNotice(out.limit, out.taskLimit));
      }
      out.overBytes += bytes;
      out.overLines += 1;
      return;
    }
    out.bytes += bytes;
    // Once an instance drops lines it goes on dropping until there is room for a while (half the
    // bound): then one marker says how many, exactly where they are missing.
    const room = out.dropped > 0 ? this.maxBufferBytes / 2 : this.maxBufferBytes;
    if (this.heldBytes + line.length + 128 > room) {
      out.dropped += 1;
      this.options.onDropped?.();
      this.schedule();
      return;
    }
    this.reportDropped(instanceId, out);
    this.push(out, instanceId, stream, line);
  }

  /**
   * A line from the engine itself (retries, kills, refusals), shown with the task's output. It may
   * quote user text (a cwd, a spawn error), so it is cleaned as the task's own lines are.
   */
  system(instanceId: number, line: string): void {
    const out = this.output(instanceId);
    this.reportDropped(instanceId, out);
    this.push(out, instanceId, 'system', replaceControls(this.options.mask ? this.options.mask(line) : line));
  }

  /** The marker for lines dropped since the last one, once there is room; small, so never dropped itself. */
  private reportDropped(instanceId: number, out: InstanceOutput): void {
    if (out.dropped === 0 || this.heldBytes > this.maxBufferBytes / 2) return;
    const mb = Math.round(this.maxBufferBytes / 1024 / 1024);
    const text = `[${out.dropped} line(s) of output dropped: the log store did not keep up (or was unreachable) and ${mb} MB of output was already waiting]`;
    out.dropped = 0;
    this.push(out, instanceId, 'system', text);
  }

  private push(out: InstanceOutput, instanceId: number, stream: LogStream, text: string): void {
    const line: LogLine = { instanceId, seq: ++out.seq, stream, ts: this.clock.now(), line: text };
    this.buffer.push(line);
    this.bufferedBytes += cost(line);
    this.schedule();
  }

  private full(): boolean {
    return (
      this.buffer.length >= this.options.batchLines ||
      this.bufferedBytes >= (this.options.batchBytes ?? 4 * 1024 * 1024)
    );
  }

  /** A write now when a batch is full, else within flushMs. */
  private schedule(): void {
    if (this.full() && this.clock.now() >= this.retryAt) {
      void this.write();
    } else if (!this.cancelTimer) {
      this.cancelTimer = this.clock.setTimer(Math.max(this.options.flushMs, this.retryAt - this.clock.now()), () => {
        this.cancelTimer = undefined;
        void this.write();
      });
    }
  }

  /**
   * Writes everything buffered (one write at a time: a call during a write waits for it and then
   * writes what came meanwhile). Resolves when that is done or a write failed; never rejects.
   */
  flush(): Promise<void> {
    this.everything = true;
    return this.write();
  }

  /** Starts a write round, or queues one behind the write under way. */
  private write(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.queued) return this.queued;
    const start = () => {
      const w = this.writeRound().finally(() => {
        if (this.writing === w) this.writing = undefined;
      });
      this.writing = w;
      return w;
    };
    if (!this.writing) return start();
    const q = this.writing.then(() => {
      this.queued = undefined;
      return start();
    });
    this.queued = q;
    return q;
  }

  /**
   * Writes a batch, then more only while a full batch waits (or flush() asked for everything):
   * a remainder waits for the next interval and for the lines that join it, so a steady trickle
   * costs a transaction per interval, not one per write's duration.
   */
  private async writeRound(): Promise<void> {
    for (let first = true; ; first = false) {
      for (const [id, out] of this.outputs) this.reportDropped(id, out);
      if (this.buffer.length === 0) {
        this.everything = false;
        this.wakeClosers();
        return;
      }
      if (!first && !this.everything && !this.full()) {
        this.schedule();
        return;
      }
      const batch = this.buffer.length <= WRITE_LINES ? this.buffer : this.buffer.slice(0, WRITE_LINES);
      this.buffer = batch === this.buffer ? [] : this.buffer.slice(WRITE_LINES);
      let bytes = 0;
      for (const l of batch) bytes += cost(l);
      this.bufferedBytes -= bytes;
      this.writingBytes = bytes;
      try {
        await this.store.appendLogs(batch);
      } catch (err) {
        // Back at the front, in order (concat, not a spread: a batch may hold many thousand lines).
        this.buffer = batch.concat(this.buffer);
        this.bufferedBytes += bytes;
        this.writingBytes = 0;
        this.failure = err;
        this.failures += 1;
        this.retryAt = this.clock.now() + backoffDelay(STORE_BACKOFF, this.failures);
        this.schedule();
        this.wakeClosers();
        return;
      }
      this.writingBytes = 0;
      this.failures = 0;
      this.retryAt = 0;
      for (const l of batch) {
        const out = this.outputs.get(l.instanceId);
        if (out && l.seq > out.stored) out.stored = l.seq;
      }
      this.options.onLines?.(batch);
      this.wakeClosers();
    }
  }

  /** After every write, stored or failed: each waiting close() looks at its instance again. */
  private wakeClosers(): void {
    const waiters = this.roundWaiters;
    this.roundWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Waits until the store has every line of the instance, then forgets it. The worker records a
   * task's outcome only after this (design.md §8). It forces no write of its own: it joins the next
   * group write, at most flushMs away (group commit). A failed write is retried on the writer's
   * backoff up to giveUpMs; returns how many of the instance's lines could not be stored (0: all).
   */
  async close(instanceId: number): Promise<number> {
    const out = this.output(instanceId);
    if (out.truncated) {
      this.push(out, instanceId, 'system', overLimitCount(out.limit, out.overBytes, out.overLines));
      out.truncated = false;
    }
    const giveUpAt = this.clock.now() + (this.options.giveUpMs ?? 600_000);
    while (out.stored < out.seq || out.dropped > 0) {
      // A store that needs a person (its file deleted under the engine) will not take them later.
      if (notRetryable(this.failure) || this.clock.now() > giveUpAt) {
        this.outputs.delete(instanceId);
        return out.seq - out.stored + out.dropped;
      }
      await this.nextWrite();
    }
    this.outputs.delete(instanceId);
    return 0;
  }

  /** Resolves when the write under way, or else the next one, has ended (stored or failed). */
  private nextWrite(): Promise<void> {
    const round = new Promise<void>((resolve) => this.roundWaiters.push(resolve));
    // A dropped-lines marker waits in no buffer: make sure a write is due to report it.
    if (!this.writing && !this.cancelTimer) this.schedule();
    return round;
  }

  /** The last write error since the previous call (for benchmarks and diagnostics). */
  takeFailure(): unknown {
    const f = this.failure;
    this.failure = undefined;
    return f;
  }
}

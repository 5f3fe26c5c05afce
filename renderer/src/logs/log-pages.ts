// The lines of one instance's log as the viewer sees them: a seq range (from logInfo, grown by
// live lines) over which only the pages the user looks at are fetched, kept in a bounded cache.
// A 1,000,000-line log is never loaded whole; scrolling anywhere costs one or two page reads.
import type { LogLine } from '../../../engine/api/types.ts';

export interface LogSource {
  readLogs(instanceId: number, afterSeq: number, limit: number): Promise<LogLine[]>;
}

export interface LogPagesOptions {
  /** lines per readLogs call */
  pageSize?: number;
  /** pages kept in memory; the least recently wanted beyond this are dropped */
  maxPages?: number;
  /** how long to wait before asking again for lines a page should have had but did not get */
  retryMs?: number;
  now?: () => number;
}

interface Page {
  lines: (LogLine | undefined)[];
  /** lines present (live ones included) */
  filled: number;
  loading: boolean;
  loaded: boolean;
  /** a page that came back with holes below the known end may be read again after this time */
  retryAt?: number;
  retries: number;
  touched: number;
}

export class LogPages {
  readonly pageSize: number;
  private readonly maxPages: number;
  private readonly retryMs: number;
  private readonly now: () => number;
  private readonly pages = new Map<number, Page>();
  private readonly listeners = new Set<() => void>();
  private touchClock = 0;
  private wanted = new Set<number>();
  private disposed = false;
  /** first and last seq of the log as far as this viewer knows; 0/0 when it is empty */
  firstSeq = 0;
  lastSeq = 0;
  /** bumped on every change, so React can re-render from a snapshot (useSyncExternalStore) */
  version = 0;
  /** the last read error, shown by the viewer; cleared by the next successful read */
  error: unknown;

  constructor(
    private readonly source: LogSource,
    readonly instanceId: number,
    options: LogPagesOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 500;
    this.maxPages = Math.max(4, options.maxPages ?? 200);
    this.retryMs = options.retryMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** Lines the viewer shows (the rows of the virtual list). */
  get count(): number {
    return this.lastSeq === 0 ? 0 : this.lastSeq - this.firstSeq + 1;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
    this.pages.clear();
  }

  /** The range from logInfo; it only ever grows, since live lines may already lie beyond it. */
  setRange(firstSeq: number, lastSeq: number): void {
    if (lastSeq === 0) return;
    const first = this.lastSeq === 0 ? firstSeq : Math.min(this.firstSeq, firstSeq);
    const last = Math.max(this.lastSeq, lastSeq);
    if (first === this.firstSeq && last === this.lastSeq) return;
    this.firstSeq = first;
    this.lastSeq = last;
    this.changed();
  }

  seqAt(index: number): number {
    return this.firstSeq + index;
  }

  indexOf(seq: number): number {
    return seq - this.firstSeq;
  }

  /** The line at a seq if its page is in memory. */
  get(seq: number): LogLine | undefined {
    const page = this.pages.get(this.pageOf(seq));
    return page?.lines[this.slotOf(seq)];
  }

  /** Whether a row without a line is still on its way (placeholder) or simply absent (a gap). */
  isPending(seq: number): boolean {
    const page = this.pages.get(this.pageOf(seq));
    return !page || page.loading || !page.loaded;
  }

  /** Pages held now (for tests and the benchmark). */
  get cachedPages(): number {
    return this.pages.size;
  }

  /**
   * Makes sure the lines fromSeq..toSeq are (being) fetched; listeners hear when they arrive.
   * Pages outside this window may be evicted once the cache is full.
   */
  ensure(fromSeq: number, toSeq: number): void {
    if (this.disposed || this.lastSeq === 0) return;
    const from = Math.max(fromSeq, this.firstSeq);
    const to = Math.min(toSeq, this.lastSeq);
    if (to < from) return;
    const wanted = new Set<number>();
    const now = this.now();
    for (let p = this.pageOf(from); p <= this.pageOf(to); p++) {
      wanted.add(p);
      let page = this.pages.get(p);
      if (!page) {
        page = { lines: [], filled: 0, loading: false, loaded: false, retries: 0, touched: 0 };
        this.pages.set(p, page);
      }
      page.touched = ++this.touchClock;
      const stale = page.loaded && page.retryAt !== undefined && page.retryAt <= now;
      // live lines may have filled a page already: nothing to read for it then
      if (!page.loading && (!page.loaded || stale) && !this.complete(p, page)) void this.load(p, page);
    }
    this.wanted = wanted;
    this.evict();
  }

  /** Live lines (already stored by the engine) join the cache and extend the range. */
  appendLive(lines: readonly LogLine[]): void {
    if (this.disposed || lines.length === 0) return;
    let changed = false;
    for (const line of lines) {
      if (line.instanceId !== this.instanceId) continue;
      if (this.lastSeq === 0) this.firstSeq = line.seq;
      if (line.seq < this.firstSeq) continue;
      if (line.seq > this.lastSeq) this.lastSeq = line.seq;
      const p = this.pageOf(line.seq);
      let page = this.pages.get(p);
      if (!page) {
        // A page made by live lines alone is not "loaded": its earlier part may still be in the
        // store only, and is read when it scrolls into view.
        page = { lines: [], filled: 0, loading: false, loaded: false, retries: 0, touched: ++this.touchClock };
        this.pages.set(p, page);
      }
      this.put(page, this.slotOf(line.seq), line);
      changed = true;
    }
    if (!changed) return;
    this.evict();
    this.changed();
  }

  private async load(p: number, page: Page): Promise<void> {
    page.loading = true;
    const start = p * this.pageSize + 1;
    const end = start + this.pageSize - 1;
    const knownEnd = Math.min(end, this.lastSeq);
    try {
      const lines = await this.source.readLogs(this.instanceId, start - 1, this.pageSize);
      if (this.disposed || this.pages.get(p) !== page) return;
      for (const line of lines) {
        if (line.seq >= start && line.seq <= end) this.put(page, line.seq - start, line);
      }
      page.loaded = true;
      this.error = undefined;
      // Lines are stored before they are announced, so a hole below the known end is a read that
      // raced a write (or a purge): ask again later, a few times, rather than show a gap forever.
      let holes = false;
      for (let s = Math.max(start, this.firstSeq); s <= knownEnd; s++) {
        if (!page.lines[s - start]) {
          holes = true;
          break;
        }
      }
      if (holes && page.retries < 3) {
        page.retries++;
        page.retryAt = this.now() + this.retryMs;
      } else page.retryAt = undefined;
    } catch (err) {
      if (this.disposed) return;
      this.error = err;
      page.retryAt = this.now() + this.retryMs;
      page.loaded = true;
    } finally {
      page.loading = false;
    }
    this.changed();
  }

  private put(page: Page, slot: number, line: LogLine): void {
    if (!page.lines[slot]) page.filled++;
    page.lines[slot] = line;
  }

  /** every line the page should hold (from the range's start to its known end) is there */
  private complete(p: number, page: Page): boolean {
    const start = Math.max(p * this.pageSize + 1, this.firstSeq);
    const end = Math.min((p + 1) * this.pageSize, this.lastSeq);
    if (page.filled < end - start + 1) return false;
    page.loaded = true;
    page.retryAt = undefined;
    return true;
  }

  private evict(): void {
    if (this.pages.size <= this.maxPages) return;
    const candidates = [...this.pages.entries()]
      .filter(([p, page]) => !this.wanted.has(p) && !page.loading)
      .sort((a, b) => a[1].touched - b[1].touched);
    for (const [p] of candidates) {
      if (this.pages.size <= this.maxPages) break;
      this.pages.delete(p);
    }
  }

  private pageOf(seq: number): number {
    return Math.floor((seq - 1) / this.pageSize);
  }

  private slotOf(seq: number): number {
    return (seq - 1) % this.pageSize;
  }

  private changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }
}

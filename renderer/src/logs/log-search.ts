// Find in one instance's log, server side (api.searchLog): hits are fetched a page at a time as
// the user steps through them, so a query that matches half of a 1,000,000-line log costs one
// small read, not the whole log.
import type { LogSearchHit } from '../../../engine/api/engine-api.ts';

export interface SearchSource {
  searchLog(instanceId: number, query: string, options: { afterSeq?: number; limit?: number }): Promise<LogSearchHit[]>;
}

export interface SearchSnapshot {
  query: string;
  hits: readonly LogSearchHit[];
  /** index of the current hit in `hits`; -1 when there is none */
  index: number;
  /** every hit is loaded (no more after the last one) */
  complete: boolean;
  loading: boolean;
  error?: unknown;
}

export class LogSearch {
  private hits: LogSearchHit[] = [];
  private index = -1;
  private complete = false;
  /** where a search the engine cut short stopped: the next page goes on from there */
  private resumeAfter: number | undefined;
  private loading = false;
  private error: unknown;
  private snapshotCache?: SearchSnapshot;
  private readonly listeners = new Set<() => void>();
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly source: SearchSource,
    readonly instanceId: number,
    readonly query: string,
    private readonly pageSize = 500,
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): SearchSnapshot {
    this.snapshotCache ??= {
      query: this.query,
      hits: this.hits,
      index: this.index,
      complete: this.complete,
      loading: this.loading,
      error: this.error,
    };
    return this.snapshotCache;
  }

  current(): LogSearchHit | undefined {
    return this.hits[this.index];
  }

  /** Loads the first page and selects the first hit at or after `fromSeq` (or the first one). */
  start(fromSeq = 0): Promise<LogSearchHit | undefined> {
    return this.serial(async () => {
      await this.loadMore();
      let at = this.hits.findIndex((h) => h.seq >= fromSeq);
      // the first page may end before fromSeq: keep reading until a hit at or after it, or the end
      while (at < 0 && !this.complete && fromSeq > 0) {
        const before = this.hits.length;
        await this.loadMore();
        at = this.hits.findIndex((h, i) => i >= before && h.seq >= fromSeq);
      }
      this.index = at >= 0 ? at : this.hits.length ? 0 : -1;
      this.changed();
      return this.current();
    });
  }

  /** The next hit; after the last one it wraps to the first. */
  next(): Promise<LogSearchHit | undefined> {
    return this.serial(async () => {
      if (this.hits.length === 0) return undefined;
      if (this.index + 1 >= this.hits.length && !this.complete) await this.loadMore();
      this.index = this.index + 1 < this.hits.length ? this.index + 1 : 0;
      this.changed();
      return this.current();
    });
  }

  /** The previous hit; before the first it wraps to the last (reading the remaining hits first). */
  previous(): Promise<LogSearchHit | undefined> {
    return this.serial(async () => {
      if (this.hits.length === 0) return undefined;
      if (this.index > 0) this.index--;
      else {
        // Wrapping needs the real last hit; hits are small, and the engine caps each page.
        for (let pages = 0; !this.complete && pages < 200; pages++) await this.loadMore();
        this.index = this.hits.length - 1;
      }
      this.changed();
      return this.current();
    });
  }

  private async loadMore(): Promise<void> {
    if (this.complete) return;
    this.loading = true;
    this.changed();
    try {
      const afterSeq =
        this.resumeAfter ?? (this.hits.length ? (this.hits[this.hits.length - 1] as LogSearchHit).seq : 0);
      const page = await this.source.searchLog(this.instanceId, this.query, { afterSeq, limit: this.pageSize });
      // A search the engine cut short (its time budget) ends with a marker of where it stopped: not a hit.
      const cut = page.find((h) => h.cut);
      this.hits = this.hits.concat(page.filter((h) => !h.cut && h.seq > afterSeq));
      this.resumeAfter = cut?.seq;
      if (!cut && page.length < this.pageSize) this.complete = true;
      this.error = undefined;
    } catch (err) {
      this.error = err;
      this.complete = true;
    } finally {
      this.loading = false;
      this.changed();
    }
  }

  // Steps run one after another, so that fast key presses cannot interleave two page reads.
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const result = this.busy.then(step);
    this.busy = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private changed(): void {
    this.snapshotCache = undefined;
    for (const l of this.listeners) l();
  }
}

// Search in one instance's log, bounded so the engine stays responsive: a
// LIKE over a 100 MB log holds SQLite (synchronous, on the engine's thread) for seconds, and five
// at once stalled every other request for over a second. So a search reads the log in windows of
// seqs, with a turn of the event loop between them; at most MAX_SEARCHES run per engine (the rest
// wait their turn); and one that runs past its time budget answers what it found so far plus a
// `cut` marker saying where it stopped, so the caller can go on from there or narrow its search.
import type { LogSearchHit } from '../../api/engine-api.ts';
import type { Clock } from '../../ports/clock.ts';
import type { LogStore } from '../../ports/store.ts';
import type { NextTurn } from '../workflow/workflow-cache.ts';

/** lines per window: a few ms of LIKE each */
const WINDOW = 20_000;
export const SEARCH_BUDGET_MS = 2_000;
const MAX_SEARCHES = 2;

/** The engine's time and its host's event loop, as the engine is given them (engine-deps.ts). */
export interface LogSearchTime {
  clock: Pick<Clock, 'now'>;
  nextTurn: NextTurn;
}

export class LogSearch {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly store: LogStore,
    private readonly time: LogSearchTime,
    private readonly budgetMs = SEARCH_BUDGET_MS,
  ) {}

  async search(instanceId: number, query: string, afterSeq: number, limit: number): Promise<LogSearchHit[]> {
    // The budget counts from the call, waiting included: it is the time the asker waits.
    // On the engine's clock, as all its time: under a fake clock a search is cut only when the clock moves.
    const started = this.time.clock.now();
    if (this.running >= MAX_SEARCHES) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await this.windows(instanceId, query, afterSeq, limit, started);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private async windows(
    instanceId: number,
    query: string,
    afterSeq: number,
    limit: number,
    started: number,
  ): Promise<LogSearchHit[]> {
    const { lastSeq } = await this.store.logExtent(instanceId);
    const hits: LogSearchHit[] = [];
    for (let from = afterSeq; hits.length < limit && from < lastSeq;) {
      const until = Math.min(from + WINDOW, lastSeq);
      for (const l of await this.store.searchLog(instanceId, query, from, limit - hits.length, until))
        hits.push({ seq: l.seq, stream: l.stream, line: l.line });
      from = until;
      if (hits.length >= limit || from >= lastSeq) break;
      const spent = this.time.clock.now() - started;
      if (spent > this.budgetMs) {
        hits.push({
          seq: from,
          stream: 'system',
          line: `partial results: searched lines ${afterSeq + 1}–${from} of ${lastSeq} in ${(spent / 1000).toFixed(1)} s; narrow your search, or search on from line ${from}`,
          cut: true,
        });
        break;
      }
      await this.time.nextTurn();
    }
    return hits;
  }
}

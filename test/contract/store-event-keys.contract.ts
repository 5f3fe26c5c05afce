// Event triggers' Idempotency-Keys as the store keeps them (design.md §12): the first claim of an
// (event, key) wins, even between nodes at once; a repeat learns the first one's runs, or that it
// is still under way; a failed first frees the key; a stale claim is taken over; a key past its
// retention is new; old keys are purged.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../engine/ports/store.ts';

const T0 = Date.parse('2026-12-01T03:00:00Z');
const DAY = 24 * 3_600_000;
const STALE = 60_000;

/** `racer`: the store that races `store` (SQLite's is the same store). */
export function eventKeysContract(store: () => Store, racer: () => Store): void {
  describe('event idempotency keys', () => {
    const claim = (s: Store, key: string, at: number, event = 'orders-ready') =>
      s.claimEventKey(event, key, at, DAY, STALE);

    it('the first claim wins; a repeat sees it under way, then the runs it started', async () => {
      expect(await claim(store(), 'k-1', T0)).toEqual({ claimed: true });
      expect(await claim(racer(), 'k-1', T0 + 10)).toEqual({ claimed: false, since: T0 });
      await store().settleEventKey('orders-ready', 'k-1', [7, 9]);
      expect(await claim(racer(), 'k-1', T0 + 20)).toEqual({ claimed: false, runIds: [7, 9] });
      // The same key for another event is another key.
      expect(await claim(store(), 'k-1', T0 + 30, 'invoices-ready')).toEqual({ claimed: true });
    });

    it('eight claims of one key at once through two connections: exactly one wins', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => claim(i % 2 ? racer() : store(), 'burst', T0)),
      );
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
    });

    it('a first request that failed frees its key; one that never finished is taken over once stale', async () => {
      await claim(store(), 'failed', T0);
      await store().settleEventKey('orders-ready', 'failed', undefined);
      expect(await claim(racer(), 'failed', T0 + 1)).toEqual({ claimed: true });

      await claim(store(), 'died', T0);
      expect(await claim(racer(), 'died', T0 + STALE - 1)).toEqual({ claimed: false, since: T0 });
      expect(await claim(racer(), 'died', T0 + STALE + 1)).toEqual({ claimed: true });
      expect(await claim(store(), 'died', T0 + STALE + 2)).toEqual({ claimed: false, since: T0 + STALE + 1 });
    });

    it('a key past its retention is new; purging forgets keys claimed before the cut', async () => {
      await claim(store(), 'old', T0);
      await store().settleEventKey('orders-ready', 'old', [1]);
      await claim(store(), 'recent', T0 + DAY);
      await store().settleEventKey('orders-ready', 'recent', [2]);
      expect(await claim(store(), 'old', T0 + DAY + 1)).toEqual({ claimed: true });
      await store().settleEventKey('orders-ready', 'old', [3]);
      expect(await store().purgeEventKeys(T0 + DAY + 1)).toBe(1);
      expect(await claim(store(), 'recent', T0 + DAY + 2)).toEqual({ claimed: true });
      expect(await claim(store(), 'old', T0 + DAY + 2)).toEqual({ claimed: false, runIds: [3] });
    });
  });
}

// The pause of all scheduling as the store keeps it: one row shared by every node of a team,
// set and cleared with its audit entry in the same step, and a second pause that keeps the first.
import { describe, expect, it } from 'vitest';
import type { Store } from '../../engine/ports/store.ts';

const T0 = Date.parse('2026-12-01T03:00:00Z');

/** `racer`: the store that races `store` (see transitionsContract: SQLite's is the same store). */
export function flagsContract(store: () => Store, peer: () => Store, racer: () => Store): void {
  describe('scheduling pause', () => {
    it('is off on a fresh store', async () => {
      expect(await store().getSchedulingPause()).toBeUndefined();
    });

    it('pause and resume: the state, seen through another connection too, and one audit entry each', async () => {
      expect(await store().setSchedulingPause(true, T0, 'alice@laptop')).toBe(true);
      expect(await store().getSchedulingPause()).toEqual({ since: T0, by: 'alice@laptop' });
      expect(await peer().getSchedulingPause()).toEqual({ since: T0, by: 'alice@laptop' });
      expect(await peer().setSchedulingPause(false, T0 + 60_000, 'bob@desk')).toBe(true);
      expect(await store().getSchedulingPause()).toBeUndefined();
      const audit = (await store().listAudit(10)).map((e) => [e.at, e.actor, e.action, e.object]);
      expect(audit).toEqual([
        [T0 + 60_000, 'bob@desk', 'scheduling.resume', 'scheduling'],
        [T0, 'alice@laptop', 'scheduling.pause', 'scheduling'],
      ]);
    });

    it('a pause by an actor with a note: the pause is by the name, the note is in the audit entry only', async () => {
      expect(
        await store().setSchedulingPause(true, T0, { name: 'alice@box (API token)', note: 'maintenance bot' }),
      ).toBe(true);
      expect(await store().getSchedulingPause()).toEqual({ since: T0, by: 'alice@box (API token)' });
      const [entry] = await store().listAudit(1);
      expect([entry?.actor, entry?.note]).toEqual(['alice@box (API token)', 'maintenance bot']);
    });

    it('pausing what is paused keeps the first pause and writes nothing; so does resuming what runs', async () => {
      expect(await store().setSchedulingPause(false, T0, 'alice@laptop')).toBe(false);
      await store().setSchedulingPause(true, T0, 'alice@laptop');
      expect(await peer().setSchedulingPause(true, T0 + 5_000, 'bob@desk')).toBe(false);
      expect(await store().getSchedulingPause()).toEqual({ since: T0, by: 'alice@laptop' });
      expect((await store().listAudit(10)).map((e) => e.action)).toEqual(['scheduling.pause']);
    });

    it('two nodes pausing at once: one pause, one audit entry', async () => {
      const results = await Promise.all([
        store().setSchedulingPause(true, T0, 'node-a'),
        racer().setSchedulingPause(true, T0 + 1, 'node-b'),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const pause = await store().getSchedulingPause();
      expect(pause?.by).toBe(results[0] ? 'node-a' : 'node-b');
      expect((await store().listAudit(10)).map((e) => e.action)).toEqual(['scheduling.pause']);
    });
  });
}

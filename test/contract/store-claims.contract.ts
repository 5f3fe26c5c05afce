// Store contract, part 5: claim-due-instances, the dispatcher's one write per worker and pass
// (WAITING → DISPATCHED, fenced on state and attempt, bounded by the worker's free slots), and
// what it guarantees to two dispatchers racing on it through two connections.
import { describe, expect, it } from 'vitest';
import type { InstanceRecord, WorkerRecord } from '../../engine/api/types.ts';
import type { ClaimCandidate } from '../../engine/ports/store.ts';
import { addInstance, move, mustGet, runOn, seedRun, T0 } from './store-fixtures.ts';
import type { Seeded, StoreGetter } from './store-fixtures.ts';

const worker = (id: string, maxConcurrency: number): WorkerRecord => ({
  id,
  host: 'node-1',
  pid: 4242,
  version: '0.1.0',
  labels: [],
  maxConcurrency,
  running: 0,
  startedAt: T0,
  lastHeartbeat: T0,
  status: 'online',
  acceptUnlabelled: true,
});

const asked = (records: InstanceRecord[]): ClaimCandidate[] => records.map((r) => ({ id: r.id, attempt: r.attempt }));
const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);

/** `n` WAITING instances of task a (attempts 1..n), all due at T0 unless told. */
async function waiting(
  store: StoreGetter,
  seed: Seeded,
  n: number,
  notBefore = (_i: number) => T0,
): Promise<InstanceRecord[]> {
  const out: InstanceRecord[] = [];
  for (let i = 0; i < n; i++)
    out.push(await addInstance(store(), seed, 'a', { attempt: i + 1, notBefore: notBefore(i) }));
  return out;
}

export function claimsContract(store: StoreGetter, peer: StoreGetter): void {
  describe('claimDueInstances', () => {
    it('moves due WAITING candidates to DISPATCHED for the worker, clearing the wait reason', async () => {
      await store().upsertWorker(worker('w1', 4));
      const seed = await seedRun(store());
      const [a, b] = await waiting(store, seed, 2);
      if (!a || !b) throw new Error('seed');
      expect(await store().setWaitingReason(a.id, 1, 'waiting: no worker is registered')).toBe(true);

      expect(await store().claimDueInstances('w1', asked([a, b]), T0 + 5)).toEqual(sorted([a.id, b.id]));
      for (const inst of [a, b]) {
        const now = await mustGet(store(), inst.id);
        expect({
          state: now.state,
          workerId: now.workerId,
          dispatchedAt: now.dispatchedAt,
          reason: now.reason,
        }).toEqual({
          state: 'DISPATCHED',
          workerId: 'w1',
          dispatchedAt: T0 + 5,
          reason: undefined,
        });
      }
      // Claimed once: asking again finds them no longer WAITING.
      expect(await store().claimDueInstances('w1', asked([a, b]), T0 + 6)).toEqual([]);
    });

    it('takes only as many as the worker has free slots, oldest due first, counting only its own load', async () => {
      await store().upsertWorker(worker('w1', 3));
      await store().upsertWorker(worker('w2', 8));
      const seed = await seedRun(store());
      // One slot of w1 is taken by a RUNNING instance; w2's load is not w1's.
      await runOn(store(), await addInstance(store(), seed, 'b'), 'w1');
      await runOn(store(), await addInstance(store(), seed, 'c'), 'w2');
      const due = await waiting(store, seed, 4, (i) => T0 - i);

      const claimed = await store().claimDueInstances('w1', asked(due), T0);
      // notBefore falls with i: the last two created are the oldest due.
      expect(claimed).toEqual(sorted([due[3]?.id ?? 0, due[2]?.id ?? 0]));
      expect(await store().claimDueInstances('w1', asked(due), T0)).toEqual([]);
      expect((await store().activeCountByWorker()).get('w1')).toBe(3);
      // A finished instance frees its slot.
      await move(store(), await mustGet(store(), due[3]?.id ?? 0), 'CANCELLED', { finishedAt: T0 });
      expect(await store().claimDueInstances('w1', asked(due), T0)).toEqual([due[1]?.id]);
    });

    it('claims nothing not due, not WAITING, of another attempt, or for a worker the store does not know', async () => {
      await store().upsertWorker(worker('w1', 8));
      const seed = await seedRun(store());
      const later = await addInstance(store(), seed, 'a', { notBefore: T0 + 1_000 });
      const taken = await move(store(), await addInstance(store(), seed, 'b'), 'DISPATCHED', {
        workerId: 'w2',
        dispatchedAt: T0,
      });
      const retried = await addInstance(store(), seed, 'c', { attempt: 2 });

      expect(await store().claimDueInstances('w9', [{ id: retried.id, attempt: 2 }], T0)).toEqual([]);
      expect(
        await store().claimDueInstances('w1', [...asked([later, taken]), { id: retried.id, attempt: 1 }], T0),
      ).toEqual([]);
      expect(await store().claimDueInstances('w1', [], T0)).toEqual([]);
      expect((await mustGet(store(), taken.id)).workerId).toBe('w2');
      expect((await mustGet(store(), retried.id)).state).toBe('WAITING');
      expect(await store().claimDueInstances('w1', asked([later]), T0 + 1_000)).toEqual([later.id]);
    });

    it('two dispatchers racing for one worker never take it past its limit, nor an instance twice', async () => {
      await store().upsertWorker(worker('w1', 5));
      const seed = await seedRun(store());
      const due = await waiting(store, seed, 24);
      // Each caller asks for every instance, in its own order, several claims at once.
      const rounds = await Promise.all([
        store().claimDueInstances('w1', asked(due), T0),
        peer().claimDueInstances('w1', asked([...due].reverse()), T0),
        store().claimDueInstances('w1', asked(due.slice(12)), T0),
        peer().claimDueInstances('w1', asked(due.slice(0, 12)), T0),
      ]);
      const claimed = rounds.flat();
      expect(claimed.length).toBe(5);
      expect(new Set(claimed).size).toBe(5);
      expect((await store().activeCountByWorker()).get('w1')).toBe(5);
      expect((await store().instancesInStates(['DISPATCHED'])).map((i) => i.id).sort((a, b) => a - b)).toEqual(
        sorted(claimed),
      );
    });

    it('two dispatchers racing for different workers hand each instance to exactly one of them', async () => {
      for (const id of ['w1', 'w2', 'w3']) await store().upsertWorker(worker(id, 10));
      const seed = await seedRun(store());
      const due = await waiting(store, seed, 24);
      const byWorker = await Promise.all([
        store().claimDueInstances('w1', asked(due), T0),
        peer().claimDueInstances('w2', asked([...due].reverse()), T0),
        peer().claimDueInstances('w3', asked(due), T0),
      ]);
      const claimed = byWorker.flat();
      // 30 slots for 24 instances: every one is claimed, once, by the worker the store names.
      expect(sorted(claimed)).toEqual(sorted(due.map((d) => d.id)));
      for (const [i, ids] of byWorker.entries()) {
        expect(ids.length).toBeLessThanOrEqual(10);
        for (const id of ids) expect((await mustGet(store(), id)).workerId).toBe(`w${i + 1}`);
      }
    });

    it('claims racing with new WAITING instances being created: neither side fails, nothing is lost', async () => {
      await store().upsertWorker(worker('w1', 1_000));
      const seed = await seedRun(store());
      const first = await waiting(store, seed, 10);
      const created: InstanceRecord[] = [...first];
      const claimed: number[] = [];
      // Dispatchers claiming what they saw while run managers (both connections) add more.
      const add = (on: StoreGetter, taskName: string) => async () => {
        for (let i = 0; i < 30; i++) created.push(await addInstance(on(), seed, taskName, { attempt: 100 + i }));
      };
      const claim = (on: StoreGetter) => async () => {
        for (let i = 0; i < 20; i++) claimed.push(...(await on().claimDueInstances('w1', asked(created), T0)));
      };
      await Promise.all(
        [add(peer, 'a'), add(store, 'b'), add(peer, 'c'), claim(store), claim(peer), claim(store)].map((f) => f()),
      );
      claimed.push(...(await store().claimDueInstances('w1', asked(created), T0)));
      expect(sorted(claimed)).toEqual(sorted(created.map((c) => c.id)));
    });
  });
}

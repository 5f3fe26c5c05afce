// A worker id belongs to one live process (design.md §6): two processes under one id would take each
// other's dispatches, fence each other's writes and kill each other's tasks in start-up
// recovery. A process claims its id in the store before it does anything under it (recovery
// included): a compare-and-set on the row's claim token, so of two nodes only one can win. A
// live holder is refused, naming it; a stale one (silent past the worker-lost threshold), an
// offline one, or one the host knows is dead is taken over.
import { AxError } from '../../api/errors.ts';
import type { WorkerRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { WorkerStore, WorkerRegistration } from '../../ports/store.ts';
import { checkReservation, claimToken } from './worker-id-reservation.ts';

/** How an id was won: `left` (its holder deregistered) is routine; `dead` and `stale` take over a holder that did not leave. */
export type ClaimHow = 'new' | 'ours' | 'left' | 'dead' | 'stale';

export type ClaimVerdict =
  { take: true; how: ClaimHow; why: string } | { take: false; holder: WorkerRegistration; silentMs: number };

/**
 * Whether `current` (the id's row) may be taken over. `live` is its registration in the
 * coordinator, whose heartbeat is not queued behind the holder's other store writes; `gone` is
 * the host's own knowledge (the holder ran on this machine and its process is dead).
 */
export function judgeClaim(
  current: WorkerRegistration,
  live: WorkerRecord | undefined,
  now: number,
  lostAfterMs: number,
  gone: (holder: WorkerRegistration) => boolean,
): ClaimVerdict {
  if (current.status === 'offline' && !live) return { take: true, how: 'left', why: 'its last holder left' };
  if (gone(current))
    return { take: true, how: 'dead', why: `its last holder (pid ${current.pid} on ${current.host}) is dead` };
  const silentMs = now - Math.max(current.lastHeartbeat, live?.lastHeartbeat ?? 0);
  if (silentMs > lostAfterMs)
    return { take: true, how: 'stale', why: `its last holder was silent for ${Math.round(silentMs / 1000)}s` };
  return { take: false, holder: current, silentMs };
}

export function describeHolder(h: WorkerRecord, silentMs: number): string {
  return `host ${h.host}, pid ${h.pid}, started ${new Date(h.startedAt).toISOString()}, last heartbeat ${Math.max(0, Math.round(silentMs / 1000))}s ago`;
}

/** Claims `record.id` for `claim`; throws a conflict naming the live holder. Returns how it was won, and why. */
export async function claimWorkerId(
  store: WorkerStore,
  coordinator: Coordinator,
  record: WorkerRecord,
  claim: string,
  now: () => number,
  lostAfterMs: number,
  gone: (holder: WorkerRegistration) => boolean,
): Promise<{ how: ClaimHow; why: string }> {
  // A lost race re-reads the row: the winner is then the live holder to name.
  for (let tries = 0; tries < 5; tries++) {
    const current = await store.getWorker(record.id);
    if (!current) {
      if (await store.claimWorker(record, claim, undefined)) return { how: 'new', why: 'a new id' };
      continue;
    }
    if (current.claim === claim) return { how: 'ours', why: 'already ours' };
    const live = (await coordinator.listWorkers()).find((w) => w.id === record.id);
    const verdict = judgeClaim(current, live, now(), lostAfterMs, gone);
    if (!verdict.take) {
      throw new AxError(
        'conflict',
        `worker id "${record.id}" is held by a live worker (${describeHolder(verdict.holder, verdict.silentMs)}): stop that worker, or give this one another --worker-id`,
      );
    }
    // A node that left or went silent keeps its id for a while; one that died here is gone for good.
    if (verdict.how !== 'dead') checkReservation(current, claim, now());
    if (await store.claimWorker(record, claim, current.claim ?? null)) return { how: verdict.how, why: verdict.why };
  }
  throw new AxError(
    'conflict',
    `worker id "${record.id}" is being claimed by another node at the same moment: try again, or use another --worker-id`,
  );
}

/**
 * One process's hold on its worker id: the claim at start, then the heartbeats that keep it (the
 * store row and the live registration, both written only under this process's claim), and the
 * goodbye. When either write finds another node's claim, `onLost` is called, once.
 */
export class WorkerIdentity {
  private readonly token: string;
  private claimed = false;
  /** the live registration carries this claim (the first one after the claim takes over) */
  private registered = false;
  /** the one store heartbeat in flight: under load it queues behind the worker's own writes */
  private storeBeat: Promise<void> | undefined;
  lost = false;

  constructor(
    private readonly store: WorkerStore,
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    private readonly heartbeatMs: number,
    private readonly holderGone: (holder: WorkerRecord) => boolean,
    private readonly alert: (message: string) => void,
    private readonly onLost: () => void,
    /** the host's randomness: this process's part of its claim */
    random: () => number,
    record: WorkerRecord,
    /** the fingerprint of this node's secret (see worker-id-reservation.ts) */
    nodeKey?: string,
  ) {
    this.token = claimToken(
      nodeKey,
      `${record.host}:${record.pid}:${record.startedAt}:${random().toString(36).slice(2, 10)}`,
    );
  }

  async claim(record: WorkerRecord): Promise<void> {
    if (this.claimed) return;
    const won = await claimWorkerId(
      this.store,
      this.coordinator,
      record,
      this.token,
      () => this.clock.now(),
      3 * this.heartbeatMs,
      this.holderGone,
    );
    this.claimed = true;
    // Taking over from a holder that did not leave (a crash, a freeze) is worth knowing about.
    if (won.how === 'dead' || won.how === 'stale') this.alert(`worker ${record.id}: took over its id: ${won.why}`);
  }

  /**
   * Starts both heartbeats, independently: the scheduler judges a worker by the fresher of the
   * two (design.md §7), so an outage of either must not silence it. At most one store write is in
   * flight (a beat must neither wait for an earlier one nor pile more behind it: `stored` is then
   * undefined); the live registration goes out on every beat regardless.
   */
  beat(record: WorkerRecord): { live: Promise<void>; stored: Promise<void> | undefined } {
    const stored = this.storeBeat
      ? undefined
      : (this.storeBeat = this.store
          .beatWorker(record, this.token)
          .then((ours) => this.ours(ours))
          .finally(() => (this.storeBeat = undefined)));
    const live = this.coordinator
      .heartbeatWorker(record, 3 * this.heartbeatMs, { token: this.token, takeOver: !this.registered })
      .then((ours) => {
        if (ours) this.registered = true;
        this.ours(ours);
      });
    return { live, stored };
  }

  /** Deregisters (offline in the store); under a lost id the registration is the new holder's: left alone. */
  async leave(record: WorkerRecord): Promise<void> {
    if (this.lost) return;
    await this.coordinator.removeWorker(record.id);
    await this.store.beatWorker({ ...record, status: 'offline' }, this.token);
  }

  private ours(ours: boolean): void {
    if (ours || this.lost) return;
    this.lost = true;
    this.onLost();
  }
}

// The reservation of a worker id to its node (core/execution/worker-id-reservation.ts), without services:
// who may take an id a node left, and when the reservation ends. The team test
// (test/team/worker-id-reservation.test.ts) runs it with real processes.
import { describe, expect, it } from 'vitest';
import type { WorkerRegistration } from '../../engine/ports/store.ts';
import { checkReservation, claimToken, ID_RESERVED_MS } from '../../engine/core/execution/worker-id-reservation.ts';

const left = (claim: string | undefined): WorkerRegistration =>
  ({
    id: 'laptop-anna',
    host: 'anna-mbp',
    pid: 4242,
    version: '0.1.0',
    status: 'offline',
    labels: [],
    acceptUnlabelled: false,
    maxConcurrency: 4,
    running: 0,
    startedAt: 0,
    lastHeartbeat: 1_000_000,
    ...(claim !== undefined && { claim }),
  }) as WorkerRegistration;

describe('worker id reservation', () => {
  const anna = claimToken('a'.repeat(32), 'anna-mbp:4242:0:x');
  it('refuses another node within the window, naming the end of it; lets the same node in', () => {
    expect(() => checkReservation(left(anna), claimToken('b'.repeat(32), 'other:1:0:y'), 1_000_000 + 60_000)).toThrow(
      'worker id "laptop-anna" is reserved to the node that last held it (host anna-mbp, last seen 1970-01-01T00:16:40.000Z) until 1970-01-08T00:16:40.000Z',
    );
    expect(() =>
      checkReservation(left(anna), claimToken('a'.repeat(32), 'anna-mbp:5000:9:z'), 1_000_000 + 60_000),
    ).not.toThrow();
  });

  it('ends after ID_RESERVED_MS; a holder or a claimant without a node key reserves nothing', () => {
    expect(() =>
      checkReservation(left(anna), claimToken('b'.repeat(32), 'p'), 1_000_000 + ID_RESERVED_MS),
    ).not.toThrow();
    expect(() => checkReservation(left('anna-mbp:4242:0:x'), claimToken('b'.repeat(32), 'p'), 1_000_001)).not.toThrow(); // an older version's claim
    expect(() =>
      checkReservation(left(claimToken(undefined, 'p')), claimToken('b'.repeat(32), 'q'), 1_000_001),
    ).not.toThrow();
    expect(() => checkReservation(left(anna), claimToken(undefined, 'q'), 1_000_001)).toThrow(/is reserved/);
  });
});

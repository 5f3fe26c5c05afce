// The leader lease as the scheduler's pass sees it: held from the moment it was asked for, for
// its time to live; a pass that outlives it (a loaded box, a slow database) decides nothing more
// until the next tick renews it, as a standby may have taken it meanwhile.
import { describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { LeaderLease } from '../../engine/core/scheduling/leader-lease.ts';

const TTL = 15_000;

describe('LeaderLease', () => {
  it('is current only within its time to live since the renewal; a renewal makes it current again', async () => {
    let now = 1_000_000;
    const coordinator = new MemoryCoordinator({ now: () => now });
    const lease = new LeaderLease(coordinator, 'a', TTL, () => now);
    lease.start();
    expect(await lease.renew()).toEqual({ held: true, taken: true });
    expect(lease.isCurrent).toBe(true);
    now += TTL - 1;
    expect(lease.isCurrent).toBe(true);
    now += 1;
    // Lapsed: still the leader as far as this process last heard, but no longer sure of it.
    expect(lease.isLeader).toBe(true);
    expect(lease.isCurrent).toBe(false);
    expect(await lease.renew()).toEqual({ held: true, taken: false });
    expect(lease.isCurrent).toBe(true);
  });

  it('a lease another holder took meanwhile is neither current nor led on after the renewal', async () => {
    let now = 1_000_000;
    const coordinator = new MemoryCoordinator({ now: () => now });
    const a = new LeaderLease(coordinator, 'a', TTL, () => now);
    const b = new LeaderLease(coordinator, 'b', TTL, () => now);
    a.start();
    b.start();
    await a.renew();
    expect(await b.renew()).toEqual({ held: false, taken: false });
    now += TTL; // a's pass outlived its lease: b takes it
    expect(await b.renew()).toEqual({ held: true, taken: true });
    expect(a.isCurrent).toBe(false);
    expect(await a.renew()).toEqual({ held: false, taken: false });
    expect(a.isLeader).toBe(false);
    expect(b.isCurrent).toBe(true);
  });

  it('a stopped lease is not current', async () => {
    const now = 1_000_000;
    const lease = new LeaderLease(new MemoryCoordinator({ now: () => now }), 'a', TTL, () => now);
    lease.start();
    await lease.renew();
    lease.stop();
    expect(lease.isCurrent).toBe(false);
  });
});

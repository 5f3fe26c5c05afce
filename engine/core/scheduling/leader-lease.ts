// The scheduler's leader lease: several schedulers can stand by, one leads (fires schedules,
// dispatches, runs the backstops). Whatever the leader does is idempotent in the store anyway;
// the lease keeps the others from doing it all twice.
import type { Coordinator } from '../../ports/coordinator.ts';

const LEASE = 'scheduler';

export class LeaderLease {
  private token: number | null = null;
  /** when the lease held lapses at the latest, counted from before the call that took or renewed it */
  private heldUntil = 0;
  /** until start() and from stop(): this process fires and dispatches nothing, lease or not */
  private stopped = true;

  constructor(
    private readonly coordinator: Coordinator,
    private readonly holder: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Holding the lease and not stopping: only then may this process fire schedules or dispatch. */
  get isLeader(): boolean {
    return this.token !== null && !this.stopped;
  }

  /**
   * Leading, and the lease taken or renewed less than its time to live ago: past that a standby
   * may hold it, so a long pass stops deciding (the store's compare-and-sets refuse what it would
   * write twice anyway).
   */
  get isCurrent(): boolean {
    return this.isLeader && this.now() < this.heldUntil;
  }

  start(): void {
    this.stopped = false;
  }

  /**
   * Acquires or renews the lease. `held`: this process leads; `taken`: it did not before this
   * call (start-up, or taking over from a dead leader). Throws when Redis is away, keeping the
   * lease as it was.
   */
  async renew(): Promise<{ held: boolean; taken: boolean }> {
    const had = this.token !== null;
    const asked = this.now();
    this.token = await this.coordinator.acquireLease(LEASE, this.holder, this.ttlMs);
    this.heldUntil = this.token === null ? 0 : asked + this.ttlMs;
    return { held: this.token !== null, taken: !had && this.token !== null };
  }

  /** Stops acting on the lease at once; release() frees it once the last tick is over. */
  stop(): void {
    this.stopped = true;
  }

  async release(): Promise<void> {
    if (this.token !== null) await this.coordinator.releaseLease(LEASE, this.holder);
    this.token = null;
    this.heldUntil = 0;
  }
}

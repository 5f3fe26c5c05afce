// Password guessing slowed per source address, in memory, on top of the accounts service's
// per-account lockout (LOCKOUT_AFTER failures lock one account, whatever the address): past
// MAX_FAILURES failed sign-ins within a minute an address is refused (429 with Retry-After), and
// each further try, refused or failed, doubles the wait, up to MAX_WAIT_MS. A quiet address is
// forgotten. Kept per server process: several scheduler nodes each count on their own.

const WINDOW_MS = 60_000;
const MAX_FAILURES = 10;
const FIRST_WAIT_MS = 2_000;
const MAX_WAIT_MS = 15 * 60_000;
/** addresses remembered at most (the oldest forgotten first) */
const MAX_ADDRESSES = 10_000;
/** past this many, quiet addresses are swept when a new one comes */
const SWEEP_PAST = 1_000;

interface AddressState {
  failures: number[];
  strikes: number;
  blockedUntil: number;
  lastAt: number;
}

export interface SignInLimits {
  windowMs?: number;
  maxFailures?: number;
}

export class SignInLimiter {
  private readonly addresses = new Map<string, AddressState>();
  private readonly windowMs: number;
  private readonly maxFailures: number;

  constructor(
    limits: SignInLimits = {},
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = limits.windowMs ?? WINDOW_MS;
    this.maxFailures = limits.maxFailures ?? MAX_FAILURES;
  }

  /**
   * Before a try: 0 when this address may try now, else how many ms it must wait. A try while it
   * must wait makes the wait longer.
   */
  retryAfter(address: string): number {
    const now = this.now();
    const state = this.addresses.get(address);
    if (!state || state.blockedUntil <= now) return 0;
    this.block(state, now);
    return state.blockedUntil - now;
  }

  /** a failed sign-in from this address */
  failed(address: string): void {
    const now = this.now();
    let state = this.addresses.get(address);
    if (!state) {
      if (this.addresses.size >= SWEEP_PAST) this.sweep(now);
      state = { failures: [], strikes: 0, blockedUntil: 0, lastAt: now };
      this.addresses.set(address, state);
    }
    state.failures = state.failures.filter((at) => now - at < this.windowMs);
    // a minute without failures starts over
    if (state.failures.length === 0 && state.blockedUntil <= now) state.strikes = 0;
    state.failures.push(now);
    state.lastAt = now;
    if (state.failures.length >= this.maxFailures) this.block(state, now);
  }

  private block(state: AddressState, now: number): void {
    state.strikes++;
    state.lastAt = now;
    state.blockedUntil = now + Math.min(FIRST_WAIT_MS * 2 ** (state.strikes - 1), MAX_WAIT_MS);
  }

  private sweep(now: number): void {
    for (const [address, s] of this.addresses)
      if (s.blockedUntil <= now && now - s.lastAt > this.windowMs) this.addresses.delete(address);
    while (this.addresses.size >= MAX_ADDRESSES) this.addresses.delete(this.addresses.keys().next().value as string);
  }
}

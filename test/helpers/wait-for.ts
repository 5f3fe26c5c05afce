import { inspect } from 'node:util';

export interface WaitForOptions {
  /** give up after this long; default 5000 ms */
  timeoutMs?: number;
  /** pause between attempts; default 20 ms */
  intervalMs?: number;
  /** what was being waited for, for the error; a function is asked at the deadline (output so far, say) */
  message?: string | (() => string);
}

/** A pause timer this much later than asked means this process was not run meanwhile. */
const STALL_SLACK_MS = 500;

/**
 * Polls fn until it returns a truthy value and returns that value. A throw counts as "not yet",
 * so fn may hold assertions. fn always runs at least once, and once more at the deadline, so a
 * slow machine fails only when the condition really never held. On the deadline it throws with
 * the message, the last value and (as `cause`) the last error.
 *
 * Time this process was not run does not count (up to the timeout once more): a pause timer that
 * fires seconds late means the machine stalled (a virtual machine whose CPUs the host took away,
 * seen as seconds of steal time), and on its return the deadline would pass before the processes
 * under test had a chance to act on what they were given.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, opts: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const intervalMs = opts.intervalMs ?? 20;
  let deadline = Date.now() + timeoutMs;
  let stalledMs = 0;
  let last: unknown;
  let lastError: unknown;
  for (;;) {
    const past = Date.now() >= deadline;
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
      last = value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (past) break;
    const asleep = Date.now();
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const late = Date.now() - asleep - intervalMs;
    if (late > STALL_SLACK_MS && stalledMs < timeoutMs) {
      const extra = Math.min(late, timeoutMs - stalledMs);
      stalledMs += extra;
      deadline += extra;
    }
  }
  const what = (typeof opts.message === 'function' ? opts.message() : opts.message) ?? 'condition not met';
  const detail =
    lastError === undefined ? `last value: ${inspect(last, { depth: 4 })}` : `last error: ${String(lastError)}`;
  const stalled = stalledMs > 0 ? ` (and ${stalledMs} ms more while this process was not run)` : '';
  throw new Error(`waitFor timed out after ${timeoutMs} ms${stalled}: ${what} (${detail})`, { cause: lastError });
}

/** Settles p against a deadline without leaving a timer behind. */
export async function within(p: Promise<unknown>, ms: number): Promise<'resolved' | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([p.then(() => 'resolved' as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks that something stays so for a while: runs check every intervalMs for `ms` and fails the
 * first time it does not hold (a throw counts as not holding). For what must NOT happen (a banner
 * that must not come, a task that must not start): no event says "it never will", so the test
 * watches for a time it chooses. Say at the call why that time is enough for the unwanted thing to
 * have shown if it were going to; a longer time never makes the test flaky, only slower.
 */
export async function holdsFor(
  check: () => unknown,
  ms: number,
  opts: { intervalMs?: number; message?: string } = {},
): Promise<void> {
  const intervalMs = opts.intervalMs ?? 100;
  const until = Date.now() + ms;
  for (;;) {
    let held: unknown;
    let error: unknown;
    try {
      held = await check();
    } catch (err) {
      error = err;
    }
    if (!held)
      throw new Error(
        `holdsFor: ${opts.message ?? 'the condition'} stopped holding${error === undefined ? '' : `: ${String(error)}`}`,
        { cause: error },
      );
    if (Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, until - Date.now()))));
  }
}

/**
 * Lets `ms` of wall-clock time pass, for a test about a duration itself: a service kept down for
 * longer than a heartbeat may age, the clock brought to a given point of a second. Never to wait
 * for something to happen (waitFor) or not to happen (holdsFor). Say at the call why this long.
 */
export async function letTimePass(ms: number): Promise<void> {
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}

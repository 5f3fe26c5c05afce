import { inspect } from 'node:util';

export interface WaitForOptions {
  /** give up after this long; default 5000 ms */
  timeoutMs?: number;
  /** pause between attempts; default 20 ms */
  intervalMs?: number;
  /** what was being waited for, for the error */
  message?: string;
}

/**
 * Polls fn until it returns a truthy value and returns that value. A throw counts as "not yet",
 * so fn may hold assertions. fn always runs at least once, and once more at the deadline, so a
 * slow machine fails only when the condition really never held. On the deadline it throws with
 * the message, the last value and (as `cause`) the last error.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  opts: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const intervalMs = opts.intervalMs ?? 20;
  const deadline = Date.now() + timeoutMs;
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
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const what = opts.message ?? 'condition not met';
  const detail = lastError === undefined ? `last value: ${inspect(last, { depth: 4 })}` : `last error: ${String(lastError)}`;
  throw new Error(`waitFor timed out after ${timeoutMs} ms: ${what} (${detail})`, { cause: lastError });
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

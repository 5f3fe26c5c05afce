// The tests' waitFor: time this process was not run (its event loop held, or the machine stalled)
// does not count against the deadline, so a stall right before the deadline does not fail a wait
// whose condition comes true once the processes under test run again.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.ts';

/** Holds this process's event loop for ms (what a stalled machine looks like from inside). */
function stallSoon(ms: number, after = 10): void {
  setTimeout(() => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // held
    }
  }, after);
}

describe('waitFor', () => {
  it('does not count a stall against the deadline: a condition true soon after it is met', async () => {
    let ready = false;
    stallSoon(1_500);
    // comes true 200 ms after the stall ends, when 1,700 ms of a 1,000 ms timeout have passed
    setTimeout(() => (ready = true), 1_700);
    const started = Date.now();
    await expect(waitFor(() => ready, { timeoutMs: 1_000, intervalMs: 20 })).resolves.toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  });

  it('still fails a condition that never holds, saying how long this process was not run', async () => {
    stallSoon(1_500);
    await expect(waitFor(() => false, { timeoutMs: 800, intervalMs: 20, message: 'never' })).rejects.toThrow(
      /timed out after 800 ms \(and \d+ ms more while this process was not run\): never/,
    );
  });

  it('fails at its deadline when nothing stalled', async () => {
    await expect(waitFor(() => false, { timeoutMs: 300, intervalMs: 20, message: 'never' })).rejects.toThrow(
      /^waitFor timed out after 300 ms: never \(last value: false\)/,
    );
  });

  it('asks a message function at the deadline: what happened while it waited is in the error', async () => {
    let output = 'nothing yet';
    setTimeout(() => (output = 'ax: cannot start'), 50);
    await expect(
      waitFor(() => false, { timeoutMs: 300, intervalMs: 20, message: () => `no banner; output: ${output}` }),
    ).rejects.toThrow(/: no banner; output: ax: cannot start \(last value: false\)/);
  });
});

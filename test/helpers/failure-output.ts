// What a failing test prints beside its assertion: the output of the processes it started that
// registered here (a team's `ax serve` nodes and commands). A node's own words (a Redis link
// lost, a start still waiting) are often the cause of a failure the assertion only shows the
// effect of. Registered by the setup file (vitest.config.ts setupFiles) for every test.
import { beforeEach } from 'vitest';

export interface FailureSource {
  /** what to print when a test fails while this source is open */
  failureReport(): string;
}

const open = new Set<FailureSource>();
/** closed, but still reported if the test that closed them fails (its onTestFinished runs first) */
const closed = new Set<FailureSource>();

/** Prints this source's report when a test fails while it is open; the function returned closes it. */
export function reportOnFailure(source: FailureSource): () => void {
  open.add(source);
  return () => void closed.add(source);
}

beforeEach(({ onTestFailed }) => {
  for (const source of closed) open.delete(source);
  closed.clear();
  onTestFailed(() => {
    for (const source of open) {
      try {
        console.error(source.failureReport());
      } catch (err) {
        console.error(`(no report: ${(err as Error).message})`);
      }
    }
  });
});

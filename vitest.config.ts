import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'renderer/src/**/*.test.{ts,tsx}'],
    // Run by Node 24 in the second-runtime lane (vitest.second-node.config.ts), not by this Node.
    exclude: ['test/second-node/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll's default (1 s) is one slow render on a busy 2-core machine: the browser tests'
    // polls failed under a loaded CI with the page only late, not wrong. A poll that succeeds
    // returns at once; this only bounds how long a failing one waits.
    expect: { poll: { timeout: 15_000 } },
    // Files are isolated by data dir, so they may run in parallel; two cores are the limit.
    maxWorkers: 2,
    // a failing test prints the output of the processes it started (test/helpers/failure-output.ts)
    setupFiles: ['./test/helpers/failure-output.ts'],
    // the default summary, then every skipped test with its reason (the default names none)
    reporters: ['default', './test/helpers/skip-reasons-reporter.ts'],
  },
});

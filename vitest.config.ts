import { defineConfig } from 'vitest/config';

/**
 * The team fault files (processes or services killed, stopped or restarted; fencing and
 * duplicates) that run a second time with PostgreSQL as the team database, in the project
 * "team-postgres". Not here: mariadb-restart (its twin is postgres-restart) and log-durability
 * (MySQL grants and a private mariadbd are what it breaks).
 */
export const TEAM_POSTGRES_FILES = [
  'test/team/failover-kill.test.ts',
  'test/team/failover-sigstop.test.ts',
  'test/team/duplicate-dispatch.test.ts',
  'test/team/restart-start-lock.test.ts',
  'test/team/timeout-retry.test.ts',
  'test/team/drain.test.ts',
  'test/team/cancel.test.ts',
  'test/team/temporary-worker.test.ts',
  'test/team/simulated-workers.test.ts',
  'test/team-services/leader-failover.test.ts',
  'test/team-services/loaded-worker.test.ts',
  'test/team-services/burst.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll's default (1 s) is one slow render on a busy 2-core machine: the browser tests'
    // polls failed under a loaded CI with the page only late, not wrong. A poll that succeeds
    // returns at once; this only bounds how long a failing one waits.
    expect: { poll: { timeout: 15_000 } },
    // Files are isolated by data dir, so they may run in parallel; two cores are the limit (for
    // both projects together).
    maxWorkers: 2,
    // the default summary, then every skipped test with its reason (the default names none)
    reporters: ['default', './test/helpers/skip-reasons-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          // Team files here use MariaDB unless a test asks for PostgreSQL.
          name: 'main',
          include: ['test/**/*.test.ts', 'renderer/src/**/*.test.{ts,tsx}'],
          // Run by Node 24 in the second-runtime lane (vitest.second-node.config.ts), not by this Node.
          exclude: ['test/second-node/**', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          // The same files again on PostgreSQL (test/helpers/team/harness.ts reads the variable);
          // each copy makes its own database, Redis prefix, directory and ports.
          name: 'team-postgres',
          include: TEAM_POSTGRES_FILES,
          env: { AX_TEST_TEAM_DATABASE: 'postgres' },
        },
      },
    ],
  },
});

// The team fault files again, with PostgreSQL as the team database (`npm run test:team-postgres`):
// the harness (test/helpers/team/harness.ts) reads AX_TEST_TEAM_DATABASE and makes a PostgreSQL
// database per team. Not yet part of `npm test`: on its first runs (2026-12-02, a loaded box) 9 of
// these 11 files passed; timeout-retry, leader-failover and loaded-worker failed on PostgreSQL and
// are still to be looked into (issue 26). Not here: failover-kill (its PostgreSQL cases run in
// `npm test`), mariadb-restart (its twin is postgres-restart, in `npm test`) and log-durability
// (MySQL grants and a private mariadbd are what it breaks).
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export const TEAM_POSTGRES_FILES = [
  'test/team/failover-sigstop.test.ts',
  'test/team/duplicate-dispatch.test.ts',
  'test/team/restart-start-lock.test.ts',
  'test/team/restart-failover.test.ts',
  'test/team/timeout-retry.test.ts',
  'test/team/drain.test.ts',
  'test/team/cancel.test.ts',
  'test/team/temporary-worker.test.ts',
  'test/team/simulated-workers.test.ts',
  'test/team-services/leader-failover.test.ts',
  'test/team-services/loaded-worker.test.ts',
  'test/team-services/burst.test.ts',
];

// Not mergeConfig: it would add these files to the main suite's include list, not replace it.
export default defineConfig({
  test: {
    ...base.test,
    include: TEAM_POSTGRES_FILES,
    exclude: ['**/node_modules/**'],
    env: { AX_TEST_TEAM_DATABASE: 'postgres' },
  },
});

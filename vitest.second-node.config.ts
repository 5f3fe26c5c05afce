// The second-runtime lane (scripts/second-node.mjs test): run by Node 24 — the Node of Electron's
// utility process — on the node_modules npm installed under the machine's Node. The SQLite store
// contract, the engine host forked and driven as the shell drives it, ax end to end, the sign-in,
// and a fresh install where better-sqlite3 cannot be built.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// Not mergeConfig: it would add these files to the main suite's include list, not replace it. Not
// the main config's projects either: this lane is one project, with its own files.
const { projects: _projects, ...shared } = base.test ?? {};

export default defineConfig({
  test: {
    ...shared,
    include: [
      'test/second-node/**/*.test.ts',
      'test/contract/store.sqlite.test.ts',
      'test/unit/group-commit.test.ts',
      'test/unit/memo-query.test.ts',
      'test/integration/engine-host.test.ts',
      'test/integration/engine-host-port.test.ts',
      'test/e2e/cli-run.test.ts',
      'test/e2e/readme-first-workflow.test.ts',
      'test/e2e/cli-serve.test.ts',
      'test/e2e/cli-data-dir.test.ts',
      'test/e2e/cli-lock.test.ts',
      'test/e2e/cli-settings.test.ts',
      'test/integration/migrate-to-team.test.ts',
      'test/ui/sign-in.test.ts',
    ],
    exclude: ['**/node_modules/**'],
  },
});

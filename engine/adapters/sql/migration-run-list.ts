// Migration 0023 (issue 24): the runs page across workflows filters by when runs were created and
// its calendar counts a range of them; without an index both read every run of the table.
import type { Kysely, Migration } from 'kysely';

export const runListIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('workflow_run_created').on('workflow_run').columns(['created_at']).execute();
  },
};

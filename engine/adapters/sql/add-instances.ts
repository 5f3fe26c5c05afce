// add-instances, one transaction: the start-up check gives a RUNNING run the first attempts it
// lacks (what an engine of an earlier version left: a run without all of its roots).
// In: the run, the drafts, now.
// Out: the instances created, each held for its upstreams in other workflows in this step when it
// has some (or released at once); none when the run is gone or no longer RUNNING, and none for a
// draft whose (run, task, attempt) exists already.
// Locks (MySQL): the run's row exclusively; the upstreams' rows shared (upstream-waits.ts).
import type { Kysely } from 'kysely';
import type { InstanceRecord } from '../../api/types.ts';
import type { InstanceDraft } from '../../ports/store.ts';
import { insertDrafts } from './instance-drafts.ts';
import type { SqlDialectName } from './migrations.ts';
import type { Database } from './schema.ts';
import { lockRun, transact } from './transaction.ts';

export async function addInstances(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  runId: number,
  drafts: InstanceDraft[],
  now: number,
): Promise<InstanceRecord[]> {
  return transact(
    db,
    async (trx) => {
      const run = await lockRun(trx, dialect, runId);
      if (run?.state !== 'RUNNING') return [];
      return insertDrafts(trx, dialect, run, drafts, now);
    },
    dialect,
  );
}

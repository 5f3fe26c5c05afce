// hold-instance, one transaction: an instance created held (a first attempt the start-up check
// adds to a run, with notBefore HELD_FOR_UPSTREAM) starts waiting for its upstreams in other
// workflows.
// In: the instance, its waits (worked out by the caller from its run's logical time), now.
// Out: the instance as it is now: waiting for those of its waits not yet satisfied (one
// upstream_wait row each, its reason naming them), or released (due now) when all are; as it
// was when it is no longer held WAITING.
// Locks (MySQL): the instance's row exclusively; the upstreams' rows shared (upstream-waits.ts).
import type { Kysely } from 'kysely';
import type { InstanceRecord } from '../../api/types.ts';
import { HELD_FOR_UPSTREAM, type UpstreamWaitDraft } from '../../ports/store.ts';
import type { SqlDialectName } from './migrations.ts';
import { instanceFromRow } from './rows.ts';
import type { Database } from './schema.ts';
import { exclusive, transact } from './transaction.ts';
import { holdForUpstreams } from './upstream-waits.ts';

export async function holdInstance(db: Kysely<Database>, dialect: SqlDialectName, instanceId: number, waits: UpstreamWaitDraft[], now: number): Promise<InstanceRecord | undefined> {
  return transact(
    db,
    async (trx) => {
      const row = await exclusive(trx.selectFrom('task_instance').selectAll().where('id', '=', instanceId), dialect).executeTakeFirst();
      if (row?.state !== 'WAITING' || Number(row.not_before) !== HELD_FOR_UPSTREAM) return row && instanceFromRow(row);
      const held = await holdForUpstreams(trx, dialect, { id: row.id, runId: row.run_id, workflowId: row.workflow_id }, waits, now);
      return instanceFromRow({ ...row, not_before: held.notBefore, reason: held.reason });
    },
    dialect,
  );
}

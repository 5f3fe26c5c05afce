// Applying several workflow definitions all or nothing (`ax apply DIR`, an import): one
// transaction holding each workflow's apply (apply-workflow.ts), in the order given. Should any
// of them fail, the transaction is rolled back whole and no workflow of the batch is changed.
import type { Kysely } from 'kysely';
import type { Actor } from '../../api/actor.ts';
import type { WorkflowSpec } from '../../api/types.ts';
import type { ApplyResult } from '../../ports/store.ts';
import { writeWorkflow } from './apply-workflow.ts';
import type { Database } from './schema.ts';

export function applyWorkflows(
  db: Kysely<Database>,
  specs: readonly WorkflowSpec[],
  now: number,
  actor?: Actor,
): Promise<ApplyResult[]> {
  return db.transaction().execute(async (trx) => {
    const results: ApplyResult[] = [];
    for (const spec of specs) results.push(await writeWorkflow(trx, spec, now, actor));
    return results;
  });
}

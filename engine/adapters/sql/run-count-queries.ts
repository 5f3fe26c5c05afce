// The runs calendar's counts: runs created in a range per quarter hour × workflow × state, so the
// engine can cut days in any zone without shipping every run (a year of minutely runs is 35,040
// quarter hours per workflow and state at most, not 525,600 rows).
import { sql, type Kysely } from 'kysely';
import type { RunState } from '../../api/types.ts';
import type { RunCountQuery, RunCountRow } from '../../ports/store.ts';
import { num } from './rows.ts';
import type { Database } from './schema.ts';

const QUARTER_HOUR_MS = 900_000;

export async function runCounts(db: Kysely<Database>, query: RunCountQuery): Promise<RunCountRow[]> {
  // `x - x % n` is integer arithmetic in both dialects (SQLite's `/` is integral, MySQL's is not).
  const bucket = sql<number>`(workflow_run.created_at - workflow_run.created_at % ${sql.lit(QUARTER_HOUR_MS)})`;
  let q = db
    .selectFrom('workflow_run')
    .innerJoin('workflow', 'workflow.id', 'workflow_run.workflow_id')
    .select([
      bucket.as('bucket'),
      'workflow.name as workflow',
      'workflow_run.state as state',
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .where('workflow_run.created_at', '>=', query.from)
    .where('workflow_run.created_at', '<', query.to)
    .groupBy([bucket, 'workflow.name', 'workflow_run.state']);
  if (query.workflowName) q = q.where('workflow.name', '=', query.workflowName);
  if (query.owner !== undefined) q = q.where('workflow.owner', '=', query.owner);
  return (await q.execute()).map((r) => ({
    bucket: num(r.bucket),
    workflow: r.workflow,
    state: r.state as RunState,
    count: num(r.n),
  }));
}

// Duration trends (issue 24): a workflow's last finished runs and the finished attempts of their
// tasks, read from the (workflow_id, id) and (run_id, …) indexes; the percentiles are the core's.
import type { Kysely } from 'kysely';
import type { RunState } from '../../api/types.ts';
import type { FinishedRunDurations } from '../../ports/store-views.ts';
import { num } from './rows.ts';
import type { Database } from './schema.ts';

/** the run states that end with a duration (SKIPPED never starts) */
const ENDED: RunState[] = ['SUCCESS', 'FAILED', 'CANCELLED'];

export async function finishedRunDurations(
  db: Kysely<Database>,
  workflowId: number,
  limit: number,
): Promise<FinishedRunDurations> {
  const runs = await db
    .selectFrom('workflow_run')
    .select(['id', 'state', 'started_at', 'finished_at'])
    .where('workflow_id', '=', workflowId)
    .where('state', 'in', ENDED)
    .where('started_at', 'is not', null)
    .where('finished_at', 'is not', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  if (runs.length === 0) return { runs: [], attempts: [] };
  const attempts = await db
    .selectFrom('task_instance')
    .select(['id', 'run_id', 'task_name', 'started_at', 'finished_at'])
    .where(
      'run_id',
      'in',
      runs.map((r) => num(r.id)),
    )
    .where('started_at', 'is not', null)
    .where('finished_at', 'is not', null)
    .orderBy('id')
    .execute();
  return {
    runs: runs.reverse().map((r) => ({
      runId: num(r.id),
      state: r.state as RunState,
      startedAt: num(r.started_at as number),
      finishedAt: num(r.finished_at as number),
    })),
    attempts: attempts.map((a) => ({
      runId: num(a.run_id),
      task: a.task_name,
      startedAt: num(a.started_at as number),
      finishedAt: num(a.finished_at as number),
    })),
  };
}

// upstream-outputs: what a starting task gets from its upstreams' $AX_OUTPUT (issue 23 part 5).
// In: its run, its upstream tasks in the run by name, its upstreams in other workflows each with
// the window of logical times its wait matched. Out: the outputs of each one's SUCCESS instance
// (in the run: the latest attempt; across workflows: the one finished last in the window), only
// where there are some. Plain reads: the instances are final, nothing here changes under them.
import type { Kysely } from 'kysely';
import type { UpstreamOutputs, UpstreamOutputsQuery } from '../../ports/store-instances.ts';
import { chunks } from './rows.ts';
import type { Database } from './schema.ts';

const parse = (json: string): Record<string, string> => JSON.parse(json) as Record<string, string>;

export async function upstreamOutputs(db: Kysely<Database>, query: UpstreamOutputsQuery): Promise<UpstreamOutputs> {
  const out: UpstreamOutputs = { sameRun: [], otherWorkflows: [] };
  const seen = new Set<string>();
  for (const names of chunks(query.tasks)) {
    const rows = await db
      .selectFrom('task_instance')
      .select(['task_name', 'outputs_json'])
      .where('run_id', '=', query.runId)
      .where('task_name', 'in', names)
      .where('state', '=', 'SUCCESS')
      .orderBy('task_name')
      .orderBy('attempt', 'desc')
      .execute();
    for (const r of rows) {
      if (seen.has(r.task_name)) continue;
      seen.add(r.task_name);
      if (r.outputs_json !== null) out.sameRun.push({ task: r.task_name, outputs: parse(r.outputs_json) });
    }
  }
  for (const c of query.cross) {
    const json = await crossOutputs(db, c);
    if (json !== undefined) out.otherWorkflows.push({ workflow: c.workflow, task: c.task, outputs: parse(json) });
  }
  return out;
}

async function crossOutputs(
  db: Kysely<Database>,
  c: UpstreamOutputsQuery['cross'][number],
): Promise<string | undefined> {
  const wf = await db.selectFrom('workflow').select('id').where('name', '=', c.workflow).executeTakeFirst();
  if (!wf) return undefined;
  let from: number;
  let to: number | undefined;
  if ('latestAtOrBefore' in c.window) {
    const last = await db
      .selectFrom('workflow_run')
      .select('logical_time')
      .where('workflow_id', '=', wf.id)
      .where('logical_time', '<=', c.window.latestAtOrBefore)
      .orderBy('logical_time', 'desc')
      .limit(1)
      .executeTakeFirst();
    from = last ? Number(last.logical_time) : 0;
  } else [from, to] = [c.window.from, c.window.to];
  let q = db
    .selectFrom('task_instance')
    .innerJoin('workflow_run', 'workflow_run.id', 'task_instance.run_id')
    .select('task_instance.outputs_json')
    .where('workflow_run.workflow_id', '=', wf.id)
    .where('workflow_run.logical_time', '>=', from)
    .where('task_instance.task_name', '=', c.task)
    .where('task_instance.state', '=', 'SUCCESS');
  if (to !== undefined) q = q.where('workflow_run.logical_time', '<', to);
  const row = await q
    .orderBy('task_instance.finished_at', 'desc')
    .orderBy('task_instance.id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.outputs_json ?? undefined;
}

// A run's cross-workflow waits as the run page shows them: each upstream_wait row of the run whose
// instance still waits, with the other workflow's run that would release it (the latest run in the
// wait's window of logical times) and that run's attempt of the awaited task. Read-only, no locks:
// the page refreshes it while the run is active.
import type { Kysely } from 'kysely';
import type { RunWait } from '../../api/run-views.ts';
import type { InstanceState, RunState } from '../../api/types.ts';
import { waitingReason } from '../../core/workflow/cross-upstream.ts';
import type { Database } from './schema.ts';

export async function runWaits(db: Kysely<Database>, runId: number): Promise<RunWait[]> {
  const rows = await db
    .selectFrom('upstream_wait as w')
    .innerJoin('task_instance as i', 'i.id', 'w.instance_id')
    .select([
      'w.instance_id',
      'i.task_name',
      'w.upstream_workflow',
      'w.upstream_task',
      'w.window_from',
      'w.window_to',
      'w.label',
      'w.deadline',
    ])
    .where('w.run_id', '=', runId)
    // a row left by a waiter that ended some other way is cleaned up later (expiredWaits): not a wait
    .where('i.state', '=', 'WAITING')
    .orderBy('w.id')
    .execute();
  const out: RunWait[] = [];
  for (const r of rows) {
    const [from, to] = [Number(r.window_from), Number(r.window_to)];
    const upRun = await db
      .selectFrom('workflow_run as run')
      .innerJoin('workflow as wf', 'wf.id', 'run.workflow_id')
      .select(['run.id', 'run.state', 'run.logical_time'])
      .where('wf.name', '=', r.upstream_workflow)
      .where('run.logical_time', '>=', from)
      .where('run.logical_time', '<', to)
      .orderBy('run.logical_time', 'desc')
      .orderBy('run.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const upInst =
      upRun && r.upstream_task !== ''
        ? await db
            .selectFrom('task_instance')
            .select(['id', 'state'])
            .where('run_id', '=', upRun.id)
            .where('task_name', '=', r.upstream_task)
            .orderBy('attempt', 'desc')
            .orderBy('id', 'desc')
            .limit(1)
            .executeTakeFirst()
        : undefined;
    out.push({
      instanceId: r.instance_id,
      task: r.task_name,
      upstream: `${r.upstream_workflow}.${r.upstream_task || '*'}`,
      upstreamWorkflow: r.upstream_workflow,
      upstreamTask: r.upstream_task || '*',
      logicalTime: upRun ? Number(upRun.logical_time) : from,
      ...(upRun && { upstreamRunId: upRun.id, upstreamRunState: upRun.state as RunState }),
      ...(upInst && { upstreamInstanceId: upInst.id, upstreamState: upInst.state as InstanceState }),
      deadline: Number(r.deadline),
      ...waitingReason([r.label]),
    });
  }
  return out;
}

// Trigger rules in a store step (part of finish-with-follow-ups, in its transaction): a task that
// ended for good has each of its downstream tasks decided by its run_if rule from its upstreams'
// latest states in the run; one decided SKIPPED or UPSTREAM_FAILED is created as a marker, and
// its own downstream is decided in turn, so a skip or a failure cascades through the graph in
// one step, each task by its own rule. The decision itself is core/model/trigger-rule.ts.
// Locks (MySQL): the upstreams' and the task's own rows are read locking (share), so two
// upstreams of one task ending together wait for each other (InnoDB rolls one back; it runs
// again and sees the other's end): a task is decided once, by whichever ends last. A task that
// already has an instance in the run was decided before: it is left as it is.
import type { ReasonCode } from '../../api/reason-code.ts';
import { decodeReasonCode } from '../../api/reasons.ts';
import type { InstanceRecord, InstanceState } from '../../api/types.ts';
import { decideTrigger, upstreamKind, type UpstreamState } from '../../core/model/trigger-rule.ts';
import type { InstanceDraft, RuleGraph } from '../../ports/store.ts';
import { insertDrafts } from './instance-drafts.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks } from './rows.ts';
import { shared, type Trx } from './transaction.ts';

interface Latest {
  state: InstanceState;
  reason?: string;
  reasonCode?: ReasonCode;
}

/** Each task's latest attempt in the run, of these tasks. */
async function latestOf(
  trx: Trx,
  dialect: SqlDialectName,
  runId: number,
  taskIds: number[],
): Promise<Map<number, Latest & { attempt: number }>> {
  const out = new Map<number, Latest & { attempt: number }>();
  for (const ids of chunks(taskIds)) {
    const q = trx
      .selectFrom('task_instance')
      .select(['task_id', 'attempt', 'state', 'reason', 'reason_code'])
      .where('run_id', '=', runId)
      .where('task_id', 'in', ids);
    const rows = await shared(q, dialect).execute();
    for (const r of rows) {
      const seen = out.get(r.task_id);
      if (!seen || r.attempt > seen.attempt)
        out.set(r.task_id, {
          attempt: r.attempt,
          state: r.state as InstanceState,
          reason: r.reason ?? undefined,
          reasonCode: decodeReasonCode(r.reason_code),
        });
    }
  }
  return out;
}

/**
 * Decides the downstream of the task that ended (and what their skips and failures reach) in the
 * caller's transaction; returns the instances created: WAITING ones to run, SKIPPED and
 * UPSTREAM_FAILED markers.
 */
export async function decideDownstream(
  trx: Trx,
  dialect: SqlDialectName,
  run: { id: number; workflow_id: number; logical_time: number },
  ended: Latest,
  decide: { taskId: number; graph: RuleGraph; scope?: ReadonlySet<number> },
  now: number,
): Promise<InstanceRecord[]> {
  const { graph, scope } = decide;
  const inRun = (id: number) => !scope || scope.has(id);
  // What this step decided (the ended task first): never read again, and overriding what a read sees.
  const decided = new Map<number, Latest>([[decide.taskId, ended]]);
  const created: InstanceRecord[] = [];
  const queue = [...(graph.get(decide.taskId)?.downstream ?? [])];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const id = next;
    const found = inRun(id) ? graph.get(id) : undefined;
    if (!found || decided.has(id)) continue;
    // Only the upstreams of the run count (all of them, but in a run of one task with its downstream).
    const node = scope ? { ...found, upstream: found.upstream.filter(inRun) } : found;
    const known = (u: number) => decided.get(u);
    // No read when this step knows enough: every upstream ended in it (a task with one upstream,
    // the common case), or a failure ended in it and the rule gives up on one (the cascade of a
    // failure through a large graph costs its inserts alone). Whether the task has an instance
    // already is then the insert's to find (the run's unique key).
    const certain =
      node.upstream.every((u) => decided.has(u)) ||
      ((node.runIf === 'all_success' || node.runIf === 'none_failed') &&
        node.upstream.some((u) => upstreamKind(known(u)?.state) === 'failed'));
    let states: Map<number, Latest>;
    if (certain) states = decided;
    else {
      const read = await latestOf(trx, dialect, run.id, [...node.upstream.filter((u) => !decided.has(u)), id]);
      if (read.has(id)) continue;
      states = new Map([...read, ...decided]);
    }
    const upstreams: UpstreamState[] = node.upstream.map((u) => {
      const s = states.get(u);
      return { name: graph.get(u)?.name ?? String(u), state: s?.state, reason: s?.reason, reasonCode: s?.reasonCode };
    });
    const verdict = decideTrigger(node.runIf, upstreams);
    if (verdict.kind === 'wait') continue;
    const draft: InstanceDraft =
      verdict.kind === 'run'
        ? { ...node.draft, notBefore: now }
        : {
            taskId: id,
            taskName: node.name,
            attempt: 1,
            state: verdict.kind === 'skip' ? 'SKIPPED' : 'UPSTREAM_FAILED',
            notBefore: 0,
            reason: verdict.reason,
            reasonCode: verdict.reasonCode,
          };
    const made = await insertDrafts(trx, dialect, run, [draft], now);
    created.push(...made);
    // Inserted only if the task had no instance yet (an existing one was decided before).
    if (made.length === 0 || verdict.kind === 'run') continue;
    decided.set(id, { state: draft.state, reason: verdict.reason, reasonCode: verdict.reasonCode });
    queue.push(...node.downstream);
  }
  return created;
}

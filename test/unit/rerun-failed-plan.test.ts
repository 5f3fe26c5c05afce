// What "re-run failed tasks" does to an ended run, as a table over the pure plan: which tasks get a
// new attempt (the roots of the failed set), which instances are cleared to be decided again (the
// rest of the downstream, whatever state it ended in: a marker, a SKIPPED or CANCELLED task, a
// cleanup that ran), and when it is refused with a sentence saying why.
import { describe, expect, it } from 'vitest';
import type { InstanceRecord, InstanceState } from '../../engine/api/types.ts';
import { planFailedRerun } from '../../engine/core/runs/rerun-failed.ts';
import { indexWorkflow } from '../../engine/core/workflow/workflow-cache.ts';
import type { TaskDefinition, WorkflowGraph } from '../../engine/ports/store.ts';

/** a → b → d, a → c, e alone; f after e and b (a join) */
const EDGES: [string, string][] = [
  ['a', 'b'],
  ['b', 'd'],
  ['a', 'c'],
  ['e', 'f'],
  ['b', 'f'],
];
const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];
const id = (name: string) => NAMES.indexOf(name) + 1;

function graph(): WorkflowGraph {
  const tasks: TaskDefinition[] = NAMES.map((name) => ({
    id: id(name),
    workflowId: 1,
    name,
    command: 'true',
    env: {},
    retries: 0,
    retryBackoff: { kind: 'fixed', delayMs: 0, maxDelayMs: 0 },
    labels: [],
  }));
  return {
    id: 1,
    name: 'w',
    enabled: true,
    version: 1,
    routing: 'round_robin',
    tasks,
    edges: EDGES.map(([u, d]) => ({ upstreamTaskId: id(u), downstreamTaskId: id(d) })),
  };
}

/** instances from "name:state" (attempts counted per task, in order) */
function instances(spec: string): InstanceRecord[] {
  const attempts = new Map<string, number>();
  return spec.split(' ').map((part, i) => {
    const [name, state] = part.split(':') as [string, InstanceState];
    const attempt = (attempts.get(name) ?? 0) + 1;
    attempts.set(name, attempt);
    return {
      id: 100 + i,
      runId: 7,
      workflowId: 1,
      taskId: id(name),
      taskName: name,
      attempt,
      state,
      notBefore: 0,
      createdAt: 0,
      failovers: 0,
      failedOver: false,
      handled: true,
    };
  });
}

const cases: {
  name: string;
  run: string;
  onlyTask?: string;
  roots?: string[];
  cleared?: string[];
  tasks?: string[];
  refused?: string;
}[] = [
  {
    name: 'a failed root: it and its whole downstream (markers cleared)',
    run: 'a:FAILED b:UPSTREAM_FAILED c:UPSTREAM_FAILED d:UPSTREAM_FAILED e:SUCCESS f:UPSTREAM_FAILED',
    roots: ['a:1'],
    cleared: ['b', 'c', 'd', 'f'],
    tasks: ['a', 'b', 'c', 'd', 'f'],
  },
  {
    name: 'a downstream that ran anyway or was skipped or cancelled is decided again',
    run: 'a:SUCCESS e:SUCCESS b:TIMEOUT c:SUCCESS d:SKIPPED f:CANCELLED',
    roots: ['b:1'],
    cleared: ['d', 'f'],
  },
  {
    name: 'retried attempts: the latest counts; earlier attempts of a root are kept',
    run: 'a:SUCCESS e:SUCCESS b:FAILED b:FAILED c:SUCCESS d:UPSTREAM_FAILED f:UPSTREAM_FAILED',
    roots: ['b:2'],
    cleared: ['d', 'f'],
  },
  {
    name: 'a task that failed after an earlier failure in its upstream is cleared, not a root',
    run: 'a:SUCCESS e:SUCCESS b:FAILED c:SUCCESS d:FAILED f:UPSTREAM_FAILED',
    roots: ['b:1'],
    cleared: ['d', 'f'],
  },
  {
    name: 'two roots in separate branches',
    run: 'a:SUCCESS e:FAILED b:SUCCESS c:FAILED d:SUCCESS f:UPSTREAM_FAILED',
    roots: ['e:1', 'c:1'],
    cleared: ['f'],
  },
  {
    name: 'an UPSTREAM_FAILED whose upstreams succeeded (a wait on another workflow failed) is a root',
    run: 'a:SUCCESS e:SUCCESS b:SUCCESS c:UPSTREAM_FAILED d:SUCCESS f:SUCCESS',
    roots: ['c:1'],
    cleared: [],
  },
  {
    name: 'nothing failed',
    run: 'a:SUCCESS e:SUCCESS b:SUCCESS c:SKIPPED d:SUCCESS f:SUCCESS',
    refused: 'run #7 has no failed task: nothing to re-run',
  },
  {
    name: 'a root whose upstream did not succeed (the run was cancelled) is refused, naming it',
    run: 'a:CANCELLED e:SUCCESS b:FAILED',
    refused: 'task "b" of run #7 cannot run again: its upstream "a" is CANCELLED, not SUCCESS',
  },
  {
    name: 'a root whose upstream never ran is refused, naming it',
    run: 'e:SUCCESS b:FAILED',
    refused: 'task "b" of run #7 cannot run again: its upstream "a" never ran, not SUCCESS',
  },
  {
    name: 'a run of one task: only that task again',
    run: 'b:FAILED',
    onlyTask: 'b',
    roots: ['b:1'],
    cleared: [],
  },
];

describe('planFailedRerun', () => {
  for (const c of cases)
    it(c.name, async () => {
      const wf = await indexWorkflow(graph(), 0, () => Promise.resolve());
      const plan = planFailedRerun(7, c.onlyTask, instances(c.run), wf);
      if (c.refused) return expect(plan).toEqual({ refused: c.refused });
      if ('refused' in plan) throw new Error(plan.refused);
      expect(plan.roots.map((r) => `${r.task.name}:${r.latest.attempt}`)).toEqual(c.roots);
      expect(plan.cleared.map((i) => i.taskName).sort()).toEqual(c.cleared);
      if (c.tasks) expect(plan.tasks).toEqual(c.tasks);
    });
});

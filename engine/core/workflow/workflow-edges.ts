// The checks across a workflow's tasks, once each task's fields are read: every upstream names
// another task of the same workflow (or, with a dot, another workflow's: cross-upstream.ts), and
// the edges make no cycle (dag.ts finds one iteratively: a workflow may hold tens of thousands of
// tasks). Cycles across workflows need the other workflows: apply checks them (lineage.ts).
import type { TaskSpec } from '../../api/types.ts';
import { findCycle, type Edge } from '../model/dag.ts';
import { sortUpstream } from './cross-upstream.ts';
import { closest } from '../model/did-you-mean.ts';
import type { Reader } from './workflow-reader.ts';

export function checkEdges(r: Reader, tasks: TaskSpec[], self: string): void {
  const names = tasks.map((t) => t.name);
  const known = new Set(names); // a Set: workflows may hold tens of thousands of tasks
  const edges: Edge<string>[] = [];
  for (const task of tasks) {
    const at = `tasks.${task.name}.upstream`;
    const cross = task.crossUpstream ?? [];
    task.upstream = sortUpstream(r, task.upstream, known, at, self, cross);
    if (cross.length > 0) task.crossUpstream = cross;
    if (task.waitTimeoutMs !== undefined && cross.length === 0) {
      r.add(
        `tasks.${task.name}.wait_timeout`,
        'applies to upstreams in other workflows (WORKFLOW.TASK): this task has none, so remove it',
      );
    }
    for (const up of task.upstream) {
      if (up === task.name) r.add(at, `a task cannot be upstream of itself: remove "${up}"`);
      else if (!known.has(up)) {
        const guess = closest(up, names);
        r.add(
          at,
          `unknown task "${up}": ${guess ? `did you mean '${guess}'?` : "upstream must name a task in this workflow (or another workflow's as WORKFLOW.TASK, a whole one as WORKFLOW.*)"}`,
        );
      } else edges.push([up, task.name]);
    }
  }
  const cycle = findCycle(names, edges);
  if (cycle) r.add('tasks', `cycle: ${cycle.join(' → ')}`);
}

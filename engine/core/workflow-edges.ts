// The checks across a workflow's tasks, once each task's fields are read: every upstream names
// another task of the same workflow, and the edges make no cycle (dag.ts finds one iteratively:
// a workflow may hold tens of thousands of tasks).
import type { TaskSpec } from '../api/types.ts';
import { findCycle, type Edge } from './dag.ts';
import { closest } from './did-you-mean.ts';
import type { Reader } from './workflow-reader.ts';

export function checkEdges(r: Reader, tasks: TaskSpec[]): void {
  const names = tasks.map((t) => t.name);
  const known = new Set(names); // a Set: workflows may hold tens of thousands of tasks
  const edges: Edge<string>[] = [];
  for (const task of tasks) {
    for (const up of task.upstream) {
      const at = `tasks.${task.name}.upstream`;
      if (up === task.name) r.add(at, `a task cannot be upstream of itself: remove "${up}"`);
      else if (!known.has(up)) {
        const guess = closest(up, names);
        r.add(at, `unknown task "${up}": ${guess ? `did you mean '${guess}'?` : 'upstream must name a task in this workflow'}`);
      } else edges.push([up, task.name]);
    }
  }
  const cycle = findCycle(names, edges);
  if (cycle) r.add('tasks', `cycle: ${cycle.join(' → ')}`);
}

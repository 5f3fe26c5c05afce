// What a task node says of a task's definition beyond its command: its `run_if:` rule when not
// the default, its `when:` precondition, the workflow it calls. The designer and the run view
// both mark them, so a graph read anywhere says how a task decides to run.
import type { TaskSpec } from '../../../engine/api/types.ts';
import type { TaskNodeData } from './task-node-types.ts';

export type TaskMarks = Pick<TaskNodeData, 'rule' | 'condition' | 'call'>;

/** What the node says of a task's rule, precondition and call (so the graph says it too). */
export function taskMarks(task: TaskSpec): TaskMarks {
  const out: TaskMarks = {};
  if (task.runIf && task.runIf !== 'all_success') out.rule = task.runIf;
  if (task.when) out.condition = 'expr' in task.when ? task.when.expr : `$ ${task.when.command}`;
  if (task.call) out.call = task.call.workflow || '?';
  return out;
}

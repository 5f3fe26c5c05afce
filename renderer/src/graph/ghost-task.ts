// A task of another workflow that a run's task waits for, drawn beside the run's own tasks as a
// dashed "ghost" node with its state; opening it goes to that workflow's run.
import type { InstanceState, RunState } from '../../../engine/api/types.ts';

export interface GhostTask {
  /** WORKFLOW.TASK: unique among the graph's node ids (a run's own tasks have no dot) */
  id: string;
  workflow: string;
  task: string;
  /** the upstream task's state in its run; undefined when that run does not exist yet */
  state?: InstanceState;
  runState?: RunState;
  /** that workflow's run at the awaited logical time, when it exists */
  runId?: number;
  /** this run's tasks that wait for it (edges go ghost → each) */
  waiting: string[];
  /** the full reason of the wait, already in the reader's language */
  reason?: string;
  /** epoch ms when the wait times out */
  deadline?: number;
}

// The data a task node shows: the designer fills name, command and flags; the run view adds the
// live state. Plain data so React Flow can compare it.
import { Position, type Node, type NodeHandle } from '@xyflow/react';
import type { LayoutDirection } from './layout-types.ts';

export interface TaskNodeData extends Record<string, unknown> {
  /** the task name */
  label: string;
  /** a second line, e.g. the command (designer) or the duration (run view) */
  detail?: string;
  /** where the handles sit: top/bottom for TB, left/right for LR (default TB) */
  direction?: LayoutDirection;
  /** an instance state (run view): shown as icon + words + border colour */
  state?: string;
  /** words after the state, e.g. "attempt 2" */
  stateNote?: string;
  /** no edge at all while the workflow has other tasks (designer) */
  isolated?: boolean;
  /** number of validation problems on this task (designer) */
  problems?: number;
  /** part of a refused cycle, highlighted for a few seconds (designer) */
  highlighted?: boolean;
  /** the task's `run_if:` rule when it is not the default all_success */
  rule?: string;
  /** the task has a `when:` precondition: its text, shown on hover */
  condition?: string;
  /** a `call:` task: the workflow it calls */
  call?: string;
  /** a call task's child run in this run (run view): a link to it */
  childRunId?: number;
  /** why the instance is as it is, e.g. why it was skipped (run view): shown on hover */
  reason?: string;
  /** drawn faded: outside the run view's state filter */
  dimmed?: boolean;
  /** the task "Find a task" is on: outlined */
  found?: boolean;
}

export type TaskFlowNode = Node<TaskNodeData, 'task'>;

/** The fixed width of a task node and its height before React Flow has measured it. */
export const TASK_NODE_WIDTH = 208;
export const TASK_NODE_HEIGHT = 64;
/** height with the badge row (state, isolated, problems, rule, condition, call) */
export const TASK_NODE_HEIGHT_BADGES = 90;

export function estimatedNodeHeight(data: TaskNodeData): number {
  return hasBadges(data) ? TASK_NODE_HEIGHT_BADGES : TASK_NODE_HEIGHT;
}

export function hasBadges(data: TaskNodeData): boolean {
  return !!(
    data.state ||
    data.isolated ||
    data.problems ||
    data.highlighted ||
    data.rule ||
    data.condition ||
    data.call ||
    data.childRunId
  );
}

/** the handles' size in px (graph.css): big enough to grab with a mouse */
const HANDLE = 12;

/**
 * Size and handle places of a node React Flow has not measured yet. Without them React Flow
 * renders every node once just to measure it, which for a 1,000-task graph costs seconds even
 * when only the 40 on screen are drawn; with them it draws only what is visible.
 */
export function unmeasuredGeometry(
  direction: 'TB' | 'LR' | undefined,
  height: number,
): Pick<Node, 'initialWidth' | 'initialHeight' | 'handles'> {
  const w = TASK_NODE_WIDTH;
  const handles: NodeHandle[] =
    direction === 'LR'
      ? [
          {
            type: 'target',
            position: Position.Left,
            x: -HANDLE / 2,
            y: height / 2 - HANDLE / 2,
            width: HANDLE,
            height: HANDLE,
          },
          {
            type: 'source',
            position: Position.Right,
            x: w - HANDLE / 2,
            y: height / 2 - HANDLE / 2,
            width: HANDLE,
            height: HANDLE,
          },
        ]
      : [
          {
            type: 'target',
            position: Position.Top,
            x: w / 2 - HANDLE / 2,
            y: -HANDLE / 2,
            width: HANDLE,
            height: HANDLE,
          },
          {
            type: 'source',
            position: Position.Bottom,
            x: w / 2 - HANDLE / 2,
            y: height - HANDLE / 2,
            width: HANDLE,
            height: HANDLE,
          },
        ];
  return { initialWidth: w, initialHeight: height, handles };
}

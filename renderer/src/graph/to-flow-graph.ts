// Tasks (name + upstream list, as in a WorkflowSpec or a run's instances) to React Flow nodes and
// edges. Edges point upstream → downstream; their id is "up->down" ('>' never occurs in a name).
import type { Edge } from '@xyflow/react';
import type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';
import {
  estimatedNodeHeight,
  TASK_NODE_WIDTH,
  unmeasuredGeometry,
  type TaskFlowNode,
  type TaskNodeData,
} from './task-node-types.ts';

export interface GraphTask {
  name: string;
  upstream: readonly string[];
  /** the second line of the node, e.g. the command */
  detail?: string;
  state?: string;
  stateNote?: string;
  /** see TaskNodeData */
  rule?: string;
  condition?: string;
  call?: string;
  childRunId?: number;
  reason?: string;
}

/** the node data a graph task carries beyond its name (the badges and hovers) */
function extras(t: GraphTask): Partial<TaskNodeData> {
  const out: Partial<TaskNodeData> = {};
  if (t.detail !== undefined) out.detail = t.detail;
  if (t.state !== undefined) out.state = t.state;
  if (t.stateNote !== undefined) out.stateNote = t.stateNote;
  if (t.rule !== undefined) out.rule = t.rule;
  if (t.condition !== undefined) out.condition = t.condition;
  if (t.call !== undefined) out.call = t.call;
  if (t.childRunId !== undefined) out.childRunId = t.childRunId;
  if (t.reason !== undefined) out.reason = t.reason;
  return out;
}

export const edgeId = (source: string, target: string): string => `${source}->${target}`;

export function graphEdges(tasks: readonly GraphTask[]): LayoutEdge[] {
  const known = new Set(tasks.map((t) => t.name));
  const out: LayoutEdge[] = [];
  for (const t of tasks) for (const up of t.upstream) if (known.has(up)) out.push({ source: up, target: t.name });
  return out;
}

export function layoutNodes(
  tasks: readonly GraphTask[],
  measured?: ReadonlyMap<string, { width: number; height: number }>,
): LayoutNode[] {
  return tasks.map((t) => {
    const size = measured?.get(t.name);
    return {
      id: t.name,
      width: size?.width ?? TASK_NODE_WIDTH,
      height: size?.height ?? estimatedNodeHeight({ label: t.name, ...extras(t) }),
    };
  });
}

export function toFlowGraph(
  tasks: readonly GraphTask[],
  positions: Positions,
  direction: LayoutDirection,
): { nodes: TaskFlowNode[]; edges: Edge[] } {
  const nodes = tasks.map((t): TaskFlowNode => {
    const data: TaskNodeData = { label: t.name, direction, ...extras(t) };
    const geometry = unmeasuredGeometry(direction, estimatedNodeHeight(data));
    return {
      id: t.name,
      type: 'task',
      position: positions[t.name] ?? { x: 0, y: 0 },
      data,
      ariaLabel: t.state ? `${t.name}: ${t.state}` : t.name,
      ...geometry,
    };
  });
  const edges = graphEdges(tasks).map((e): Edge => ({
    id: edgeId(e.source, e.target),
    source: e.source,
    target: e.target,
  }));
  return { nodes, edges };
}

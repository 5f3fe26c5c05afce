// The spec drawn as React Flow nodes and edges. The same node object is handed back while
// nothing about it changed, so dragging one node of a 5,000-task graph re-renders one node.
import { MarkerType, type Edge } from '@xyflow/react';
import type { TaskSpec } from '../../../engine/api/types.ts';
import { edgeId } from '../graph/to-flow-graph.ts';
import { taskMarks } from '../graph/task-marks.ts';
import type { LayoutDirection, Positions } from '../graph/layout-types.ts';
import {
  estimatedNodeHeight,
  unmeasuredGeometry,
  type TaskFlowNode,
  type TaskNodeData,
} from '../graph/task-node-types.ts';

export interface NodeFlags {
  selectedNodes: ReadonlySet<string>;
  selectedEdges: ReadonlySet<string>;
  /** tasks and edges of a refused cycle, for a few seconds */
  cycleNodes: ReadonlySet<string>;
  cycleEdges: ReadonlySet<string>;
  isolated: ReadonlySet<string>;
  problems: ReadonlyMap<string, number>;
  /** when set, only these tasks are drawn (the too-large path) */
  visible?: ReadonlySet<string>;
}

export type Sizes = ReadonlyMap<string, { width: number; height: number }>;

interface CachedNode {
  task: TaskSpec;
  node: TaskFlowNode;
  position: { x: number; y: number } | undefined;
  size: { width: number; height: number } | undefined;
  key: string;
}

interface CachedEdge {
  edge: Edge;
  key: string;
}

export class FlowCache {
  private nodes = new Map<string, CachedNode>();
  private edges = new Map<string, CachedEdge>();

  buildNodes(
    tasks: readonly TaskSpec[],
    positions: Positions,
    sizes: Sizes,
    direction: LayoutDirection,
    flags: NodeFlags,
  ): TaskFlowNode[] {
    const out: TaskFlowNode[] = [];
    const next = new Map<string, CachedNode>();
    for (const task of tasks) {
      if (flags.visible && !flags.visible.has(task.name)) continue;
      const position = positions[task.name];
      const size = sizes.get(task.name);
      const selected = flags.selectedNodes.has(task.name);
      const problems = flags.problems.get(task.name) ?? 0;
      const highlighted = flags.cycleNodes.has(task.name);
      const isolated = flags.isolated.has(task.name);
      const key = `${direction}|${selected ? 1 : 0}|${problems}|${highlighted ? 1 : 0}|${isolated ? 1 : 0}`;
      const old = this.nodes.get(task.name);
      if (old && old.task === task && old.position === position && old.size === size && old.key === key) {
        next.set(task.name, old);
        out.push(old.node);
        continue;
      }
      const data: TaskNodeData = { label: task.name, detail: task.command || undefined, direction, ...taskMarks(task) };
      if (problems) data.problems = problems;
      if (highlighted) data.highlighted = true;
      if (isolated) data.isolated = true;
      const node: TaskFlowNode = {
        id: task.name,
        type: 'task',
        position: position ?? { x: 0, y: 0 },
        data,
        selected,
        ariaLabel: task.name,
      };
      // measured: React Flow keeps the handles it found in the DOM; not yet: the estimated ones
      if (size) node.measured = size;
      else Object.assign(node, unmeasuredGeometry(direction, estimatedNodeHeight(data)));
      next.set(task.name, { task, node, position, size, key });
      out.push(node);
    }
    this.nodes = next;
    return out;
  }

  buildEdges(tasks: readonly TaskSpec[], flags: NodeFlags): Edge[] {
    const out: Edge[] = [];
    const next = new Map<string, CachedEdge>();
    for (const task of tasks) {
      for (const up of task.upstream) {
        if (flags.visible && !(flags.visible.has(up) && flags.visible.has(task.name))) continue;
        const id = edgeId(up, task.name);
        const selected = flags.selectedEdges.has(id);
        const cycle = flags.cycleEdges.has(id);
        const key = `${selected ? 1 : 0}|${cycle ? 1 : 0}`;
        const old = this.edges.get(id);
        if (old && old.key === key) {
          next.set(id, old);
          out.push(old.edge);
          continue;
        }
        const edge: Edge = {
          id,
          source: up,
          target: task.name,
          selected,
          markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 },
          ariaLabel: `${up} → ${task.name}`,
        };
        if (cycle) {
          edge.className = 'ax-edge--cycle';
          edge.animated = true;
        }
        next.set(id, { edge, key });
        out.push(edge);
      }
    }
    this.edges = next;
    return out;
  }
}

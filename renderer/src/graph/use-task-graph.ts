// A read-only task graph for a view such as the run page: laid out (in the worker when big) when
// the set of tasks or edges changes, while state changes only repaint the nodes.
import type { Edge } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { layoutGraphAsync } from './layout-async.ts';
import type { LayoutDirection, Positions } from './layout-types.ts';
import type { TaskFlowNode } from './task-node-types.ts';
import { graphEdges, layoutNodes, toFlowGraph, type GraphTask } from './to-flow-graph.ts';

export interface TaskGraph {
  nodes: TaskFlowNode[];
  edges: Edge[];
  /** false until the first layout is done (draw nothing or a spinner until then) */
  ready: boolean;
  error?: string;
}

export function useTaskGraph(tasks: readonly GraphTask[], direction: LayoutDirection): TaskGraph {
  // the structure alone decides the layout; states change far more often than the graph
  const shapeKey = useMemo(
    () =>
      `${direction}|${tasks.map((t) => `${t.name}<${t.upstream.join(',')}`).join('|')}|${tasks.some((t) => t.state) ? 's' : ''}`,
    [tasks, direction],
  );
  const [layout, setLayout] = useState<{ key: string; positions: Positions } | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let active = true;
    layoutGraphAsync(layoutNodes(tasks), graphEdges(tasks), direction).then(
      (positions) => active && setLayout({ key: shapeKey, positions }),
      (e: Error) => active && setError(e.message),
    );
    return () => {
      active = false;
    };
    // shapeKey stands for the tasks' structure: a state change alone does not lay out again
  }, [shapeKey]);
  return useMemo(() => {
    if (!layout) return { nodes: [], edges: [], ready: false, error };
    return { ...toFlowGraph(tasks, layout.positions, direction), ready: layout.key === shapeKey, error };
  }, [layout, tasks, direction, error, shapeKey]);
}

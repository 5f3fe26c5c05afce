// The React Flow nodes and edges of the designer's canvas, with their marks (selected, in a
// cycle, isolated, with problems, filtered out), built through one FlowCache, which keeps each
// node whose task and marks did not change.
import { useMemo, useRef } from 'react';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { isolated } from '../../../engine/core/model/dag.ts';
import { FlowCache, type NodeFlags } from './flow-elements.ts';
import { problemCounts, type PlacedProblem } from './model/problems.ts';
import { edgesOf } from './model/spec-ops.ts';
import type { useCanvasState } from './use-canvas-state.ts';
import type { useCycleFlash } from './use-cycle-flash.ts';

export function useFlowElements(input: {
  spec: WorkflowSpec;
  names: readonly string[];
  canvas: ReturnType<typeof useCanvasState>;
  cycle: ReturnType<typeof useCycleFlash>;
  placed: readonly PlacedProblem[];
  visible: ReadonlySet<string> | undefined;
}) {
  const { spec, names, canvas, cycle, placed, visible } = input;
  const flags: NodeFlags = useMemo(
    () => ({
      selectedNodes: canvas.selectedNodes,
      selectedEdges: canvas.selectedEdges,
      cycleNodes: cycle.nodes,
      cycleEdges: cycle.edges,
      isolated: new Set(spec.tasks.length > 1 ? isolated(names, edgesOf(spec)) : []),
      problems: problemCounts(placed),
      visible,
    }),
    [canvas.selectedNodes, canvas.selectedEdges, cycle.nodes, cycle.edges, spec, names, placed, visible],
  );
  const cache = useRef(new FlowCache());
  // nothing to draw before the first layout: building 5,000 nodes at (0, 0) would be wasted
  const ready = canvas.ready;
  const nodes = useMemo(
    () => (ready ? cache.current.buildNodes(spec.tasks, canvas.positions, canvas.sizes, canvas.direction, flags) : []),
    [ready, spec.tasks, canvas.positions, canvas.sizes, canvas.direction, flags],
  );
  const edges = useMemo(() => (ready ? cache.current.buildEdges(spec.tasks, flags) : []), [ready, spec.tasks, flags]);
  return { nodes, edges };
}

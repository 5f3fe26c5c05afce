// Fits a React Flow view to its nodes once they are there: fitView on mount sees an empty graph
// while the layout is still being computed. `shape` changes when the drawn graph does; `refit`
// when the box does (full screen), after React Flow has seen the new size (two frames).
// The bounds are taken over every node, not React Flow's fitView: that one counts only nodes it
// has measured, and with onlyRenderVisibleElements a big graph has measured only those on screen.
import { getNodesBounds, getViewportForBounds, useReactFlow, useStoreApi } from '@xyflow/react';
import { useEffect } from 'react';

export function FitOnChange({ shape, refit }: { shape: number; refit?: unknown }) {
  const flow = useReactFlow();
  const store = useStoreApi();
  useEffect(() => {
    if (shape <= 0) return;
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => {
        const { width, height, minZoom } = store.getState();
        const nodes = flow.getNodes();
        if (nodes.length === 0 || width === 0 || height === 0) return;
        void flow.setViewport(getViewportForBounds(getNodesBounds(nodes), width, height, minZoom, 1, 0.04));
        // for bench/ui-run-graph.ts: when the graph was first shown whole
        if (performance.getEntriesByName('ax:graph-fitted').length === 0) performance.mark('ax:graph-fitted');
      });
    });
    return () => cancelAnimationFrame(frame);
  }, [shape, refit, flow, store]);
  return null;
}

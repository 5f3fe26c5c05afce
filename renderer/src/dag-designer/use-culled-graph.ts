// A big graph is handed to React Flow only around the screen (see graph/cull-graph.ts); the
// area is widened generously and moved only when the view nears its edge.
import type { Edge, Node, Viewport } from '@xyflow/react';
import { useCallback, useMemo, useState, type RefObject } from 'react';
import { cullGraph, grow, viewRect, type Rect } from '../graph/cull-graph.ts';

/** graphs bigger than this are culled to the screen before React Flow sees them */
const CULL_FROM = 300;
const contains = (a: Rect, b: Rect) =>
  b.x >= a.x && b.y >= a.y && b.x + b.width <= a.x + a.width && b.y + b.height <= a.y + a.height;

interface Options {
  /** draw everything (an image export needs every node in the page) */
  renderAll: boolean;
  /** the canvas element, for the size of the screen */
  box: RefObject<HTMLDivElement | null>;
  /** the viewport the canvas opens on, culled to before the first move */
  initialViewport: Viewport | undefined;
  /** nodes drawn wherever they are (a refused cycle's flash) */
  keep: ReadonlySet<string>;
}

export function useCulledGraph<N extends Node, E extends Edge>(
  nodes: N[],
  edges: E[],
  { renderAll, box, initialViewport, keep }: Options,
) {
  const [cullArea, setCullArea] = useState<Rect | undefined>();
  const onViewport = useCallback(
    (vp: Viewport) => {
      const el = box.current;
      if (!el) return;
      const seen = viewRect(vp, el.clientWidth, el.clientHeight);
      // zoomed out, the screen already holds hundreds of tasks: a smaller margin keeps the count down
      const margin = vp.zoom >= 0.5 ? 1 : 0.3;
      setCullArea((prev) => (prev && contains(prev, grow(seen, 0.1)) ? prev : grow(seen, margin)));
    },
    [box],
  );
  const culling = nodes.length > CULL_FROM && !renderAll;
  const initialCull =
    culling && !cullArea && initialViewport && box.current
      ? grow(viewRect(initialViewport, box.current.clientWidth, box.current.clientHeight), 1)
      : undefined;
  const area = cullArea ?? initialCull;
  const shown = useMemo(
    () => (culling && area ? cullGraph(nodes, edges, area, keep) : { nodes, edges }),
    [culling, area, nodes, edges, keep],
  );
  return { shown, onViewport };
}

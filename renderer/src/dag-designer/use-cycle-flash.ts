// The tasks and edges of a refused cycle, highlighted for a few seconds.
import { useCallback, useEffect, useRef, useState } from 'react';
import { edgeId } from '../graph/to-flow-graph.ts';

export const CYCLE_FLASH_MS = 4_000;
const NONE: { nodes: ReadonlySet<string>; edges: ReadonlySet<string> } = { nodes: new Set(), edges: new Set() };

export function useCycleFlash() {
  const [marked, setMarked] = useState(NONE);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  /** path as the refusal names it: [a, b, c, a] (the last pair is the edge that was refused) */
  const flash = useCallback((path: readonly string[]) => {
    const edges = new Set<string>();
    for (let i = 0; i + 1 < path.length - 1; i++) edges.add(edgeId(path[i] as string, path[i + 1] as string));
    setMarked({ nodes: new Set(path), edges });
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setMarked(NONE), CYCLE_FLASH_MS);
  }, []);
  return { nodes: marked.nodes, edges: marked.edges, flash };
}

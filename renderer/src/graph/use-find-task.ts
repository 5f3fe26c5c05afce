// "Find a task": the tasks whose name holds the query, the one shown (Enter steps through them)
// centred in the view at a zoom where it is drawn in full.
import { useReactFlow, type Node } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { DETAIL_MIN_ZOOM } from './lod.ts';
import { findMatches } from './state-filter.ts';

export function useFindTask(nodes: readonly Node[], ready: boolean) {
  const flow = useReactFlow();
  const [query, setQueryState] = useState('');
  const [index, setIndex] = useState(0);
  const names = useMemo(() => nodes.filter((n) => n.type !== 'ghost').map((n) => n.id), [nodes]);
  const matches = useMemo(() => findMatches(names, query), [names, query]);
  const match = matches.length ? index % matches.length : 0;
  const found = matches[match];
  const setQuery = useCallback((q: string) => {
    setQueryState(q);
    setIndex(0);
  }, []);
  const step = useCallback(
    (by: 1 | -1) => setIndex((i) => (matches.length ? (i + by + matches.length) % matches.length : 0)),
    [matches.length],
  );
  // positions only: a state change of the found task does not move the view again
  const spot = useMemo(() => {
    const n = found ? nodes.find((x) => x.id === found) : undefined;
    if (!n) return undefined;
    const w = n.measured?.width ?? n.initialWidth ?? 0;
    const h = n.measured?.height ?? n.initialHeight ?? 0;
    return `${n.position.x + w / 2},${n.position.y + h / 2}`;
  }, [found, nodes]);
  useEffect(() => {
    if (!spot || !ready) return;
    const [x, y] = spot.split(',').map(Number) as [number, number];
    void flow.setCenter(x, y, { zoom: Math.max(flow.getZoom(), 1, DETAIL_MIN_ZOOM), duration: 250 });
  }, [spot, ready, flow, found]);
  return { query, setQuery, matches: matches.length, match, found, step };
}

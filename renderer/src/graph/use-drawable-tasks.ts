// The too-large path of the read-only graphs (a run's, a workflow's): past GRAPH_DRAW_LIMIT tasks
// only those a filter finds are drawn, with TooLargeToDraw asking for the filter.
import { useMemo, useState } from 'react';
import { filterGraph } from './filter-graph.ts';
import { GRAPH_DRAW_LIMIT } from './TooLargeToDraw.tsx';
import type { GraphTask } from './to-flow-graph.ts';

export function useDrawableTasks<T extends Pick<GraphTask, 'name' | 'upstream'>>(all: T[]) {
  const [filter, setFilter] = useState('');
  const big = all.length > GRAPH_DRAW_LIMIT;
  const filtered = useMemo(
    () =>
      big
        ? filterGraph(
            all.map((x) => ({ id: x.name })),
            all.flatMap((x) => x.upstream.map((u) => ({ source: u, target: x.name }))),
            filter,
            GRAPH_DRAW_LIMIT,
          )
        : undefined,
    [all, big, filter],
  );
  const shown = useMemo(() => (filtered ? all.filter((x) => filtered.ids.includes(x.name)) : all), [all, filtered]);
  return { filter, setFilter, big, filtered, shown };
}

// The too-large path of the designer: past GRAPH_DRAW_LIMIT tasks only those the filter finds
// (with their direct upstream and downstream) are drawn; under it everything is, and no filter shows.
import { useMemo, useState } from 'react';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { filterGraph } from '../graph/filter-graph.ts';
import { GRAPH_DRAW_LIMIT } from '../graph/TooLargeToDraw.tsx';
import { edgesOf } from './model/spec-ops.ts';

export function useGraphFilter(spec: WorkflowSpec) {
  const big = spec.tasks.length > GRAPH_DRAW_LIMIT;
  const [filter, setFilter] = useState('');
  const filtered = useMemo(
    () =>
      big
        ? filterGraph(
            spec.tasks.map((x) => ({ id: x.name, text: x.command })),
            edgesOf(spec).map(([source, target]) => ({ source, target })),
            filter,
            GRAPH_DRAW_LIMIT,
          )
        : undefined,
    [big, spec, filter],
  );
  /** the tasks drawn; undefined: all of them */
  const visible = useMemo(() => (filtered ? new Set(filtered.ids) : undefined), [filtered]);
  return { big, filter, setFilter, filtered, visible };
}

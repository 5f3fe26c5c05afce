// Fits a React Flow view to its nodes once they are there: fitView on mount sees an empty graph
// while the layout is still being computed. `shape` changes when the drawn graph does.
import { useReactFlow } from '@xyflow/react';
import { useEffect } from 'react';

export function FitOnChange({ shape }: { shape: number }) {
  const flow = useReactFlow();
  useEffect(() => {
    if (shape > 0) void flow.fitView({ maxZoom: 1 });
  }, [shape, flow]);
  return null;
}

// What the canvas knows besides the spec: where each task is drawn, its measured size, the
// layout direction and the selection. Positions are not part of the workflow file; they come
// from the layout (on load, on demand) and from dragging, and outlive a task's removal so that
// undo puts it back where it was.
import { getViewportForBounds, useReactFlow, type EdgeChange, type NodeChange, type Viewport } from '@xyflow/react';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { layoutGraphAsync } from '../graph/layout-async.ts';
import type { LayoutDirection, Positions } from '../graph/layout-types.ts';
import {
  TASK_NODE_HEIGHT,
  TASK_NODE_HEIGHT_BADGES,
  TASK_NODE_WIDTH,
  type TaskFlowNode,
} from '../graph/task-node-types.ts';
import { graphEdges, layoutNodes } from '../graph/to-flow-graph.ts';
import type { Sizes } from './flow-elements.ts';

/** graphs up to this size are fitted whole on load; bigger ones open on their first tasks */
const FIT_ALL_MAX = 60;
const BIG_GRAPH_ZOOM = 0.75;

export function useCanvasState(
  spec: WorkflowSpec,
  visible: ReadonlySet<string> | undefined,
  container: RefObject<HTMLDivElement | null>,
) {
  const rf = useReactFlow<TaskFlowNode>();
  const [direction, setDirection] = useState<LayoutDirection>('TB');
  const [positions, setPositions] = useState<Positions>({});
  const [sizes, setSizes] = useState<Sizes>(new Map());
  const [ready, setReady] = useState(false);
  const [layoutError, setLayoutError] = useState<string | undefined>();
  const [selectedNodes, setSelectedNodes] = useState<ReadonlySet<string>>(new Set());
  const [selectedEdges, setSelectedEdges] = useState<ReadonlySet<string>>(new Set());
  const latest = useRef({ spec, visible, sizes, positions });
  useEffect(() => {
    latest.current = { spec, visible, sizes, positions };
  });
  const seq = useRef(0);

  /** the viewport showing the whole graph, or for a big one its first ranks at a readable zoom */
  const viewportFor = useCallback(
    (positions: Positions, width: number, height: number, all = false): Viewport => {
      const { spec: s, visible: v, sizes: z } = latest.current;
      const names = s.tasks.map((t) => t.name).filter((n) => (!v || v.has(n)) && positions[n]);
      if (names.length === 0) return { x: 0, y: 0, zoom: 1 };
      const whole = all || names.length <= FIT_ALL_MAX;
      let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
      for (const n of names) {
        const p = positions[n]!;
        const size = z.get(n) ?? { width: TASK_NODE_WIDTH, height: TASK_NODE_HEIGHT_BADGES };
        [x0, y0, x1, y1] = [
          Math.min(x0, p.x),
          Math.min(y0, p.y),
          Math.max(x1, p.x + size.width),
          Math.max(y1, p.y + size.height),
        ];
      }
      if (whole)
        return getViewportForBounds({ x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, width, height, 0.05, 1, 0.12);
      // a big graph opens on its start (top for TB, left for LR), centred across, readable
      const zoom = BIG_GRAPH_ZOOM;
      return direction === 'TB'
        ? { zoom, x: width / 2 - ((x0 + x1) / 2) * zoom, y: 24 - y0 * zoom }
        : { zoom, x: 24 - x0 * zoom, y: height / 2 - ((y0 + y1) / 2) * zoom };
    },
    [direction],
  );

  const fit = useCallback(
    (all = false) => {
      const rect = container.current?.getBoundingClientRect();
      if (!rect) return;
      void rf.setViewport(viewportFor(latest.current.positions, rect.width, rect.height, all));
    },
    [rf, container, viewportFor],
  );

  const layout = useCallback(
    async (dir: LayoutDirection, options: { measured?: boolean; fit?: boolean } = {}) => {
      const id = ++seq.current;
      const { spec: s, visible: v, sizes: z } = latest.current;
      const tasks = v ? s.tasks.filter((t) => v.has(t.name)) : s.tasks;
      try {
        const pos = await layoutGraphAsync(
          layoutNodes(tasks, options.measured ? z : undefined),
          graphEdges(tasks),
          dir,
        );
        if (id !== seq.current) return;
        // for bench/ui-layout.ts: when the first layout of the page was ready
        if (performance.getEntriesByName('ax:designer-laid-out').length === 0) performance.mark('ax:designer-laid-out');
        setPositions((prev) => ({ ...prev, ...pos }));
        setReady(true);
        setLayoutError(undefined);
        if (options.fit !== false) requestAnimationFrame(() => requestAnimationFrame(() => fit()));
      } catch (e) {
        if (id === seq.current) setLayoutError(e instanceof Error ? e.message : String(e));
      }
    },
    [fit],
  );

  const changeDirection = useCallback(
    (dir: LayoutDirection) => {
      setDirection(dir);
      void layout(dir, { measured: true });
    },
    [layout],
  );

  /** a free spot for a new task: under (or beside) the selected task, else mid-screen */
  const placeNew = useCallback(
    (near: string | undefined): { x: number; y: number } => {
      const p = latest.current.positions;
      let spot: { x: number; y: number };
      const anchor = near ? p[near] : undefined;
      if (anchor)
        spot =
          direction === 'TB'
            ? { x: anchor.x, y: anchor.y + TASK_NODE_HEIGHT + 70 }
            : { x: anchor.x + TASK_NODE_WIDTH + 70, y: anchor.y };
      else {
        const rect = container.current?.getBoundingClientRect();
        const centre = rect
          ? rf.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 3 })
          : { x: 0, y: 0 };
        spot = { x: Math.round(centre.x - TASK_NODE_WIDTH / 2), y: Math.round(centre.y - TASK_NODE_HEIGHT / 2) };
      }
      const taken = Object.entries(p).filter(([name]) => latest.current.spec.tasks.some((t) => t.name === name));
      const clash = (s: { x: number; y: number }) =>
        taken.some(
          ([, q]) => Math.abs(q.x - s.x) < TASK_NODE_WIDTH + 10 && Math.abs(q.y - s.y) < TASK_NODE_HEIGHT + 10,
        );
      for (let i = 0; i < 200 && clash(spot); i++)
        spot =
          direction === 'TB'
            ? { x: spot.x + TASK_NODE_WIDTH + 40, y: spot.y }
            : { x: spot.x, y: spot.y + TASK_NODE_HEIGHT + 30 };
      return spot;
    },
    [direction, rf, container],
  );

  const place = useCallback(
    (name: string, at: { x: number; y: number }) => setPositions((prev) => ({ ...prev, [name]: at })),
    [],
  );
  const rename = useCallback(
    (from: string, to: string) => setPositions((prev) => (prev[from] ? { ...prev, [to]: prev[from]! } : prev)),
    [],
  );

  const onNodesChange = useCallback((changes: NodeChange<TaskFlowNode>[]) => {
    let pos: Record<string, { x: number; y: number }> | undefined;
    let dims: Map<string, { width: number; height: number }> | undefined;
    let sel: { add: string[]; remove: string[] } | undefined;
    for (const c of changes) {
      if (c.type === 'position' && c.position) (pos ??= {})[c.id] = c.position;
      else if (c.type === 'dimensions' && c.dimensions) (dims ??= new Map()).set(c.id, c.dimensions);
      else if (c.type === 'select') (sel ??= { add: [], remove: [] })[c.selected ? 'add' : 'remove'].push(c.id);
    }
    if (pos) setPositions((prev) => ({ ...prev, ...pos }));
    if (dims) {
      setSizes((prev) => {
        const next = new Map(prev);
        for (const [id, d] of dims) {
          const old = prev.get(id);
          if (!old || old.width !== d.width || old.height !== d.height) next.set(id, d);
        }
        return next;
      });
    }
    if (sel) setSelectedNodes((prev) => applySelection(prev, sel));
  }, []);

  const onEdgesChange = useCallback((changes: EdgeChange[]) => {
    let sel: { add: string[]; remove: string[] } | undefined;
    for (const c of changes)
      if (c.type === 'select') (sel ??= { add: [], remove: [] })[c.selected ? 'add' : 'remove'].push(c.id);
    if (sel) setSelectedEdges((prev) => applySelection(prev, sel));
  }, []);

  const select = useCallback((names: string[]) => {
    setSelectedNodes(new Set(names));
    setSelectedEdges(new Set());
  }, []);

  return {
    direction,
    changeDirection,
    positions,
    sizes,
    ready,
    layoutError,
    layout,
    fit,
    viewportFor,
    placeNew,
    place,
    rename,
    selectedNodes,
    selectedEdges,
    onNodesChange,
    onEdgesChange,
    select,
  };
}

function applySelection(prev: ReadonlySet<string>, sel: { add: string[]; remove: string[] }): ReadonlySet<string> {
  const next = new Set(prev);
  for (const id of sel.remove) next.delete(id);
  for (const id of sel.add) next.add(id);
  return next.size === prev.size && [...next].every((id) => prev.has(id)) ? prev : next;
}

// What the canvas knows besides the spec: where each task is drawn, its measured size, the
// layout direction and the selection. Positions are not part of the workflow file; they come
// from the layout (on load, on demand) and from dragging, and outlive a task's removal so that
// undo puts it back where it was.
import { getViewportForBounds, useReactFlow, type EdgeChange, type NodeChange, type Viewport } from '@xyflow/react';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { layoutGraphAsync } from '../graph/layout-async.ts';
import type { LayoutDirection, Positions } from '../graph/layout-types.ts';
import { taskMarks } from '../graph/task-marks.ts';
import {
  TASK_NODE_HEIGHT,
  TASK_NODE_HEIGHT_BADGES,
  TASK_NODE_WIDTH,
  type TaskFlowNode,
} from '../graph/task-node-types.ts';
import { graphEdges, layoutNodes } from '../graph/to-flow-graph.ts';
import type { Sizes } from './flow-elements.ts';

/**
 * graphs up to this size are fitted whole on load (zoomed out, nodes are drawn compact and stay
 * legible: graph/lod.ts); bigger ones open on their first tasks
 */
const FIT_ALL_MAX = 300;
const BIG_GRAPH_ZOOM = 0.75;

export function useCanvasState(
  spec: WorkflowSpec,
  visible: ReadonlySet<string> | undefined,
  container: RefObject<HTMLDivElement | null>,
  /** the box the canvas fills (there before the canvas is): its shape guides the layout */
  box?: RefObject<HTMLDivElement | null>,
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
        return getViewportForBounds({ x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, width, height, 0.05, 1, 0.04);
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
      // the marks make a node taller (its badge row): the layout leaves room for it
      const tasks = (v ? s.tasks.filter((t) => v.has(t.name)) : s.tasks).map((t) => ({
        name: t.name,
        upstream: t.upstream,
        ...taskMarks(t),
      }));
      try {
        // wrapped to the canvas's shape, so a fit shows a big graph as big as it can
        const rect = (box?.current ?? container.current)?.getBoundingClientRect();
        const pos = await layoutGraphAsync(
          layoutNodes(tasks, options.measured ? z : undefined),
          graphEdges(tasks),
          dir,
          rect && rect.height > 0 ? rect.width / rect.height : undefined,
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
    [fit, container, box],
  );

  const changeDirection = useCallback(
    (dir: LayoutDirection) => {
      setDirection(dir);
      void layout(dir, { measured: true });
    },
    [layout],
  );

  /**
   * A free spot for a new task, always inside the view: under (or beside) the selected task when
   * that is on screen, else the free spot nearest the view's centre (in a dense graph a search
   * along one row went off screen), else the centre itself.
   */
  const placeNew = useCallback(
    (near: string | undefined): { x: number; y: number } => {
      const p = latest.current.positions;
      const rect = container.current?.getBoundingClientRect();
      const view = rect
        ? {
            a: rf.screenToFlowPosition({ x: rect.left, y: rect.top }),
            b: rf.screenToFlowPosition({ x: rect.right, y: rect.bottom }),
          }
        : undefined;
      const inView = (s: { x: number; y: number }) =>
        !view ||
        (s.x >= view.a.x && s.y >= view.a.y && s.x + TASK_NODE_WIDTH <= view.b.x && s.y + TASK_NODE_HEIGHT <= view.b.y);
      const taken = Object.entries(p).filter(([name]) => latest.current.spec.tasks.some((t) => t.name === name));
      const clash = (s: { x: number; y: number }) =>
        taken.some(
          ([, q]) => Math.abs(q.x - s.x) < TASK_NODE_WIDTH + 10 && Math.abs(q.y - s.y) < TASK_NODE_HEIGHT + 10,
        );
      const anchor = near ? p[near] : undefined;
      if (anchor) {
        const below =
          direction === 'TB'
            ? { x: anchor.x, y: anchor.y + TASK_NODE_HEIGHT + 70 }
            : { x: anchor.x + TASK_NODE_WIDTH + 70, y: anchor.y };
        if (inView(below) && !clash(below)) return below;
      }
      const centre = view
        ? { x: (view.a.x + view.b.x) / 2, y: (view.a.y + view.b.y) / 2 }
        : { x: TASK_NODE_WIDTH, y: TASK_NODE_HEIGHT };
      const mid = { x: Math.round(centre.x - TASK_NODE_WIDTH / 2), y: Math.round(centre.y - TASK_NODE_HEIGHT / 2) };
      return freeSpotNear(mid, clash, inView) ?? mid;
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

/** the free spot nearest `start` on rings of node-sized steps around it, inside the view */
function freeSpotNear(
  start: { x: number; y: number },
  clash: (s: { x: number; y: number }) => boolean,
  inView: (s: { x: number; y: number }) => boolean,
): { x: number; y: number } | undefined {
  const dx = TASK_NODE_WIDTH + 20;
  const dy = TASK_NODE_HEIGHT + 20;
  for (let ring = 0; ring < 12; ring++) {
    let any = false;
    const spots: { x: number; y: number; d: number }[] = [];
    for (let i = -ring; i <= ring; i++)
      for (let j = -ring; j <= ring; j++) {
        if (Math.max(Math.abs(i), Math.abs(j)) !== ring) continue;
        spots.push({ x: start.x + i * dx, y: start.y + j * dy, d: Math.hypot(i * dx, j * dy) });
      }
    spots.sort((a, b) => a.d - b.d);
    for (const s of spots) {
      if (!inView(s)) continue;
      any = true;
      if (!clash(s)) return { x: s.x, y: s.y };
    }
    if (!any) return undefined;
  }
  return undefined;
}

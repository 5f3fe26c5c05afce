// layoutGraph off the main thread. Small graphs are laid out at once (a worker round trip would
// cost more than the layout); bigger ones in one shared module worker, so a 5,000-task graph
// never blocks input. Where no worker can start (an old test runner, a stricter CSP), the
// layout runs here instead of failing.
import { layoutGraph } from './layout.ts';
import type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';
import type { LayoutReply, LayoutRequest } from './layout.worker.ts';

export const SYNC_MAX_NODES = 40;

let worker: Worker | undefined;
let workerBroken = false;
let nextId = 1;
const waiting = new Map<number, { resolve(p: Positions): void; reject(e: Error): void; request: LayoutRequest }>();

function getWorker(): Worker | undefined {
  if (workerBroken || typeof Worker === 'undefined') return undefined;
  if (worker) return worker;
  try {
    worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
  } catch {
    workerBroken = true;
    return undefined;
  }
  worker.onmessage = (event: MessageEvent<LayoutReply>) => {
    const entry = waiting.get(event.data.id);
    if (!entry) return;
    waiting.delete(event.data.id);
    if ('error' in event.data) entry.reject(new Error(event.data.error));
    else entry.resolve(event.data.positions);
  };
  worker.onerror = () => {
    // the worker script could not load: lay out what was waiting here, and from now on too
    workerBroken = true;
    worker?.terminate();
    worker = undefined;
    for (const [id, entry] of waiting) {
      waiting.delete(id);
      const { nodes, edges, direction, aspect } = entry.request;
      try {
        entry.resolve(layoutGraph(nodes, edges, direction, aspect));
      } catch (error) {
        entry.reject(error as Error);
      }
    }
  };
  return worker;
}

/** Starts the worker ahead of need (while the spec is still on its way), so its script is loaded by then. */
export function warmLayoutWorker(): void {
  getWorker();
}

/** Positions for the graph; in a worker unless the graph is small. `aspect`: see layoutGraph. */
export function layoutGraphAsync(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  direction: LayoutDirection,
  aspect?: number,
): Promise<Positions> {
  const w = nodes.length > SYNC_MAX_NODES ? getWorker() : undefined;
  if (!w) {
    try {
      return Promise.resolve(layoutGraph(nodes, edges, direction, aspect));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
  const request: LayoutRequest = {
    id: nextId++,
    // plain copies: nodes may carry more than the worker needs (React Flow node objects)
    nodes: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: edges.map((e) => ({ source: e.source, target: e.target })),
    direction,
    ...(aspect !== undefined && { aspect }),
  };
  return new Promise((resolve, reject) => {
    waiting.set(request.id, { resolve, reject, request });
    w.postMessage(request);
  });
}

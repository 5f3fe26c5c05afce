// The vocabulary of graph layout, shared by the main thread and the layout worker (plain data
// only: it crosses postMessage).

export type LayoutDirection = 'TB' | 'LR';

export interface LayoutNode {
  id: string;
  /** measured size in px (or the default size before React Flow has measured the node) */
  width: number;
  height: number;
}

export interface LayoutEdge {
  source: string;
  target: string;
}

/** top-left corner of every node, in flow coordinates */
export type Positions = Record<string, { x: number; y: number }>;

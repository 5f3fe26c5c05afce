// The graph helpers shared by the designer and the run view.
export { TaskNode, taskNodeTypes } from './TaskNode.tsx';
export {
  TASK_NODE_WIDTH,
  TASK_NODE_HEIGHT,
  TASK_NODE_HEIGHT_BADGES,
  estimatedNodeHeight,
  type TaskNodeData,
  type TaskFlowNode,
} from './task-node-types.ts';
export { layoutGraph, DAGRE_MAX_NODES } from './layout.ts';
export { layoutGraphAsync, warmLayoutWorker, SYNC_MAX_NODES } from './layout-async.ts';
export type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';
export { filterGraph, type FilterInput, type FilterResult } from './filter-graph.ts';
export { renderGraphImage, downloadUrl, type ImageFormat } from './export-image.ts';
export { GRAPH_DRAW_LIMIT, TooLargeToDraw } from './TooLargeToDraw.tsx';
export { toFlowGraph, graphEdges, layoutNodes, edgeId, type GraphTask } from './to-flow-graph.ts';
export { useTaskGraph, type TaskGraph } from './use-task-graph.ts';
export { FitOnChange } from './FitOnChange.tsx';
export { taskMarks, type TaskMarks } from './task-marks.ts';
export type { GhostTask } from './ghost-task.ts';

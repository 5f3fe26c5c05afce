import { describe, expect, it } from 'vitest';
import { drawGhosts, withGhosts } from './ghost-graph.ts';
import type { GhostTask } from './ghost-task.ts';
import { toFlowGraph } from './to-flow-graph.ts';

const ghost: GhostTask = {
  id: 'billing.export',
  workflow: 'billing',
  task: 'export',
  state: 'RUNNING',
  runId: 7,
  waiting: ['load', 'gone'],
  reason: 'waiting for billing.export',
};
const tasks = [
  { name: 'extract', upstream: [] },
  { name: 'load', upstream: ['extract'], state: 'WAITING' },
];

describe('ghost tasks in a run graph', () => {
  it('lays a ghost out upstream of the tasks that wait for it (only those the graph has)', () => {
    expect(withGhosts(tasks, [ghost])).toEqual([
      { name: 'billing.export', upstream: [] },
      { name: 'extract', upstream: [] },
      { name: 'load', upstream: ['extract', 'billing.export'], state: 'WAITING' },
    ]);
    expect(withGhosts(tasks, undefined)).toBe(tasks);
  });

  it('draws it as a ghost node with its task, and its edges dashed', () => {
    const all = withGhosts(tasks, [ghost]);
    const flow = toFlowGraph(all, {}, 'TB');
    const drawn = drawGhosts(flow.nodes, flow.edges, [ghost], 'TB');
    const node = drawn.nodes.find((n) => n.id === 'billing.export')!;
    expect(node.type).toBe('ghost');
    expect(node.data).toEqual({ ghost, direction: 'TB' });
    expect(drawn.edges.find((e) => e.source === 'billing.export')).toMatchObject({
      target: 'load',
      className: 'ax-edge--ghost',
    });
    expect(drawn.edges.find((e) => e.source === 'extract')?.className).toBeUndefined();
  });
});

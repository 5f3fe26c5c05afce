import { describe, expect, it } from 'vitest';
import { dagreLayout } from './dagre-layout.ts';
import { cullGraph, grow, viewRect } from './cull-graph.ts';
import { filterGraph } from './filter-graph.ts';
import { fitScale, fittedLayeredLayout, layeredLayout } from './layered-layout.ts';
import { DAGRE_MAX_NODES, DEFAULT_ASPECT, layoutGraph, WRAP_FROM } from './layout.ts';
import type { LayoutEdge, LayoutNode, Positions } from './layout-types.ts';

const node = (id: string, width = 200, height = 60): LayoutNode => ({ id, width, height });
const chain = (n: number) => ({
  nodes: Array.from({ length: n }, (_, i) => node(`t${i}`)),
  edges: Array.from({ length: n - 1 }, (_, i) => ({ source: `t${i}`, target: `t${i + 1}` })),
});

/** a layered DAG like a real big workflow: rows of `width` tasks, each fed by 1–2 of the row above */
function layered(n: number, width = 25) {
  let seed = 7;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const nodes = Array.from({ length: n }, (_, i) => node(`t${i}`));
  const edges: LayoutEdge[] = [];
  for (let i = width; i < n; i++) {
    const row = Math.floor(i / width);
    for (let k = 0; k < 1 + Math.floor(rnd() * 2); k++)
      edges.push({ source: `t${(row - 1) * width + Math.floor(rnd() * width)}`, target: `t${i}` });
  }
  return { nodes, edges };
}

function overlaps(nodes: LayoutNode[], pos: Positions): string[] {
  const out: string[] = [];
  const sorted = [...nodes].sort((a, b) => pos[a.id]!.x - pos[b.id]!.x);
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    const pa = pos[a.id]!;
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j]!;
      const pb = pos[b.id]!;
      if (pb.x >= pa.x + a.width) break;
      if (pb.y < pa.y + a.height && pa.y < pb.y + b.height) out.push(`${a.id}/${b.id}`);
    }
  }
  return out;
}

describe('dagre layout', () => {
  it('gives top-left corners: a lone node sits at the origin', () => {
    expect(dagreLayout([node('a', 100, 40)], [], 'TB')).toEqual({ a: { x: 0, y: 0 } });
  });

  it('puts a downstream task below its upstream (TB) or to its right (LR)', () => {
    const { nodes, edges } = chain(3);
    const tb = dagreLayout(nodes, edges, 'TB');
    expect(tb.t1!.y).toBeGreaterThan(tb.t0!.y + 60);
    expect(tb.t2!.y).toBeGreaterThan(tb.t1!.y + 60);
    expect(tb.t0!.x).toBe(tb.t1!.x);
    const lr = dagreLayout(nodes, edges, 'LR');
    expect(lr.t1!.x).toBeGreaterThan(lr.t0!.x + 200);
    expect(lr.t0!.y).toBe(lr.t1!.y);
  });

  it("uses each node's measured size: siblings never overlap", () => {
    const nodes = [node('root'), node('wide', 400, 60), node('tall', 200, 200), node('small', 50, 20)];
    const edges = nodes.slice(1).map((n) => ({ source: 'root', target: n.id }));
    expect(overlaps(nodes, dagreLayout(nodes, edges, 'TB'))).toEqual([]);
    expect(overlaps(nodes, dagreLayout(nodes, edges, 'LR'))).toEqual([]);
  });

  it('a fresh graph per call: an earlier call leaves nothing behind', () => {
    dagreLayout([node('x'), node('y')], [{ source: 'x', target: 'y' }], 'TB');
    expect(Object.keys(dagreLayout([node('a')], [], 'TB'))).toEqual(['a']);
  });
});

describe('layered layout (big graphs)', () => {
  it('ranks along the edges and never overlaps, top-down and left-right', () => {
    const { nodes, edges } = layered(600);
    for (const dir of ['TB', 'LR'] as const) {
      const pos = layeredLayout(nodes, edges, dir);
      expect(Object.keys(pos)).toHaveLength(600);
      for (const e of edges) {
        if (dir === 'TB') expect(pos[e.target]!.y).toBeGreaterThan(pos[e.source]!.y);
        else expect(pos[e.target]!.x).toBeGreaterThan(pos[e.source]!.x);
      }
      expect(overlaps(nodes, pos)).toEqual([]);
    }
  });

  it('wraps a very wide rank (a thousand isolated tasks) into rows', () => {
    const nodes = Array.from({ length: 1000 }, (_, i) => node(`n${i}`));
    const pos = layeredLayout(nodes, [], 'TB', { maxPerRow: 40 });
    const xs = Object.values(pos).map((p) => p.x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(40 * 240);
    expect(new Set(Object.values(pos).map((p) => p.y)).size).toBe(25);
    expect(overlaps(nodes, pos)).toEqual([]);
  });

  it('pulls a root down next to the task it feeds', () => {
    const { nodes, edges } = chain(5);
    nodes.push(node('late'));
    edges.push({ source: 'late', target: 't4' });
    const pos = layeredLayout(nodes, edges, 'TB');
    expect(pos.late!.y).toBe(pos.t3!.y);
  });

  it('survives a cycle instead of looping forever', () => {
    const pos = layeredLayout(
      [node('a'), node('b'), node('c')],
      [
        { source: 'a', target: 'b' },
        { source: 'b', target: 'a' },
        { source: 'b', target: 'c' },
      ],
      'TB',
    );
    expect(Object.keys(pos).sort()).toEqual(['a', 'b', 'c']);
  });

  it('lays out 5,000 tasks in seconds, not minutes', () => {
    const { nodes, edges } = layered(5000);
    const t0 = performance.now();
    layeredLayout(nodes, edges, 'TB');
    // a guard against a quadratic step (dagre needs minutes here), not a benchmark: bench/ui-layout.ts times it
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('layoutGraph picks dagre for small graphs and a wrapped layered layout for wide big ones', () => {
    const small = chain(10);
    expect(layoutGraph(small.nodes, small.edges, 'TB')).toEqual(dagreLayout(small.nodes, small.edges, 'TB'));
    const big = layered(DAGRE_MAX_NODES + 50);
    const pos = layoutGraph(big.nodes, big.edges, 'LR');
    expect(overlaps(big.nodes, pos)).toEqual([]);
    expect(layoutGraph([], [], 'TB')).toEqual({});
  });

  it('wraps the ranks of a 150-task workflow so a fit of a page-wide box shows it 1.5× bigger than dagre', () => {
    const { nodes, edges } = layered(150);
    const dagre = fitScale(nodes, dagreLayout(nodes, edges, 'TB'), DEFAULT_ASPECT);
    const pos = layoutGraph(nodes, edges, 'TB');
    expect(fitScale(nodes, pos, DEFAULT_ASPECT)).toBeGreaterThan(dagre * 1.5);
    expect(overlaps(nodes, pos)).toEqual([]);
    // still layered: every task sits below each of its upstreams
    for (const e of edges) expect(pos[e.target]!.y).toBeGreaterThan(pos[e.source]!.y);
  });

  it('keeps dagre for a big graph that is already the right shape', () => {
    const { nodes, edges } = layered(WRAP_FROM + 20, 4);
    expect(layoutGraph(nodes, edges, 'TB')).toEqual(dagreLayout(nodes, edges, 'TB'));
  });

  it('fits the wrapping to the area: a tall box gets narrower rows than a wide one', () => {
    const { nodes, edges } = layered(300);
    const width = (pos: Positions) => {
      const xs = nodes.map((n) => pos[n.id]!.x);
      return Math.max(...xs) - Math.min(...xs);
    };
    const wide = fittedLayeredLayout(nodes, edges, 'TB', 3);
    const tall = fittedLayeredLayout(nodes, edges, 'TB', 0.5);
    expect(width(tall)).toBeLessThan(width(wide));
  });
});

describe('filterGraph (too large to draw)', () => {
  const nodes = [{ id: 'extract' }, { id: 'clean', text: 'python3 clean.py' }, { id: 'load' }, { id: 'other' }];
  const edges = [
    { source: 'extract', target: 'clean' },
    { source: 'clean', target: 'load' },
  ];

  it('keeps the matches and their direct neighbours, in input order', () => {
    expect(filterGraph(nodes, edges, 'CLEAN', 100)).toEqual({
      ids: ['extract', 'clean', 'load'],
      matches: 1,
      truncated: false,
    });
    expect(filterGraph(nodes, edges, 'python', 100).ids).toEqual(['extract', 'clean', 'load']);
    expect(filterGraph(nodes, edges, 'oth', 100)).toEqual({ ids: ['other'], matches: 1, truncated: false });
  });

  it('draws nothing for an empty query and says when it cut at the limit', () => {
    expect(filterGraph(nodes, edges, '  ', 100).ids).toEqual([]);
    expect(filterGraph(nodes, edges, 'clean', 2)).toEqual({ ids: ['extract', 'clean'], matches: 1, truncated: true });
  });
});

describe('cullGraph (big graphs on screen)', () => {
  const at = (id: string, x: number, y: number) => ({
    id,
    position: { x, y },
    data: {},
    initialWidth: 100,
    initialHeight: 50,
  });
  const nodes = [at('a', 0, 0), at('b', 0, 1000), at('c', 5000, 0), at('d', 20, 20)];
  const edges = [
    { id: 'a->b', source: 'a', target: 'b' },
    { id: 'c->b', source: 'c', target: 'b' },
  ];

  it('keeps the tasks on screen, the far ends of their edges, and nothing else', () => {
    const r = cullGraph(nodes, edges, { x: -10, y: -10, width: 300, height: 200 });
    expect(r.nodes.map((n) => n.id)).toEqual(['a', 'b', 'd']);
    expect(r.edges.map((e) => e.id)).toEqual(['a->b']);
  });

  it('always keeps selected or named tasks (a node being dragged off screen stays)', () => {
    const r = cullGraph(
      [...nodes.slice(0, 3), { ...at('d', 9000, 9000), selected: true }],
      edges,
      { x: -10, y: -10, width: 300, height: 200 },
      new Set(['c']),
    );
    expect(r.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(r.edges.map((e) => e.id)).toEqual(['a->b', 'c->b']);
  });

  it('turns a viewport into the flow rectangle it shows', () => {
    expect(viewRect({ x: -100, y: 50, zoom: 0.5 }, 800, 600)).toEqual({ x: 200, y: -100, width: 1600, height: 1200 });
    expect(grow({ x: 0, y: 0, width: 100, height: 10 }, 0.5)).toEqual({ x: -50, y: -5, width: 200, height: 20 });
  });
});

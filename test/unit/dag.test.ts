import { describe, expect, it } from 'vitest';
import {
  Adjacency,
  downstreamClosure,
  findCycle,
  isolated,
  taskOrder,
  topologicalOrder,
  type Edge,
} from '../../engine/core/model/dag.ts';

const downstreamMap = <K extends string | number>(e: readonly Edge<K>[]) => new Adjacency<K>('downstream').add(e).map;
const upstreamMap = <K extends string | number>(e: readonly Edge<K>[]) => new Adjacency<K>('upstream').add(e).map;

// extract → clean → load, extract → report; audit stands alone
const nodes = ['extract', 'clean', 'load', 'report', 'audit'];
const edges: Edge<string>[] = [
  ['extract', 'clean'],
  ['clean', 'load'],
  ['extract', 'report'],
];

describe('findCycle', () => {
  it('returns undefined for a DAG, including diamonds and shared downstream', () => {
    expect(findCycle(nodes, edges)).toBeUndefined();
    const diamond: Edge<string>[] = [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'd'],
      ['c', 'd'],
    ];
    expect(findCycle(['a', 'b', 'c', 'd'], diamond)).toBeUndefined();
    // visiting d from c after it was finished from b must not count as a cycle
    expect(findCycle(['d', 'c', 'b', 'a'], diamond)).toBeUndefined();
  });

  it('spells a two-node cycle with the first node repeated', () => {
    expect(
      findCycle(
        ['extract', 'clean'],
        [
          ['extract', 'clean'],
          ['clean', 'extract'],
        ],
      ),
    ).toEqual(['extract', 'clean', 'extract']);
  });

  it('is deterministic: starts from the nodes in the given order', () => {
    const cyc: Edge<string>[] = [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
    ];
    expect(findCycle(['a', 'b', 'c'], cyc)).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(['b', 'a', 'c'], cyc)).toEqual(['b', 'c', 'a', 'b']);
  });

  it('reports only the cycle, not the path that led into it', () => {
    const e: Edge<string>[] = [
      ['start', 'x'],
      ['x', 'y'],
      ['y', 'z'],
      ['z', 'x'],
    ];
    expect(findCycle(['start', 'x', 'y', 'z'], e)).toEqual(['x', 'y', 'z', 'x']);
  });

  it('finds a self-loop and a cycle reachable only through edge endpoints not listed', () => {
    expect(findCycle(['a'], [['a', 'a']])).toEqual(['a', 'a']);
    expect(
      findCycle(
        [],
        [
          ['p', 'q'],
          ['q', 'p'],
        ],
      ),
    ).toEqual(['p', 'q', 'p']);
  });

  it('works with numeric ids', () => {
    expect(
      findCycle(
        [1, 2, 3],
        [
          [1, 2],
          [2, 3],
          [3, 2],
        ],
      ),
    ).toEqual([2, 3, 2]);
    expect(
      findCycle(
        [1, 2, 3],
        [
          [1, 2],
          [2, 3],
        ],
      ),
    ).toBeUndefined();
  });

  it('handles a 100k-node chain without overflowing the stack', () => {
    const n = 100_000;
    const ids = Array.from({ length: n }, (_, i) => i);
    const chain: Edge<number>[] = ids.slice(1).map((i) => [i - 1, i]);
    expect(findCycle(ids, chain)).toBeUndefined();
    const closed: Edge<number>[] = [...chain, [n - 1, 0]];
    const cycle = findCycle(ids, closed);
    expect(cycle).toHaveLength(n + 1);
    expect(cycle?.[0]).toBe(0);
    expect(cycle?.[n - 1]).toBe(n - 1);
    expect(cycle?.[n]).toBe(0);
  });
});

describe('adjacency maps', () => {
  it('maps each node to its direct neighbours in edge order, without duplicates', () => {
    const down = downstreamMap([...edges, ['extract', 'clean']]);
    expect(down.get('extract')).toEqual(['clean', 'report']);
    expect(down.get('clean')).toEqual(['load']);
    expect(down.has('load')).toBe(false);
    const up = upstreamMap<string>([
      ['a', 'c'],
      ['b', 'c'],
      ['a', 'c'],
    ]);
    expect(up.get('c')).toEqual(['a', 'b']);
    expect(up.has('a')).toBe(false);
  });

  it('built from edges in parts, is the map of all of them at once, repeats across parts dropped', () => {
    const many: Edge<number>[] = Array.from({ length: 200 }, (_, i): Edge<number> => [i % 7, (i * 13) % 50]);
    const parts = new Adjacency<number>('downstream');
    for (let i = 0; i < many.length; i += 30) parts.add(many.slice(i, i + 30));
    expect(parts.map).toEqual(downstreamMap(many));
    expect(parts.map.get(0)).toEqual([...new Set(many.filter((e) => e[0] === 0).map((e) => e[1]))]);
  });
});

describe('isolated', () => {
  it('isolated nodes have no edge in either direction', () => {
    expect(isolated(nodes, edges)).toEqual(['audit']);
    expect(isolated(['a', 'b'], [['a', 'a']])).toEqual(['b']);
  });
});

describe('downstreamClosure', () => {
  it('returns every transitive downstream node, excluding the start', () => {
    const down = downstreamMap(edges);
    expect(downstreamClosure('extract', down)).toEqual(['clean', 'report', 'load']);
    expect(downstreamClosure('clean', down)).toEqual(['load']);
    expect(downstreamClosure('load', down)).toEqual([]);
  });

  it('visits shared downstream once and terminates on cycles without including the start', () => {
    const down = downstreamMap<string>([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'd'],
      ['c', 'd'],
      ['d', 'a'],
    ]);
    expect(downstreamClosure('a', down)).toEqual(['b', 'c', 'd']);
  });

  it('handles a 100k-node chain', () => {
    const n = 100_000;
    const down = downstreamMap(Array.from({ length: n - 1 }, (_, i): Edge<number> => [i, i + 1]));
    const all = downstreamClosure(0, down);
    expect(all).toHaveLength(n - 1);
    expect(all[n - 2]).toBe(n - 1);
  });
});

describe('topologicalOrder (the grid, the run views and ax export list tasks so)', () => {
  it('lists each depth in turn, ties by name, whatever order the tasks were added in', () => {
    // extract → clean → load, extract → report; audit stands alone
    expect(topologicalOrder(nodes, edges)).toEqual(['audit', 'extract', 'clean', 'report', 'load']);
    expect(topologicalOrder([...nodes].reverse(), [...edges].reverse())).toEqual([
      'audit',
      'extract',
      'clean',
      'report',
      'load',
    ]);
  });

  it('puts a task at its longest path from a root, so every upstream comes first', () => {
    // a → b → c and a → c: c is at depth 2, not 1
    expect(
      topologicalOrder(
        ['c', 'b', 'a'],
        [
          ['a', 'b'],
          ['b', 'c'],
          ['a', 'c'],
        ],
      ),
    ).toEqual(['a', 'b', 'c']);
  });

  it('orders names by code unit (the same on every machine), ignores unknown endpoints, puts a cycle last', () => {
    expect(topologicalOrder(['b', 'B', 'a'], [])).toEqual(['B', 'a', 'b']);
    expect(topologicalOrder(['x'], [['ghost', 'x']])).toEqual(['x']);
    expect(
      topologicalOrder(
        ['r', 'q', 'p'],
        [
          ['p', 'q'],
          ['q', 'p'],
        ],
      ),
    ).toEqual(['r', 'p', 'q']);
  });

  it("takes a workflow's tasks by their upstreams, and 100k of them in a chain without a deep stack", () => {
    expect(
      taskOrder([
        { name: 'load', upstream: ['clean'] },
        { name: 'clean', upstream: ['extract'] },
        { name: 'extract', upstream: [] },
      ]),
    ).toEqual(['extract', 'clean', 'load']);
    // a cycle (refused by the file checks) keeps the author's order, so the cycle is named as written
    expect(
      taskOrder([
        { name: 'z', upstream: ['y'] },
        { name: 'y', upstream: ['z'] },
      ]),
    ).toEqual(['z', 'y']);
    const n = 100_000;
    const chain = Array.from({ length: n }, (_, i) => ({
      name: `t${String(n - i).padStart(6, '0')}`,
      upstream: i === n - 1 ? [] : [`t${String(n - i - 1).padStart(6, '0')}`],
    }));
    const order = taskOrder(chain);
    expect(order[0]).toBe('t000001');
    expect(order[n - 1]).toBe(`t${n}`);
  });
});

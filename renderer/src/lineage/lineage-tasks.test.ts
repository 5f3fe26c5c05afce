import { describe, expect, it } from 'vitest';
import type { LineageGraph } from '../../../engine/api/engine-api.ts';
import { imageName, lineageTasks, ownersOf } from './lineage-tasks.ts';

const graph: LineageGraph = {
  focus: ['b.load'],
  nodes: [
    { id: 'a.extract', workflow: 'a', task: 'extract', owner: 'alice', state: 'SUCCESS', runId: 1 },
    { id: 'b.load', workflow: 'b', task: 'load', owner: 'bob', state: 'WAITING', runId: 2 },
    { id: 'c.report', workflow: 'c', task: 'report' },
    { id: 'later.*', workflow: 'later', missing: true },
  ],
  edges: [
    { from: 'a.extract', to: 'b.load', across: true, date: 'same_day' },
    { from: 'later.*', to: 'b.load', across: true, date: 'previous_day' },
    { from: 'b.load', to: 'c.report', across: true, date: 'same_day' },
  ],
};
const words = { noOwner: 'no owner', missing: 'not there yet', owner: (o: string) => `owner: ${o}` };

describe('lineageTasks', () => {
  it('one task per node, its upstreams from the edges, the owner as detail, today’s state', () => {
    expect(lineageTasks(graph, words)).toEqual([
      { name: 'a.extract', upstream: [], detail: 'owner: alice', state: 'SUCCESS' },
      { name: 'b.load', upstream: ['a.extract', 'later.*'], detail: 'owner: bob', state: 'WAITING' },
      { name: 'c.report', upstream: ['b.load'], detail: 'no owner' },
      { name: 'later.*', upstream: [], detail: 'not there yet' },
    ]);
  });
  it('owners with their nodes; a file name without odd characters', () => {
    expect([...ownersOf(graph)]).toEqual([
      ['alice', ['a.extract']],
      ['bob', ['b.load']],
    ]);
    expect(imageName('orders etl/x', 'svg')).toBe('lineage-orders_etl_x.svg');
  });
});

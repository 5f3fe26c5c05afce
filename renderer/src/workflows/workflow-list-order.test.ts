import { describe, expect, it } from 'vitest';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import { matchesText, parseSort, sortWorkflows } from './workflow-list-order.ts';

const wf = (name: string, extra: Partial<WorkflowListing> = {}): WorkflowListing => ({
  id: 1,
  name,
  enabled: true,
  version: 1,
  taskCount: 1,
  ...extra,
});
const run = (state: 'SUCCESS' | 'FAILED' | 'RUNNING') => ({ id: 1, state, logicalTime: 0 });

const list = [
  wf('billing', { owner: 'zoe', lastRun: run('SUCCESS'), nextFireAt: 300 }),
  wf('alpha', { owner: 'ann', description: 'Nightly warehouse load', lastRun: run('FAILED'), nextFireAt: 200 }),
  wf('ci', { lastRun: run('RUNNING') }),
  wf('dormant', { owner: 'bob', enabled: false, nextFireAt: 100 }),
];
const names = (l: WorkflowListing[]) => l.map((w) => w.name);

describe('the workflows list order', () => {
  it('filters on name, owner and description, every word', () => {
    expect(list.filter((w) => matchesText(w, 'WAREHOUSE')).map((w) => w.name)).toEqual(['alpha']);
    expect(list.filter((w) => matchesText(w, 'zoe')).map((w) => w.name)).toEqual(['billing']);
    expect(list.filter((w) => matchesText(w, 'ann nightly')).map((w) => w.name)).toEqual(['alpha']);
    expect(list.filter((w) => matchesText(w, 'ann zoe'))).toEqual([]);
    expect(list.filter((w) => matchesText(w, '  '))).toHaveLength(4);
  });

  it('sorts by the last run’s state, failures first, never-run last in both orders', () => {
    expect(names(sortWorkflows(list, 'lastRun', 'ascend'))).toEqual(['alpha', 'ci', 'billing', 'dormant']);
    expect(names(sortWorkflows(list, 'lastRun', 'descend'))).toEqual(['billing', 'ci', 'alpha', 'dormant']);
  });

  it('sorts by next fire, soonest first; a disabled workflow has none and goes last', () => {
    expect(names(sortWorkflows(list, 'nextFire', 'ascend'))).toEqual(['alpha', 'billing', 'ci', 'dormant']);
  });

  it('sorts by owner with the ownerless last, ties by name', () => {
    expect(names(sortWorkflows(list, 'owner', 'descend'))).toEqual(['billing', 'dormant', 'alpha', 'ci']);
    expect(names(sortWorkflows(list, 'name', 'descend'))).toEqual(['dormant', 'ci', 'billing', 'alpha']);
  });

  it('reads the sort from the address, name ascending for anything it does not know', () => {
    expect(parseSort('owner', 'descend')).toEqual({ key: 'owner', order: 'descend' });
    expect(parseSort('drop table', 'sideways')).toEqual({ key: 'name', order: 'ascend' });
  });
});

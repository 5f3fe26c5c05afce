import { describe, expect, it } from 'vitest';
import { dimmedBy, filterCounts, findMatches } from './state-filter.ts';

describe('state filter', () => {
  it('dims nothing under "all"', () => {
    expect(dimmedBy('all', 'SUCCESS')).toBe(false);
    expect(dimmedBy('all', undefined)).toBe(false);
  });

  it('keeps failures lit under "failed" (a timeout and an upstream failure too), dims the rest', () => {
    for (const s of ['FAILED', 'TIMEOUT', 'UPSTREAM_FAILED']) expect(dimmedBy('failed', s)).toBe(false);
    for (const s of ['SUCCESS', 'RUNNING', 'WAITING', 'SKIPPED', undefined]) expect(dimmedBy('failed', s)).toBe(true);
  });

  it('counts running as handed to a worker or running, waiting as WAITING', () => {
    expect(dimmedBy('running', 'DISPATCHED')).toBe(false);
    expect(dimmedBy('running', 'WAITING')).toBe(true);
    expect(dimmedBy('waiting', 'WAITING')).toBe(false);
    expect(filterCounts(['FAILED', 'RUNNING', 'WAITING', 'WAITING', 'SUCCESS', undefined])).toEqual({
      all: 6,
      failed: 1,
      running: 1,
      waiting: 2,
    });
  });
});

describe('findMatches', () => {
  it('finds by part of the name, any case, the exact name first', () => {
    expect(findMatches(['load_eu', 'extract', 'LOAD', 'reload'], 'load')).toEqual(['LOAD', 'load_eu', 'reload']);
  });

  it('finds nothing for a blank query', () => {
    expect(findMatches(['a'], '  ')).toEqual([]);
  });
});

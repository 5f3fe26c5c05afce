// The runs page's address: what a link or a hand-edited query string becomes, and back.
import { describe, expect, it } from 'vitest';
import { addDays, dayEnd, dayStart, parseRunsQuery, runFilterOf, runsQueryParams } from './run-filters.ts';

const parse = (search: string) => parseRunsQuery(new URLSearchParams(search));

describe('the runs query in the address', () => {
  it('round-trips every filter in one canonical order, without defaults', () => {
    const search =
      'view=day&state=FAILED,RUNNING&workflow=etl&owner=data&trigger=cron&from=2026-11-01&to=2026-11-30&range=365&day=2026-11-15';
    const query = parse(search);
    expect(query).toEqual({
      view: 'day',
      states: ['RUNNING', 'FAILED'],
      workflow: 'etl',
      owner: 'data',
      triggers: ['cron'],
      from: '2026-11-01',
      to: '2026-11-30',
      range: 365,
      day: '2026-11-15',
    });
    expect(parse(runsQueryParams(query).toString())).toEqual(query);
    expect(runsQueryParams(parse('')).toString()).toBe('');
  });

  it('drops what it cannot read rather than failing: unknown states, bad dates, ranges', () => {
    const query = parse(
      'view=grid&state=FAILED,NOPE&trigger=cosmic&from=2026-02-30&to=yesterday&range=12&day=2026-13-01',
    );
    expect(query).toMatchObject({ view: 'list', states: ['FAILED'], triggers: [], range: 30 });
    expect(query.from).toBeUndefined();
    expect(query.to).toBeUndefined();
    expect(query.day).toBeUndefined();
  });

  it('swaps a range written backwards', () => {
    expect(parse('from=2026-11-30&to=2026-11-01')).toMatchObject({ from: '2026-11-01', to: '2026-11-30' });
  });

  it('asks the engine for whole days of the viewer, the last one included', () => {
    const filter = runFilterOf(parse('from=2026-11-01&to=2026-11-02&state=FAILED'));
    expect(filter.from).toBe(dayStart('2026-11-01'));
    expect(filter.to).toBe(dayEnd('2026-11-02'));
    expect(filter.to).toBe(dayStart('2026-11-03'));
    expect(filter.states).toEqual(['FAILED']);
    expect(runFilterOf(parse('')).states).toBeUndefined();
  });

  it('steps days across month and year ends', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});

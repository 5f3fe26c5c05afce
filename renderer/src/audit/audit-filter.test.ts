import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../engine/api/types.ts';
import { distinct, filterAudit, filterFromParams, hasPeople, paramsOfFilter } from './audit-filter.ts';

const NOW = Date.UTC(2026, 11, 2, 12);
const entry = (id: number, minutesAgo: number, e: Partial<AuditEntry>): AuditEntry => ({
  id,
  at: NOW - minutesAgo * 60_000,
  actor: 'alice',
  action: 'apply',
  object: 'workflow:etl',
  ...e,
});
const entries = [
  entry(1, 60 * 48, { actor: 'bob', action: 'sign-in.fail', object: 'user:bob', role: null, address: '10.0.0.7' }),
  entry(2, 30, { role: 'editor', address: '10.0.0.8' }),
  entry(3, 5, { action: 'run', role: 'operator' }),
  entry(4, 2, { actor: 'bob', action: 'run', object: 'workflow:billing', detail: 'manual' }),
];

describe('the audit filters', () => {
  it('by person, action, since and text (role and address included), newest first', () => {
    const ids = (f: Parameters<typeof filterAudit>[1], of?: (n: string) => boolean) =>
      filterAudit(entries, f, of, NOW).map((e) => e.id);
    expect(ids({ text: '' })).toEqual([4, 3, 2, 1]);
    expect(ids({ text: '', user: 'bob' })).toEqual([4, 1]);
    expect(ids({ text: '', action: 'run' })).toEqual([4, 3]);
    expect(ids({ text: '', since: '1h' })).toEqual([4, 3, 2]);
    expect(ids({ text: '', since: '24h', user: 'bob' })).toEqual([4]);
    expect(ids({ text: '10.0.0.7' })).toEqual([1]);
    expect(ids({ text: 'EDITOR' })).toEqual([2]);
    expect(ids({ text: '' }, (name) => name === 'billing')).toEqual([4]);
  });

  it('round-trip through the address, ignoring what is not a filter', () => {
    const filter = { user: 'bob', action: 'run', text: 'x y', since: '7d' as const };
    const params = new URLSearchParams(paramsOfFilter(filter));
    expect(params.toString()).toBe('user=bob&action=run&q=x+y&since=7d');
    expect(filterFromParams(params)).toEqual(filter);
    expect(filterFromParams(new URLSearchParams('since=forever&other=1'))).toEqual({ text: '' });
  });

  it('offers the people and actions present, and shows role/address columns only when recorded', () => {
    expect(distinct(entries, 'actor')).toEqual(['alice', 'bob']);
    expect(distinct(entries, 'action')).toEqual(['apply', 'run', 'sign-in.fail']);
    expect(hasPeople(entries)).toBe(true);
    expect(hasPeople([entry(9, 1, { role: null, address: null }), entry(10, 1, {})])).toBe(false);
  });
});

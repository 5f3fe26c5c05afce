// `ax runs --owner/--trigger/--since/--until` become the runs page's filter; bad values say what to write.
import { describe, expect, it } from 'vitest';
import { runFilterOf } from '../../engine/hosts/cli/run-filter-options.ts';

describe('ax runs filter options', () => {
  it('reads dates as local days (until: the whole day) and ISO times as given', () => {
    expect(runFilterOf({ since: '2026-11-01', until: '2026-11-30' })).toEqual({
      owner: undefined,
      triggers: undefined,
      from: new Date(2026, 10, 1).getTime(),
      to: new Date(2026, 11, 1).getTime(),
    });
    expect(runFilterOf({ since: '2026-11-01T02:00:00Z' }).from).toBe(Date.parse('2026-11-01T02:00:00Z'));
  });

  it('takes owners and comma-separated triggers', () => {
    expect(runFilterOf({ owner: 'data', trigger: 'cron, manual' })).toMatchObject({
      owner: 'data',
      triggers: ['cron', 'manual'],
    });
  });

  it('names what is wrong and what to write instead', () => {
    expect(() => runFilterOf({ trigger: 'cron,nightly' })).toThrow(
      /--trigger: unknown nightly; use one or more of cron, manual/,
    );
    expect(() => runFilterOf({ since: 'yesterday' })).toThrow(/--since: expected a date \(2026-11-01\)/);
  });
});

// The window's ends as `ax backfill --from/--to` and the UI's fields take them (windowBound), and a
// backfill's logical times (backfillTimes): a date is its whole day in the schedule's zone, across
// a DST change too; an offset is exact; the fires in the window, oldest first, capped.
import { describe, expect, it } from 'vitest';
import { windowBound } from '../../engine/api/backfill.ts';
import { backfillTimes } from '../../engine/core/model/backfill-times.ts';

const ms = (r: { ms: number } | { error: string }) => ('ms' in r ? new Date(r.ms).toISOString() : r.error);

describe('windowBound', () => {
  it.each([
    ['2026-11-01', 'UTC', 'from', '2026-11-01T00:00:00.000Z'],
    ['2026-11-30', 'UTC', 'to', '2026-11-30T23:59:59.999Z'],
    ['2026-11-01', 'Europe/Berlin', 'from', '2026-10-31T23:00:00.000Z'],
    // the day summer time ends in Berlin has 25 hours
    ['2026-10-25', 'Europe/Berlin', 'to', '2026-10-25T22:59:59.999Z'],
    ['2026-10-25', 'Europe/Berlin', 'from', '2026-10-24T22:00:00.000Z'],
    ['2026-11-01T06:30', 'America/New_York', 'from', '2026-11-01T11:30:00.000Z'],
    ['2026-11-01T06:30:00Z', 'Asia/Tokyo', 'from', '2026-11-01T06:30:00.000Z'],
    ['2026-11-01T06:30:00+02:00', 'UTC', 'to', '2026-11-01T04:30:00.000Z'],
  ] as const)('%s in %s as %s is %s', (text, zone, end, want) => {
    expect(ms(windowBound(text, zone, end))).toBe(want);
  });

  it.each(['2026-02-30', 'yesterday', '2026-11-01T25:00', '11/01/2026', ''])(
    'refuses "%s", naming the field and the forms',
    (text) => {
      expect(ms(windowBound(text, 'UTC', 'from'))).toMatch(/^from: ".*" is not a date or time: write 2026-11-01/);
    },
  );
});

describe('backfillTimes', () => {
  const FROM = Date.UTC(2026, 10, 1);
  it("a schedule's fires in [from, to], both ends included, oldest first", () => {
    const times = backfillTimes({ cron: '0 */6 * * *', timezone: 'UTC', from: FROM, to: FROM + 86_400_000, cap: 100 });
    expect(times.map((t) => new Date(t).toISOString().slice(5, 13))).toEqual([
      '11-01T00',
      '11-01T06',
      '11-01T12',
      '11-01T18',
      '11-02T00',
    ]);
  });
  it('a step from `from`, capped; an empty window has none', () => {
    expect(backfillTimes({ everyMs: 3_600_000, from: FROM, to: FROM + 10 * 3_600_000, cap: 3 })).toEqual([
      FROM,
      FROM + 3_600_000,
      FROM + 7_200_000,
    ]);
    expect(backfillTimes({ everyMs: 1000, from: FROM, to: FROM - 1, cap: 3 })).toEqual([]);
  });
});

import { describe, it, expect } from 'vitest';
import { MISFIRE_LIMITS, planFires, type FirePlanInput } from '../../engine/core/model/misfire.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (times: number[]): string[] => times.map((t) => new Date(t).toISOString());
const S = (t: string): string => `2026-06-01T${t}.000Z`;

function plan(over: Partial<FirePlanInput>) {
  return planFires({
    cron: '0 * * * *',
    timezone: 'UTC',
    lastFireAt: at(S('12:00:00')),
    now: at(S('15:00:02')),
    lookAheadMs: 10_000,
    misfire: 'run_once',
    misfireThresholdMs: 5_000,
    maxCatchUp: 100,
    ...over,
  });
}

// The engine was down from just after the 12:00:00 fire until 15:00:02: three hours.
describe('an hourly cron after 3 hours down (15:00 is 2 s late, within the 5 s threshold)', () => {
  it('run_once runs the latest missed fire (14:00) and the on-time 15:00; 13:00 is dropped', () => {
    const p = plan({ misfire: 'run_once' });
    expect(iso(p.fireNow)).toEqual([S('14:00:00'), S('15:00:00')]);
    expect(p).toMatchObject({
      skipped: 1,
      skippedCapped: false,
      skippedEarliest: at(S('13:00:00')),
      skippedLatest: at(S('13:00:00')),
    });
    expect(p.upcoming).toEqual([]);
  });

  it('skip runs only the on-time fire', () => {
    const p = plan({ misfire: 'skip' });
    expect(iso(p.fireNow)).toEqual([S('15:00:00')]);
    expect(p).toMatchObject({
      skipped: 2,
      skippedCapped: false,
      skippedEarliest: at(S('13:00:00')),
      skippedLatest: at(S('14:00:00')),
    });
  });

  it('all runs every missed fire, oldest first', () => {
    const p = plan({ misfire: 'all' });
    expect(iso(p.fireNow)).toEqual([S('13:00:00'), S('14:00:00'), S('15:00:00')]);
    expect(p.skipped).toBe(0);
    expect(p.skippedLatest).toBeUndefined();
  });

  it('all keeps only the latest maxCatchUp missed fires', () => {
    const p = plan({ misfire: 'all', maxCatchUp: 1 });
    expect(iso(p.fireNow)).toEqual([S('14:00:00'), S('15:00:00')]);
    expect(p).toMatchObject({ skipped: 1, skippedLatest: at(S('13:00:00')) });
  });

  it('past the threshold the 15:00 fire is missed too, and run_once runs it alone', () => {
    const p = plan({ now: at(S('15:00:10')), misfire: 'run_once' });
    expect(iso(p.fireNow)).toEqual([S('15:00:00')]);
    expect(p).toMatchObject({ skipped: 2, skippedEarliest: at(S('13:00:00')), skippedLatest: at(S('14:00:00')) });
  });
});

// Every second: 10,796 missed fires (12:00:01 … 14:59:56) and 6 on time (14:59:57 … 15:00:02).
describe('an every-second cron after 3 hours down', () => {
  const cron = '* * * * * *';

  it('run_once: 14:59:56 plus the six on-time fires; the drop is counted up to the cap, not listed', () => {
    const p = plan({ cron, misfire: 'run_once' });
    expect(iso(p.fireNow)).toEqual([
      S('14:59:56'),
      S('14:59:57'),
      S('14:59:58'),
      S('14:59:59'),
      S('15:00:00'),
      S('15:00:01'),
      S('15:00:02'),
    ]);
    expect(p).toMatchObject({
      skipped: MISFIRE_LIMITS.maxCountedSkips,
      skippedCapped: true,
      skippedEarliest: at(S('12:00:01')),
      skippedLatest: at(S('14:59:55')),
    });
    expect(iso(p.upcoming)).toEqual(Array.from({ length: 10 }, (_, i) => S(`15:00:${String(3 + i).padStart(2, '0')}`)));
  });

  it('skip: only the on-time fires', () => {
    const p = plan({ cron, misfire: 'skip' });
    expect(iso(p.fireNow)).toEqual([
      S('14:59:57'),
      S('14:59:58'),
      S('14:59:59'),
      S('15:00:00'),
      S('15:00:01'),
      S('15:00:02'),
    ]);
    expect(p).toMatchObject({ skippedCapped: true, skippedLatest: at(S('14:59:56')) });
  });

  it('all: the latest maxCatchUp missed fires, ascending, then the on-time ones', () => {
    const p = plan({ cron, misfire: 'all', maxCatchUp: 100 });
    expect(p.fireNow).toHaveLength(106);
    expect(p.fireNow[0]).toBe(at(S('14:58:17')));
    expect(p.fireNow[105]).toBe(at(S('15:00:02')));
    for (let i = 1; i < p.fireNow.length; i++)
      expect((p.fireNow[i] as number) - (p.fireNow[i - 1] as number)).toBe(1000);
    expect(p).toMatchObject({ skippedCapped: true, skippedLatest: at(S('14:58:16')) });
  });

  it('a threshold that spans more fires than maxOnTime starts only the newest ones and catches up nothing', () => {
    const p = plan({ cron, misfire: 'run_once', misfireThresholdMs: 3_600_000 });
    expect(p.fireNow).toHaveLength(MISFIRE_LIMITS.maxOnTime);
    expect(p.fireNow[0]).toBe(at(S('14:58:23')));
    expect(p.fireNow.at(-1)).toBe(at(S('15:00:02')));
    expect(p.skippedLatest).toBe(at(S('14:58:22')));
  });
});

describe('on time and upcoming', () => {
  it('a fire exactly threshold old is on time; 1 ms older is missed', () => {
    const base = { cron: '0 12 * * *', lastFireAt: at('2026-05-31T12:00:00Z'), misfire: 'skip' as const };
    expect(iso(plan({ ...base, now: at(S('12:00:05')) }).fireNow)).toEqual([S('12:00:00')]);
    const late = plan({ ...base, now: at('2026-06-01T12:00:05.001Z') });
    expect(late.fireNow).toEqual([]);
    expect(late).toMatchObject({ skipped: 1, skippedLatest: at(S('12:00:00')) });
  });

  it('a fire at exactly now runs now; upcoming holds (now, now + lookAhead]', () => {
    const p = plan({
      cron: '*/5 * * * * *',
      lastFireAt: at(S('11:59:55')),
      now: at(S('12:00:00')),
      lookAheadMs: 10_000,
    });
    expect(iso(p.fireNow)).toEqual([S('12:00:00')]);
    expect(iso(p.upcoming)).toEqual([S('12:00:05'), S('12:00:10')]);
    expect(p.skipped).toBe(0);
  });

  it('never replans a fire at or before lastFireAt', () => {
    const p = plan({
      cron: '*/5 * * * * *',
      lastFireAt: at(S('12:00:05')),
      now: at(S('12:00:02')),
      lookAheadMs: 10_000,
    });
    expect(p.fireNow).toEqual([]);
    expect(iso(p.upcoming)).toEqual([S('12:00:10')]);
  });

  it('upcoming is empty when the next fire is beyond the look-ahead', () => {
    const p = plan({ cron: '0 * * * *', lastFireAt: at(S('12:00:00')), now: at(S('12:30:00')) });
    expect(p).toEqual({ fireNow: [], upcoming: [], skipped: 0, skippedCapped: false });
  });
});

describe('across a DST change', () => {
  it("run_once after downtime over Berlin's repeated hour runs the single 02:30, not its repeat", () => {
    const p = plan({
      cron: '30 2 * * *',
      timezone: 'Europe/Berlin',
      lastFireAt: at('2026-10-24T00:30:00Z'),
      now: at('2026-10-25T01:40:00Z'),
    });
    expect(iso(p.fireNow)).toEqual(['2026-10-25T00:30:00.000Z']);
    expect(p.skipped).toBe(0);
  });

  it("all over New York's spring change catches up the 02:30 that moved to 03:30 EDT", () => {
    const p = plan({
      cron: '30 2 * * *',
      timezone: 'America/New_York',
      misfire: 'all',
      lastFireAt: at('2026-03-06T07:30:00Z'),
      now: at('2026-03-08T12:00:00Z'),
    });
    expect(iso(p.fireNow)).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-08T07:30:00.000Z']);
  });
});

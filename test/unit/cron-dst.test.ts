import { describe, it, expect } from 'vitest';
import { firesBetween, nextFire, prevFire } from '../../engine/core/model/cron.ts';
import { utcOffsetMs } from '../../engine/core/model/cron-walk.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (times: number[]): string[] => times.map((t) => new Date(t).toISOString());
/** Fire times by chaining nextFire, as a scheduler that remembers only its last fire would. */
function chain(expr: string, tz: string, from: string, until: string): string[] {
  const out: number[] = [];
  for (let t = nextFire(expr, tz, at(from)); t <= at(until); t = nextFire(expr, tz, t)) out.push(t);
  return iso(out);
}

describe('DST: autumn, the repeated hour', () => {
  it('a daily 02:30 in Berlin fires once, at the first 02:30 (CEST)', () => {
    const expected = ['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'];
    expect(chain('30 2 * * *', 'Europe/Berlin', '2026-10-23T12:00:00Z', '2026-10-26T12:00:00Z')).toEqual(expected);
    expect(
      iso(firesBetween('30 2 * * *', 'Europe/Berlin', at('2026-10-23T12:00:00Z'), at('2026-10-26T12:00:00Z'), 10)),
    ).toEqual(expected);
  });

  it('does not fire the second 02:30 when asked from inside the repeated hour (raw cron-parser does)', () => {
    expect(nextFire('30 2 * * *', 'Europe/Berlin', at('2026-10-25T01:10:00Z'))).toBe(at('2026-10-26T01:30:00Z'));
    expect(nextFire('*/20 2 * * *', 'Europe/Berlin', at('2026-10-25T01:05:00Z'))).toBe(at('2026-10-26T01:00:00Z'));
    expect(prevFire('30 2 * * *', 'Europe/Berlin', at('2026-10-25T01:45:00Z'))).toBe(at('2026-10-25T00:30:00Z'));
  });

  it('a restricted hour runs only its first pass; every-20-minutes in hour 2 fires 3 times, not 6', () => {
    expect(
      iso(firesBetween('*/20 2 * * *', 'Europe/Berlin', at('2026-10-24T23:00:00Z'), at('2026-10-25T03:00:00Z'), 10)),
    ).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-25T00:20:00.000Z', '2026-10-25T00:40:00.000Z']);
  });

  it('an hourly cron fires at every distinct UTC hour, so local 02:00 runs twice', () => {
    const expected = [
      '2026-10-24T23:00:00.000Z',
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T02:00:00.000Z',
      '2026-10-25T03:00:00.000Z',
    ];
    expect(chain('0 * * * *', 'Europe/Berlin', '2026-10-24T22:00:00Z', '2026-10-25T03:00:00Z')).toEqual(expected);
    expect(chain('0 * * * *', 'America/New_York', '2026-11-01T03:00:00Z', '2026-11-01T08:00:00Z')).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T08:00:00.000Z',
    ]);
  });

  it('a daily 01:30 in New York fires once, at 01:30 EDT', () => {
    expect(chain('30 1 * * *', 'America/New_York', '2026-10-30T12:00:00Z', '2026-11-02T12:00:00Z')).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    expect(nextFire('30 1 * * *', 'America/New_York', at('2026-11-01T06:10:00Z'))).toBe(at('2026-11-02T06:30:00Z'));
  });

  it('an every-second cron crosses the change one real second at a time', () => {
    expect(
      iso(firesBetween('* * * * * *', 'Europe/Berlin', at('2026-10-25T00:59:58Z'), at('2026-10-25T02:00:00Z'), 3)),
    ).toEqual(['2026-10-25T00:59:59.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T01:00:01.000Z']);
  });
});

describe('DST: spring, the skipped hour', () => {
  it('a daily 02:30 in Berlin fires at 03:30 CEST on the day 02:30 does not exist (cron-parser moves it to the landing hour)', () => {
    const expected = ['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z'];
    expect(chain('30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', '2026-03-30T12:00:00Z')).toEqual(expected);
    expect(
      iso(firesBetween('30 2 * * *', 'Europe/Berlin', at('2026-03-27T12:00:00Z'), at('2026-03-30T12:00:00Z'), 10)),
    ).toEqual(expected);
  });

  it('keeps the moved fire when asked from inside the landing hour (raw cron-parser loses it)', () => {
    expect(nextFire('30 2 * * *', 'Europe/Berlin', at('2026-03-29T01:10:00Z'))).toBe(at('2026-03-29T01:30:00Z'));
    expect(prevFire('30 2 * * *', 'Europe/Berlin', at('2026-03-29T01:45:00Z'))).toBe(at('2026-03-29T01:30:00Z'));
  });

  it('an hourly cron has no fire for the missing local hour and no gap in UTC', () => {
    expect(chain('0 * * * *', 'Europe/Berlin', '2026-03-28T23:00:00Z', '2026-03-29T02:00:00Z')).toEqual([
      '2026-03-29T00:00:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-29T02:00:00.000Z',
    ]);
    expect(chain('0 * * * *', 'America/New_York', '2026-03-08T05:00:00Z', '2026-03-08T08:00:00Z')).toEqual([
      '2026-03-08T06:00:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T08:00:00.000Z',
    ]);
  });

  it('a daily 02:30 in New York fires at 03:30 EDT on the change day', () => {
    expect(chain('30 2 * * *', 'America/New_York', '2026-03-06T12:00:00Z', '2026-03-09T12:00:00Z')).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:30:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
  });

  it('02:30 and 03:30 both land on 03:30 CEST and fire once there', () => {
    expect(
      iso(firesBetween('30 2,3 * * *', 'Europe/Berlin', at('2026-03-28T12:00:00Z'), at('2026-03-29T12:00:00Z'), 10)),
    ).toEqual(['2026-03-29T01:30:00.000Z']);
  });
});

describe('DST: the answer does not depend on where the walk starts', () => {
  const days: Array<[string, string, string]> = [
    ['Europe/Berlin', '2026-10-24T22:00:00Z', '2026-10-25T04:00:00Z'],
    ['Europe/Berlin', '2026-03-28T22:00:00Z', '2026-03-29T04:00:00Z'],
    ['America/New_York', '2026-11-01T03:00:00Z', '2026-11-01T09:00:00Z'],
    ['America/New_York', '2026-03-08T04:00:00Z', '2026-03-08T10:00:00Z'],
  ];
  const exprs = ['30 2 * * *', '0 * * * *', '*/20 1-3 * * *', '45 0-4 * * *'];

  it.each(days)(
    '%s %s: nextFire and prevFire from every 10 minutes agree with one continuous walk',
    (tz, from, until) => {
      for (const expr of exprs) {
        const walk = firesBetween(expr, tz, at(from) - 86_400_000, at(until) + 86_400_000, 500);
        for (let i = 1; i < walk.length; i++) expect(walk[i]).toBeGreaterThan(walk[i - 1] as number);
        for (let x = at(from); x <= at(until); x += 10 * 60_000) {
          expect(nextFire(expr, tz, x), `${expr} next after ${new Date(x).toISOString()}`).toBe(
            walk.find((t) => t > x),
          );
          expect(prevFire(expr, tz, x), `${expr} prev at ${new Date(x).toISOString()}`).toBe(
            [...walk].reverse().find((t) => t <= x),
          );
        }
      }
    },
  );
});

describe('DST: 30-minute changes (Australia/Lord_Howe)', () => {
  const tz = 'Australia/Lord_Howe';

  it.each([
    ['10 22 * * *', '2028-03-25T00:00:00Z', '2028-04-10T00:00:00Z'],
    ['14 23 4,16 * 3', '2021-01-01T00:00:00Z', '2021-12-31T00:00:00Z'],
    ['2,58 6 * * *', '2020-03-28T00:00:00Z', '2020-04-10T00:00:00Z'],
  ])('%s keeps firing across the changes (it threw "no fire time" before)', (expr, from, until) => {
    const fires = chain(expr, tz, from, until);
    expect(fires.length).toBeGreaterThan(3);
    expect(firesBetween(expr, tz, at(from), at(until), 10_000).map((t) => new Date(t).toISOString())).toEqual(fires);
  });

  it('a daily 22:10 fires on every day, before and after the autumn change', () => {
    expect(chain('10 22 * * *', tz, '2028-03-31T00:00:00Z', '2028-04-03T12:00:00Z')).toEqual([
      '2028-03-31T11:10:00.000Z', // +11
      '2028-04-01T11:10:00.000Z', // +11
      '2028-04-02T11:40:00.000Z', // +10:30 from 02:00 on 2 April
      '2028-04-03T11:40:00.000Z',
    ]);
  });

  it('autumn: 01:45 happens twice and fires once, the first time; every 15 minutes with hour * runs both passes', () => {
    // 2028-04-02: 02:00 (+11) = 2028-04-01T15:00Z goes back to 01:30 (+10:30).
    expect(iso(firesBetween('45 1 * * *', tz, at('2028-04-01T12:00:00Z'), at('2028-04-02T12:00:00Z'), 10))).toEqual([
      '2028-04-01T14:45:00.000Z',
    ]);
    expect(iso(firesBetween('*/15 * * * *', tz, at('2028-04-01T14:20:00Z'), at('2028-04-01T15:50:00Z'), 10))).toEqual([
      '2028-04-01T14:30:00.000Z', // 01:30 (+11)
      '2028-04-01T14:45:00.000Z', // 01:45 (+11)
      '2028-04-01T15:00:00.000Z', // 01:30 again (+10:30)
      '2028-04-01T15:15:00.000Z', // 01:45 again
      '2028-04-01T15:30:00.000Z', // 02:00
      '2028-04-01T15:45:00.000Z',
    ]);
  });

  it('spring: 02:10 does not exist and fires half an hour later, at 02:40, once with a real 02:40', () => {
    // 2028-10-01: 02:00 (+10:30) = 2028-09-30T15:30Z jumps to 02:30 (+11).
    expect(iso(firesBetween('10 2 * * *', tz, at('2028-09-30T00:00:00Z'), at('2028-10-01T12:00:00Z'), 10))).toEqual([
      '2028-09-30T15:40:00.000Z',
    ]);
    expect(iso(firesBetween('10,40 2 * * *', tz, at('2028-09-30T12:00:00Z'), at('2028-10-01T00:00:00Z'), 10))).toEqual([
      '2028-09-30T15:40:00.000Z',
    ]);
    expect(iso(firesBetween('*/10 * * * *', tz, at('2028-09-30T15:15:00Z'), at('2028-09-30T15:45:00Z'), 10))).toEqual([
      '2028-09-30T15:20:00.000Z', // 01:50 (+10:30)
      '2028-09-30T15:30:00.000Z', // 02:30 (+11): 02:00-02:20 do not exist
      '2028-09-30T15:40:00.000Z',
    ]);
  });
});

describe('every zone of the tz database', () => {
  const zones = Intl.supportedValuesOf('timeZone');
  const FROM = at('2025-01-01T00:00:00Z');
  const UNTIL = at('2027-01-01T00:00:00Z');

  /** Instants in [FROM, UNTIL] where the zone's offset changes (weekly samples, then bisection). */
  function changes(tz: string): number[] {
    const off = (t: number) => utcOffsetMs(tz, t);
    const out: number[] = [];
    for (let t = FROM; t < UNTIL; t += 7 * 86_400_000) {
      if (off(t) === off(t + 7 * 86_400_000)) continue;
      let lo = t;
      let hi = t + 7 * 86_400_000;
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (off(mid) === off(lo)) lo = mid;
        else hi = mid;
      }
      out.push(hi);
    }
    return out;
  }

  it('daily, hourly and every-10-minute crons fire around every offset change of 2025-2026, in order, never stopping', () => {
    expect(zones.length).toBeGreaterThan(300);
    let checked = 0;
    for (const tz of zones) {
      for (const change of changes(tz)) {
        checked++;
        for (const expr of ['10 22 * * *', '30 2 * * *', '0 0 * * *', '45 1,2,3 * * *', '0 * * * *', '*/10 * * * *']) {
          const from = change - 2 * 86_400_000;
          const until = change + 2 * 86_400_000;
          const fires = firesBetween(expr, tz, from, until, 10_000);
          const disorder = fires.findIndex((t, i) => i > 0 && t <= (fires[i - 1] as number));
          if (disorder >= 0)
            expect.fail(
              `${expr} ${tz}: fire ${disorder} is not after the one before: ${iso(fires.slice(disorder - 1, disorder + 1))}`,
            );
          // a daily cron fires on each of the four days; faster ones never leave a gap of more than a day
          const daily = /^\d+ \d+ \* \* \*$/.test(expr);
          if (daily && fires.length < 3)
            expect.fail(`${expr} ${tz} around ${new Date(change).toISOString()}: ${iso(fires)}`);
          if (!(nextFire(expr, tz, until) > until))
            expect.fail(`${expr} ${tz}: no fire after ${new Date(until).toISOString()}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

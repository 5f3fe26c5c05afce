import { describe, it, expect } from 'vitest';
import {
  describeCron,
  firesBetween,
  nextFire,
  prevFire,
  validateCron,
  validateTimezone,
} from '../../engine/core/model/cron.ts';
import { utcOffsetMs } from '../../engine/core/model/cron-walk.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (times: number[]): string[] => times.map((t) => new Date(t).toISOString());
/** Fire times by chaining nextFire, as a scheduler that remembers only its last fire would. */
function chain(expr: string, tz: string, from: string, until: string): string[] {
  const out: number[] = [];
  for (let t = nextFire(expr, tz, at(from)); t <= at(until); t = nextFire(expr, tz, t)) out.push(t);
  return iso(out);
}

describe('validateCron', () => {
  it('accepts 5 fields, 6 fields with seconds first, names, L, # and the aliases cron-parser knows', () => {
    for (const expr of [
      '0 2 * * *',
      '*/15 9-17 * * MON-FRI',
      '30 0 2 * * *',
      '0 0 L * *',
      '0 0 * * 1#1',
      '0 0 * * 5L',
      '0 0 1 JAN *',
      '0 0 * * THU',
      '? * * * *',
      '  0   2 * * *  ',
      '@daily',
      '@hourly',
      '@WEEKDAYS',
      '0 0 29 2 *',
    ]) {
      expect(validateCron(expr), expr).toBeUndefined();
    }
  });

  it('names the field that is out of range and the range it accepts', () => {
    expect(validateCron('0 25 * * *')).toBe('hour field "25" is out of range: use 0-23');
    expect(validateCron('60 * * * *')).toBe('minute field "60" is out of range: use 0-59');
    expect(validateCron('61 0 2 * * *')).toBe('second field "61" is out of range: use 0-59');
    expect(validateCron('0 0 32 * *')).toBe('day-of-month field "32" is out of range: use 1-31');
    expect(validateCron('0 0 0 * *')).toBe('day-of-month field "0" is out of range: use 1-31');
    expect(validateCron('0 0 * 13 *')).toBe('month field "13" is out of range: use 1-12');
    expect(validateCron('0 0 * * 8')).toBe('day-of-week field "8" is out of range: use 0-7 (0 and 7 are Sunday)');
    expect(validateCron('0 1,25 * * *')).toBe('hour field "1,25": 25 is out of range: use 0-23');
    expect(validateCron('0 0 1-40 * *')).toBe('day-of-month field "1-40" is out of range: use 1-31');
  });

  it('says what a field accepts when its syntax is wrong', () => {
    expect(validateCron('x * * * *')).toBe(
      'minute field "x" is not valid: use 0-59, * (any), lists (1,15), ranges (1-5) or steps (*/5)',
    );
    expect(validateCron('0 0 * FOO *')).toBe(
      'month field "FOO" is not valid: use 1-12, JAN-DEC, * (any), lists (1,15), ranges (1-5) or steps (*/5)',
    );
    expect(validateCron('0 0 LW * *')).toMatch(/^day-of-month field "LW" is not valid: use 1-31, L \(last day\)/);
    expect(validateCron('*/0 * * * *')).toBe('minute field "*/0": a step must be 1 or more, e.g. */5');
    expect(validateCron('0 17-9 * * *')).toBe(
      'hour field "17-9": the range 17-9 runs backwards: write the smaller value first',
    );
    expect(validateCron('0 0 * * 1#6')).toBe(
      'day-of-week field "1#6": the number after # must be 1-5, e.g. 1#2 for the second Monday',
    );
  });

  it('refuses H, whose random value would change the schedule on every parse', () => {
    expect(validateCron('H 2 * * *')).toBe(
      'minute field "H" uses H (a random value chosen anew on every parse): write a fixed value instead',
    );
    expect(validateCron('0 H(0-5) * * *')).toMatch(/^hour field "H\(0-5\)" uses H/);
  });

  it('refuses other field counts, empty text and unknown aliases', () => {
    const hint = '5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first';
    // cron-parser itself would accept 4 fields (and an empty string) by filling in defaults.
    expect(validateCron('0 2 * *')).toBe(`cron "0 2 * *" has 4 fields: write ${hint}`);
    expect(validateCron('0 0 2 * * * 2026')).toBe(`cron "0 0 2 * * * 2026" has 7 fields: write ${hint}`);
    expect(validateCron('daily')).toBe(`cron "daily" has 1 field: write ${hint}`);
    expect(validateCron('   ')).toBe(`the cron expression is empty: write ${hint}, e.g. "0 2 * * *"`);
    expect(validateCron('@reboot')).toMatch(
      /^unknown cron alias "@reboot": use one of @yearly, .*@weekends, or write 5 fields/,
    );
  });

  it('refuses a date that never occurs', () => {
    expect(validateCron('0 0 30 2 *')).toBe(
      'cron "0 0 30 2 *" never fires: day-of-month "30" does not occur in month "2"',
    );
  });
});

describe('validateTimezone', () => {
  it('accepts IANA names and refuses unknown ones with an example', () => {
    expect(validateTimezone('Europe/Berlin')).toBeUndefined();
    expect(validateTimezone('UTC')).toBeUndefined();
    expect(validateTimezone('America/New_York')).toBeUndefined();
    expect(validateTimezone('Mars/Base')).toBe(
      'unknown time zone "Mars/Base": use an IANA name such as "Europe/Berlin" or "UTC"',
    );
    expect(validateTimezone('')).toBe('unknown time zone "": use an IANA name such as "Europe/Berlin" or "UTC"');
  });
});

describe('nextFire and firesBetween', () => {
  it('returns the first fire strictly after the given instant', () => {
    expect(nextFire('0 2 * * *', 'UTC', at('2026-06-01T01:59:59.999Z'))).toBe(at('2026-06-01T02:00:00Z'));
    expect(nextFire('0 2 * * *', 'UTC', at('2026-06-01T02:00:00Z'))).toBe(at('2026-06-02T02:00:00Z'));
    expect(nextFire('*/10 * * * * *', 'UTC', at('2026-06-01T00:00:05.500Z'))).toBe(at('2026-06-01T00:00:10Z'));
    expect(nextFire('@hourly', 'UTC', at('2026-06-01T00:30:00Z'))).toBe(at('2026-06-01T01:00:00Z'));
  });

  it("reads the fields in the schedule's time zone", () => {
    expect(nextFire('0 2 * * *', 'Europe/Berlin', at('2026-06-01T00:30:00Z'))).toBe(at('2026-06-02T00:00:00Z'));
    expect(nextFire('0 2 * * *', 'America/New_York', at('2026-06-01T00:30:00Z'))).toBe(at('2026-06-01T06:00:00Z'));
    expect(nextFire('0 9 * * 1', 'Asia/Tokyo', at('2026-06-01T00:30:00Z'))).toBe(at('2026-06-08T00:00:00Z'));
  });

  it('throws the validation message for an invalid expression or zone', () => {
    expect(() => nextFire('0 25 * * *', 'UTC', 0)).toThrow('hour field "25" is out of range: use 0-23');
    expect(() => nextFire('0 2 * *', 'UTC', 0)).toThrow('has 4 fields');
    expect(() => nextFire('0 2 * * *', 'Mars/Base', 0)).toThrow('unknown time zone "Mars/Base"');
  });

  it('returns the earliest `cap` fires, ascending, in (after, until]', () => {
    const from = at('2026-06-01T00:00:00Z');
    expect(iso(firesBetween('* * * * * *', 'UTC', from, from + 3 * 3_600_000, 3))).toEqual([
      '2026-06-01T00:00:01.000Z',
      '2026-06-01T00:00:02.000Z',
      '2026-06-01T00:00:03.000Z',
    ]);
    expect(iso(firesBetween('0 */6 * * *', 'UTC', from, at('2026-06-01T18:00:00Z'), 100))).toEqual([
      '2026-06-01T06:00:00.000Z',
      '2026-06-01T12:00:00.000Z',
      '2026-06-01T18:00:00.000Z',
    ]);
    expect(firesBetween('0 */6 * * *', 'UTC', from, at('2026-06-01T05:59:59Z'), 100)).toEqual([]);
    expect(firesBetween('* * * * * *', 'UTC', from, from + 60_000, 0)).toEqual([]);
  });
});

describe('prevFire', () => {
  it('returns the latest fire at or before the instant', () => {
    expect(prevFire('0 2 * * *', 'UTC', at('2026-06-02T02:00:00Z'))).toBe(at('2026-06-02T02:00:00Z'));
    expect(prevFire('0 2 * * *', 'UTC', at('2026-06-02T01:59:59Z'))).toBe(at('2026-06-01T02:00:00Z'));
    expect(prevFire('* * * * * *', 'UTC', at('2026-06-01T00:00:00.999Z'))).toBe(at('2026-06-01T00:00:00Z'));
  });
});

// Berlin leaves summer time on 2026-10-25 at 01:00Z (03:00 CEST → 02:00 CET) and enters it on
// 2026-03-29 at 01:00Z (02:00 CET → 03:00 CEST). New York: 2026-11-01 06:00Z and 2026-03-08 07:00Z.
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

describe('describeCron', () => {
  it('words the schedule and names the time zone', () => {
    expect(describeCron('0 2 * * *', 'Europe/Berlin')).toBe('At 02:00 (Europe/Berlin)');
    expect(describeCron('*/5 * * * * *', 'UTC')).toBe('Every 5 seconds (UTC)');
    expect(describeCron('0 9 * * MON-FRI', 'UTC')).toBe('At 09:00, Monday through Friday (UTC)');
  });

  it('handles what cronstrue alone does not: cron-parser aliases and ?', () => {
    expect(describeCron('@weekdays', 'UTC')).toBe('At 00:00, Monday through Friday (UTC)');
    expect(describeCron('0 2 ? * *', 'UTC')).toBe('At 02:00 (UTC)');
  });

  it('falls back to the expression instead of throwing', () => {
    expect(describeCron('0 25 * * *', 'UTC')).toBe('0 25 * * * (UTC)');
    expect(describeCron('', 'Mars/Base')).toBe(' (Mars/Base)');
  });
});

// Lord Howe Island shifts by 30 minutes: summer time (+11) ends on the first Sunday of April at
// 02:00 (back to 01:30, +10:30) and starts on the first Sunday of October at 02:00 (on to 02:30).
// cron-parser's own iterator loops out at these changes; a schedule must not stop there.
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

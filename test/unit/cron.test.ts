import { describe, it, expect } from 'vitest';
import {
  describeCron,
  firesBetween,
  nextFire,
  prevFire,
  validateCron,
  validateTimezone,
} from '../../engine/core/model/cron.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (times: number[]): string[] => times.map((t) => new Date(t).toISOString());

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

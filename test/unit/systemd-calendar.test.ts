// systemd calendar events (OnCalendar=) as AX crons: the forms people write give the cron a person
// would write; what cron cannot say is refused with the reason. The event's own evaluator (its
// fires walked in the zone, not through a cron) is checked against croner, an independent cron
// implementation, on the cron the event became, across zones and start instants away from DST
// changes; around a change, the walk's own rules are pinned by hand.
import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { calendarToCron, parseCalendar, type CalendarSpec } from '../../engine/core/import/systemd-calendar.ts';
import { calendarFires } from '../../engine/core/import/systemd-calendar-fires.ts';
import { utcOffsetMs } from '../../engine/core/model/cron-walk.ts';

const spec = (text: string): CalendarSpec => {
  const s = parseCalendar(text);
  if (typeof s === 'string') throw new Error(`${text}: ${s}`);
  return s;
};

const CASES: [string, string, string?][] = [
  ['minutely', '* * * * *'],
  ['hourly', '0 * * * *'],
  ['daily', '0 0 * * *'],
  ['weekly', '0 0 * * 1'],
  ['monthly', '0 0 1 * *'],
  ['yearly', '0 0 1 1 *'],
  ['annually', '0 0 1 1 *'],
  ['quarterly', '0 0 1 */3 *'],
  ['semiannually', '0 0 1 1,7 *'],
  ['Daily', '0 0 * * *'],
  ['Mon..Fri 09:00', '0 9 * * 1-5'],
  ['Mon,Wed *-*-* 10:00:00', '0 10 * * 1,3'],
  ['Sat..Mon 08:00', '0 8 * * 0,1,6'],
  ['Monday,Friday 7:30', '30 7 * * 1,5'],
  ['*-*-* 02:00:00', '0 2 * * *'],
  ['*-*-01 00:00', '0 0 1 * *'],
  ['*-*-* 6,18:00', '0 6,18 * * *'],
  ['08,20:00', '0 8,20 * * *'],
  ['*:0/15', '*/15 * * * *'],
  ['*-*-* *:00/30:00', '0,30 * * * *'],
  ['*:5/20', '5-45/20 * * * *'],
  ['*-*-* 1..5:00', '0 1-5 * * *'],
  ['*-*-* 0/6:00', '0 */6 * * *'],
  ['12-25 06:00', '0 6 25 12 *'],
  ['*-02,08-15 12:00', '0 12 15 2,8 *'],
  ['*-*-* 03:10:30', '30 10 3 * * *'],
  ['*-*-* *:*:0/20', '*/20 * * * * *'],
  ['daily Europe/Berlin', '0 0 * * *', 'Europe/Berlin'],
  ['Mon..Fri 09:00 America/New_York', '0 9 * * 1-5', 'America/New_York'],
  ['*-*-* 02:00:00 UTC', '0 2 * * *', 'UTC'],
];

describe('OnCalendar= as a cron', () => {
  it.each(CASES)('%s → %s', (text, cron, zone) => {
    const s = spec(text);
    expect(calendarToCron(s)).toBe(cron);
    expect(s.timezone).toBe(zone);
  });

  it.each([
    ['2026-*-* 00:00', /names years \(2026\)/],
    ['*-02~03 00:00', /end of the month \("~"\)/],
    ['*-*-* 00:00:01.5', /fractions of a second/],
    [
      'Mon *-*-01 00:00',
      /both weekdays and days of the month: systemd fires only when both match, cron when either does/,
    ],
    ['Funday 09:00', /"Funday" is not a weekday/],
    ['*-*-* 25:00', /out of range for a hour \(0..23\)/],
    ['*:0/0', /a step of 0 never moves/],
    ['*-*-* 9:00 Mars/Olympus', /the zone "Mars\/Olympus"/],
    ['now', /a point in time, not a repeating event/],
    ['@1700000000', /a point in time/],
    ['', /empty/],
  ])('refuses %j, saying why', (text, reason) => {
    const s = parseCalendar(text);
    expect(typeof s).toBe('string');
    expect(s).toMatch(reason);
  });
});

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'America/St_Johns'];

function cronerFires(expr: string, tz: string, after: number, count: number): number[] {
  const job = new Cron(expr, { timezone: tz, paused: true });
  const out: number[] = [];
  let d: Date | null = new Date(after);
  while (out.length < count && (d = job.nextRun(d))) out.push(d.getTime());
  return out;
}

const nearChange = (tz: string, t: number) => utcOffsetMs(tz, t - 3 * 3_600_000) !== utcOffsetMs(tz, t + 3 * 3_600_000);

describe('the event evaluator against croner', () => {
  it('gives the same next fires as croner on the cron, away from DST changes, in six zones from 40 instants', () => {
    const differences: string[] = [];
    let compared = 0;
    for (const [text] of CASES) {
      const s = spec(text);
      const cron = calendarToCron(s);
      for (const tz of ZONES) {
        for (let k = 0; k < 40; k += 7) {
          const after = Date.UTC(2026, 0, 1) + k * 9_876_543_210 + (k % 3) * 61_000;
          const zone = s.timezone ?? tz;
          // a wall time a DST change skips: croner fires after the gap, systemd (and the walk) not at all;
          // near a change both are dropped, and compared up to where both lists reach
          const theirAll = cronerFires(cron, zone, after, 5);
          const ourAll = calendarFires(s, zone, after, 5);
          const until = Math.min(theirAll.at(-1) ?? 0, ourAll.at(-1) ?? 0);
          const theirs = theirAll.filter((t) => t <= until && !nearChange(zone, t));
          const ours = ourAll.filter((t) => t <= until && !nearChange(zone, t));
          if (theirAll.length === 0 || ourAll.length === 0) differences.push(`${text} in ${zone}: no fires`);
          compared++;
          if (JSON.stringify(ours) !== JSON.stringify(theirs))
            differences.push(`${text} in ${zone} after ${new Date(after).toISOString()}`);
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(differences).toEqual([]);
  });

  it('walks Mon..Fri 09:00 in Berlin: skips the weekend, follows the zone', () => {
    const fri = Date.parse('2026-06-05T10:00:00Z'); // Friday 12:00 in Berlin
    expect(
      calendarFires(spec('Mon..Fri 09:00'), 'Europe/Berlin', fri, 3).map((t) => new Date(t).toISOString()),
    ).toEqual(['2026-06-08T07:00:00.000Z', '2026-06-09T07:00:00.000Z', '2026-06-10T07:00:00.000Z']);
  });

  it('a spring-forward never shows the wall time it skips, and a fall-back fires its repeated time once', () => {
    // Berlin 2026-03-29: 02:00 → 03:00; 2026-10-25: 03:00 → 02:00
    const spring = calendarFires(spec('*-*-* 02:30:00'), 'Europe/Berlin', Date.parse('2026-03-27T12:00:00Z'), 3);
    expect(spring.map((t) => new Date(t).toISOString())).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
      '2026-03-31T00:30:00.000Z',
    ]);
    const fall = calendarFires(spec('*-*-* 02:30:00'), 'Europe/Berlin', Date.parse('2026-10-24T12:00:00Z'), 2);
    expect(fall.map((t) => new Date(t).toISOString())).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('finds a yearly event, and none for 31 February', () => {
    expect(calendarFires(spec('yearly'), 'UTC', Date.parse('2026-01-01T00:00:00Z'), 2)).toEqual([
      Date.parse('2027-01-01T00:00:00Z'),
      Date.parse('2028-01-01T00:00:00Z'),
    ]);
    expect(calendarFires(spec('*-02-31 00:00'), 'UTC', Date.parse('2026-01-01T00:00:00Z'), 1)).toEqual([]);
  });
});

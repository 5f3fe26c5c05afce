// cron's own fire times (crontab-fires.ts) and AX's (model/cron.ts) checked against an independent
// cron implementation, croner, in five zones on ordinary days and on DST days. Where Vixie cron and
// croner differ, the comment says which is Vixie's and the test asserts what Vixie does.
import { Cron } from 'croner';
import { describe, expect, test } from 'vitest';
import { nextCronFires, offsetChanges } from '../../engine/core/import/crontab-fires.ts';
import { type CronSets, parseSchedule } from '../../engine/core/import/crontab-grammar.ts';
import { nextAxFires } from '../../engine/core/import/crontab-schedule.ts';
import { dateMatcher } from '../../engine/core/model/cron.ts';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata'];
const HOUR = 3_600_000;

function sets(expr: string): CronSets {
  const s = parseSchedule(expr.split(' '));
  if (typeof s === 'string') throw new Error(s);
  return s;
}

/** croner's next fires: cron's day rule (AND when a day field starts with *), Vixie's fixed-time rule. */
function croner(expr: string, zone: string, after: number, count: number, domAndDow: boolean): number[] {
  const c = new Cron(expr, { timezone: zone, domAndDow, fixedTimeRule: 'no-wildcard', mode: '5-part' });
  return c.nextRuns(count, new Date(after)).map((d) => d.getTime());
}
const vixieAnd = (expr: string) => {
  const s = sets(expr);
  return s.domStar || s.dowStar;
};

/** Starting points: an ordinary day, and a day before each of the zone's clock changes in 2027. */
function starts(zone: string): number[] {
  const year = [Date.UTC(2027, 0, 1), Date.UTC(2028, 0, 1)] as const;
  return [Date.UTC(2027, 5, 10, 7, 13), ...offsetChanges(zone, year[0], year[1]).map((c) => c - 5 * HOUR)];
}

// Lines whose fires croner and Vixie agree on, DST days included.
const AGREED = [
  '*/15 * * * *',
  '0 2 * * *',
  '30 2 * * *',
  '15 2 * * *',
  '30 1 * * *',
  '5 0 * * *',
  '0 22 * * 1-5',
  '30 4 1,15 * 5',
  '0 0 */2 * 1',
  '0 12 1 * *',
  '0 */6 * * *',
  '45 1 * * sun',
  '* 2 * * *',
  '0 0 29 2 *',
  '17 * * * *',
  '59 23 31 12 *',
];

describe("cron's fires against croner", () => {
  for (const zone of ZONES)
    test.each(AGREED)(`${zone}: %s`, (expr) => {
      for (const start of starts(zone)) {
        const count = expr === '0 0 29 2 *' ? 3 : 12;
        expect(nextCronFires(sets(expr), zone, start, count)).toEqual(croner(expr, zone, start, count, vixieAnd(expr)));
      }
    });

  test('a job in a skipped stretch, fixed-time under Vixie: at the change, once per skipped time', () => {
    // Europe/Berlin 2027-03-28: 02:00 → 03:00 (01:00Z). Vixie runs each skipped minute's jobs right
    // after the change (cron.c, "time has moved forward a small amount"), so 02:00 and 02:30 both
    // run at the change. croner runs times that meet at the gap's end once: Vixie's is asserted.
    const change = Date.UTC(2027, 2, 28, 1);
    const fires = nextCronFires(sets('0,30 2 * * *'), 'Europe/Berlin', change - 5 * HOUR, 3);
    expect(fires).toEqual([change, change, Date.UTC(2027, 2, 29, 0)]);
    expect(croner('0,30 2 * * *', 'Europe/Berlin', change - 5 * HOUR, 2, false)).toEqual([
      change,
      Date.UTC(2027, 2, 29, 0),
    ]);
  });

  test('a stepped hour without * is a fixed-time job to Vixie (its field does not start with *), an interval job to croner', () => {
    // Vixie's wildcard test is the first character only (MIN_STAR/HR_STAR): `0-23/2` is fixed-time,
    // so at the spring change its 02:23 runs at the change; croner skips it as an interval job.
    const change = Date.UTC(2027, 2, 28, 1);
    const vixie = nextCronFires(sets('23 0-23/2 * * *'), 'Europe/Berlin', change - HOUR, 2);
    expect(vixie).toEqual([change, Date.UTC(2027, 2, 28, 2, 23)]);
    expect(croner('23 0-23/2 * * *', 'Europe/Berlin', change - HOUR, 1, false)).toEqual([Date.UTC(2027, 2, 28, 2, 23)]);
    // In the repeated hour of autumn (2027-10-31, 02:00-02:59 twice from 00:00Z) Vixie runs it once.
    const back = Date.UTC(2027, 9, 31, 1);
    expect(nextCronFires(sets('23 0-23/2 * * *'), 'Europe/Berlin', back - 2 * HOUR, 2)).toEqual([
      Date.UTC(2027, 9, 31, 0, 23),
      Date.UTC(2027, 9, 31, 3, 23),
    ]);
  });

  test('a wildcard job runs in both passes of a repeated hour and not in a skipped one', () => {
    const back = Date.UTC(2027, 10, 7, 6); // America/New_York 2027-11-07 02:00 EDT → 01:00 EST
    const fires = nextCronFires(sets('*/30 1 * * *'), 'America/New_York', back - 2 * HOUR, 4);
    expect(fires).toEqual([back - HOUR, back - HOUR / 2, back, back + HOUR / 2]);
    const spring = Date.UTC(2027, 2, 14, 7); // 02:00 EST → 03:00 EDT
    expect(nextCronFires(sets('*/30 2 * * *'), 'America/New_York', spring - 2 * HOUR, 1)).toEqual([
      Date.UTC(2027, 2, 15, 6),
    ]);
  });

  test('Lord Howe changes by 30 minutes: a skipped 02:15 runs at the change (02:30)', () => {
    const [change] = offsetChanges('Australia/Lord_Howe', Date.UTC(2027, 8, 1), Date.UTC(2027, 11, 1));
    expect(change).toBeDefined();
    const fires = nextCronFires(sets('15 2 * * *'), 'Australia/Lord_Howe', (change as number) - 5 * HOUR, 1);
    expect(fires).toEqual([change]);
  });
});

describe("AX's fires against croner", () => {
  // AX ORs the day fields unless one is the literal `*` (cron-parser), which is croner's default.
  for (const zone of ZONES)
    test.each(AGREED.filter((e) => !['30 2 * * *', '15 2 * * *', '* 2 * * *'].includes(e)))(`${zone}: %s`, (expr) => {
      for (const start of starts(zone)) {
        const count = expr === '0 0 29 2 *' ? 3 : 12;
        expect(nextAxFires(expr, zone, start, count)).toEqual(croner(expr, zone, start, count, false));
      }
    });

  test('AX runs a skipped fixed time one shift later (cron-walk.ts), where cron and croner run it at the change', () => {
    const change = Date.UTC(2027, 2, 28, 1);
    expect(nextAxFires('30 2 * * *', 'Europe/Berlin', change - HOUR, 1)).toEqual([change + HOUR / 2]);
    expect(nextCronFires(sets('30 2 * * *'), 'Europe/Berlin', change - HOUR, 1)).toEqual([change]);
    expect(croner('30 2 * * *', 'Europe/Berlin', change - HOUR, 1, false)).toEqual([change]);
  });

  test('AX ORs `*/2` with a day of the week; cron ANDs them (its DOM_STAR rule), as croner does when told', () => {
    const from = Date.UTC(2027, 5, 1);
    const ax = nextAxFires('0 0 */2 * 1', 'UTC', from, 3);
    const vixie = nextCronFires(sets('0 0 */2 * 1'), 'UTC', from, 3);
    expect(ax).toEqual(croner('0 0 */2 * 1', 'UTC', from, 3, false));
    expect(vixie).toEqual(croner('0 0 */2 * 1', 'UTC', from, 3, true));
    expect(ax).not.toEqual(vixie);
    // Vixie: odd days that are Mondays only.
    for (const t of vixie) expect([new Date(t).getUTCDay(), new Date(t).getUTCDate() % 2]).toEqual([1, 1]);
  });

  test("AX's date matcher (what the import checks a rewrite with) applies AX's day rule", () => {
    const or = dateMatcher('0 0 */2 * 1');
    expect([or(2027, 6, 14), or(2027, 6, 15), or(2027, 6, 16), or(2027, 7, 1)]).toEqual([true, true, false, true]);
    const dowOnly = dateMatcher('0 0 * jan-mar 1');
    expect([dowOnly(2027, 3, 1), dowOnly(2027, 3, 2), dowOnly(2027, 4, 5)]).toEqual([true, false, false]);
  });
});

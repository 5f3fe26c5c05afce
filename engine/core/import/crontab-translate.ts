// A crontab line's schedule as an AX cron expression, only where AX means exactly what cron does.
// AX's cron (model/cron.ts, cron-parser's fields) differs from Vixie cron in one day rule: it ORs
// day-of-month and day-of-week whenever neither is the literal `*`, where cron ANDs them as soon as
// either starts with `*` (`*/2` too). Fields are rewritten to what AX reads the same way, and the
// result is checked against cron's own sets (crontab-fires.ts) date by date over a 28-year cycle.
import { CronExpressionParser } from 'cron-parser';
import { dateMatcher, firesBetween } from '../model/cron.ts';
import { cronDayMatches } from './crontab-fires.ts';
import { type CronSets, FIELD_RULES } from './crontab-grammar.ts';

const DAY_MS = 86_400_000;
/** Weekdays and leap years repeat every 28 years between 1901 and 2099: one cycle checks every date kind. */
const CYCLE_FROM = Date.UTC(2001, 0, 1);
const CYCLE_TO = Date.UTC(2029, 0, 1);

/** A set as the shortest plain text: `*`, `*\/n`, ranges and lists. */
function setText(set: readonly number[], low: number, high: number): string {
  const size = high - low + 1;
  if (set.length === size) return '*';
  for (let step = 2; step <= size / 2; step++) {
    const expected: number[] = [];
    for (let v = low; v <= high; v += step) expected.push(v);
    if (expected.length === set.length && expected.every((v, i) => set[i] === v)) return `*/${step}`;
  }
  const parts: string[] = [];
  for (let i = 0; i < set.length;) {
    let j = i;
    while (j + 1 < set.length && (set[j + 1] as number) === (set[j] as number) + 1) j++;
    const [a, b] = [set[i] as number, set[j] as number];
    if (j - i >= 2) parts.push(`${a}-${b}`);
    else for (let k = i; k <= j; k++) parts.push(String(set[k]));
    i = j + 1;
  }
  return parts.join(',');
}

/** The values cron-parser reads from one field (position 1-5 of a 6-field expression), or undefined. */
function axValues(index: number, text: string): number[] | undefined {
  const key = `${index} ${text}`;
  if (!valuesMemo.has(key)) {
    if (valuesMemo.size >= 1000) valuesMemo.clear();
    valuesMemo.set(key, readValues(index, text));
  }
  return valuesMemo.get(key);
}

const valuesMemo = new Map<string, number[] | undefined>();
const daysMemo = new Map<string, string | undefined>();

function readValues(index: number, text: string): number[] | undefined {
  const probe = ['0', '*', '*', '*', '*', '*'];
  probe[index + 1] = text;
  try {
    const f = CronExpressionParser.parse(probe.join(' '), { tz: 'UTC' }).fields;
    const field = [f.minute, f.hour, f.dayOfMonth, f.month, f.dayOfWeek][index];
    const values = (field?.values ?? []) as readonly unknown[];
    const numbers = values.filter((v): v is number => typeof v === 'number').map((v) => (index === 4 ? v % 7 : v));
    return [...new Set(numbers)].sort((a, b) => a - b);
  } catch {
    return undefined;
  }
}

/** The field as written when AX reads it as the same set (names, steps: kept for the words), else plain text. */
function fieldText(index: number, raw: string, set: readonly number[]): string {
  const same = axValues(index, raw);
  if (raw !== '*' && same && same.length === set.length && same.every((v, i) => set[i] === v)) return raw;
  const rule = FIELD_RULES[index] as (typeof FIELD_RULES)[number];
  return setText(set, rule.low, index === 4 ? 6 : rule.high);
}

/** The AX cron expression meaning exactly the line's schedule, or why there is none. */
export function translateSchedule(fields: readonly string[], sets: CronSets): { cron: string } | { reason: string } {
  const [m = '*', h = '*', dom = '*', mon = '*', dow = '*'] = fields;
  const domFull = sets.doms.length === 31;
  const dowFull = sets.dows.length === 7;
  const domText = fieldText(2, dom, sets.doms);
  const dowText = fieldText(4, dow, sets.dows);
  let days: [string, string];
  if (sets.domStar || sets.dowStar) {
    // cron: both must match.
    if (domFull) days = ['*', dowFull ? '*' : dowText];
    else if (dowFull) days = [domText, '*'];
    else
      return {
        reason:
          `cron runs it only on days matching both day-of-month "${dom}" and day-of-week "${dow}" ` +
          `(a day field starting with "*" makes cron require both), and AX's cron runs a schedule on days matching ` +
          `either when both are restricted: no AX schedule means the same. Schedule it on day-of-week "${dow}" ` +
          `and test the day of the month in the command, or use one day field only`,
      };
  } else {
    // cron: either may match; a full field matches every day.
    days = domFull || dowFull ? ['*', '*'] : [domText, dowText];
  }
  const cron = [
    fieldText(0, m, sets.minutes),
    fieldText(1, h, sets.hours),
    days[0],
    fieldText(3, mon, sets.months),
    days[1],
  ].join(' ');
  const problem = differsFromCron(cron, sets);
  return problem ? { reason: `AX's cron "${cron}" would not run it when cron does: ${problem}` } : { cron };
}

/** undefined when AX's `cron` fires at the same times of day on the same dates as cron's sets. */
function differsFromCron(cron: string, sets: CronSets): string | undefined {
  const [m, h, dom, mon, dow] = cron.split(' ');
  const times = firesBetween(`${m} ${h} * * *`, 'UTC', CYCLE_FROM - 1, CYCLE_FROM + DAY_MS - 1, 1440).map(
    (t) => (t - CYCLE_FROM) / 60_000,
  );
  const expected = sets.hours.flatMap((hour) => sets.minutes.map((minute) => hour * 60 + minute));
  if (times.length !== expected.length || times.some((t, i) => t !== expected[i])) return 'its minutes or hours differ';
  const key = `${dom} ${mon} ${dow}|${sets.doms.join()}|${sets.months.join()}|${sets.dows.join()}|${sets.domStar}${sets.dowStar}`;
  if (!daysMemo.has(key)) {
    if (daysMemo.size >= 1000) daysMemo.clear();
    daysMemo.set(key, daysDiffer(`0 0 ${dom} ${mon} ${dow}`, sets));
  }
  return daysMemo.get(key);
}

/** The first date of the cycle on which AX's `days` and cron's sets disagree, said in words. */
function daysDiffer(days: string, sets: CronSets): string | undefined {
  const axRuns = dateMatcher(days);
  for (let day = CYCLE_FROM; day < CYCLE_TO; day += DAY_MS) {
    const d = new Date(day);
    const [y, m, dd] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
    const cronRuns = cronDayMatches(sets, y, m, dd);
    if (cronRuns !== axRuns(y, m, dd))
      return `on ${d.toISOString().slice(0, 10)} ${cronRuns ? 'cron runs it and AX would not' : 'AX would run it and cron does not'}`;
  }
  return undefined;
}

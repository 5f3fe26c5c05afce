// Cron for the scheduler: validation that says what to fix (cron-parser parses the fields), and
// fire times that are strictly increasing, DST-consistent and the same from whichever instant a
// caller starts (cron-walk.ts computes them; its header states the DST rules).
import { CronExpressionParser } from 'cron-parser';
import type { CronFieldCollection } from 'cron-parser';
import cronstrue from 'cronstrue';
import { type CronFields, fireTimesAfter, lastFireAtOrBefore } from './cron-walk.ts';

/** A fixed start for validation, so a message never depends on today's date. */
const VALIDATION_START = Date.UTC(2024, 0, 1);
const FIELD_COUNT_HINT = '5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first';

// cron-parser's predefined expressions (it does not export its table).
const ALIASES: Record<string, string> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
  '@minutely': '0 * * * * *',
  '@secondly': '* * * * * *',
  '@weekdays': '0 0 0 * * 1-5',
  '@weekends': '0 0 0 * * 0,6',
};

type FieldInfo = { name: string; range: string; extra?: string };

const FIELDS: readonly FieldInfo[] = [
  { name: 'second', range: '0-59' },
  { name: 'minute', range: '0-59' },
  { name: 'hour', range: '0-23' },
  { name: 'day-of-month', range: '1-31', extra: 'L (last day)' },
  { name: 'month', range: '1-12', extra: 'JAN-DEC' },
  { name: 'day-of-week', range: '0-7 (0 and 7 are Sunday)', extra: 'SUN-SAT, 5L (last Friday), 1#2 (second Monday)' },
];

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The six fields (seconds first) of an expression, or a message saying what is wrong. */
function sixFields(expr: string): string[] | string {
  const text = expr.trim();
  if (text === '') return `the cron expression is empty: write ${FIELD_COUNT_HINT}, e.g. "0 2 * * *"`;
  if (text.startsWith('@')) {
    const expansion = ALIASES[text.toLowerCase()];
    if (expansion) return expansion.split(' ');
    return `unknown cron alias "${text}": use one of ${Object.keys(ALIASES).join(', ')}, or write ${FIELD_COUNT_HINT}`;
  }
  const fields = text.split(/\s+/);
  if (fields.length === 5) return ['0', ...fields];
  if (fields.length === 6) return fields;
  return `cron "${text}" has ${fields.length} field${fields.length === 1 ? '' : 's'}: write ${FIELD_COUNT_HINT}`;
}

function accepted(info: FieldInfo): string {
  return `${info.range}${info.extra ? `, ${info.extra}` : ''}, * (any), lists (1,15), ranges (1-5) or steps (*/5)`;
}

function fieldProblem(info: FieldInfo, text: string, err: string): string {
  const where = `${info.name} field "${text}"`;
  const outOfRange = /got (?:value|range) (\S+) expected range/.exec(err);
  if (outOfRange?.[1] && !outOfRange[1].includes('NaN')) {
    const bad = outOfRange[1];
    return bad === text
      ? `${where} is out of range: use ${info.range}`
      : `${where}: ${bad} is out of range: use ${info.range}`;
  }
  if (/every 0/.test(err)) return `${where}: a step must be 1 or more, e.g. */5`;
  const backwards = /Invalid range: (\S+), min/.exec(err);
  if (backwards?.[1]) return `${where}: the range ${backwards[1]} runs backwards: write the smaller value first`;
  if (/occurrence number/.test(err)) return `${where}: the number after # must be 1-5, e.g. 1#2 for the second Monday`;
  return `${where} is not valid: use ${accepted(info)}`;
}

function checkField(index: number, text: string): string | undefined {
  const info = FIELDS[index] as FieldInfo;
  // cron-parser's H picks a random value on every parse, so each call would see another schedule.
  if (/H/i.test(text.replace(/THU/gi, ''))) {
    return `${info.name} field "${text}" uses H (a random value chosen anew on every parse): write a fixed value instead`;
  }
  const probe = ['*', '*', '*', '*', '*', '*'];
  probe[index] = text;
  try {
    CronExpressionParser.parse(probe.join(' '), { currentDate: VALIDATION_START, tz: 'UTC' });
    return undefined;
  } catch (err) {
    return fieldProblem(info, text, messageOf(err));
  }
}

/** undefined when `expr` is a usable cron expression; otherwise a message saying what to fix. */
export function validateCron(expr: string): string | undefined {
  const fields = sixFields(expr);
  if (typeof fields === 'string') return fields;
  for (let i = 0; i < fields.length; i++) {
    const problem = checkField(i, fields[i] as string);
    if (problem) return problem;
  }
  try {
    CronExpressionParser.parse(fields.join(' '), { currentDate: VALIDATION_START, tz: 'UTC' }).next();
    return undefined;
  } catch (err) {
    const message = messageOf(err);
    if (/day of month/.test(message)) {
      return `cron "${expr.trim()}" never fires: day-of-month "${fields[3]}" does not occur in month "${fields[4]}"`;
    }
    if (/loop limit/.test(message)) return `cron "${expr.trim()}" never fires: no date matches all of its fields`;
    return `cron "${expr.trim()}" is not valid: ${message}`;
  }
}

/** undefined when `tz` is an IANA time zone this runtime knows; otherwise a message. */
export function validateTimezone(tz: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return undefined;
  } catch {
    return `unknown time zone "${tz}": use an IANA name such as "Europe/Berlin" or "UTC"`;
  }
}

// Parsed fields by expression: parsing costs far more than a walk, and the scheduler asks
// about the same few expressions over and over.
const parsedFields = new Map<string, CronFields>();
const MAX_PARSED = 500;

const daysInMonth = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/**
 * cron-parser's day rules (its CronExpression#matchDayOfMonth), on a plain date: day-of-month
 * and day-of-week both restricted → either may match (Vixie cron); L, nth (#) and last (5L).
 */
function dayMatcher(fields: CronFieldCollection): CronFields['dayMatches'] {
  const dom = fields.dayOfMonth;
  const dow = fields.dayOfWeek;
  const numbers = (values: readonly unknown[]) => new Set(values.filter((v): v is number => typeof v === 'number'));
  const domValues = numbers(dom.values);
  const dowValues = numbers(dow.values);
  const lastWeekdays = new Set((dow.values as readonly unknown[]).map((v) => parseInt(String(v).charAt(0), 10) % 7));
  const nth = dow.nthDay;
  return (y, m, d) => {
    const last = daysInMonth(y, m);
    const weekday = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
    const matchedDom = domValues.has(d) || (dom.hasLastChar && d === last);
    const matchedDow =
      (dowValues.has(weekday) && (nth <= 0 || Math.ceil(d / 7) === nth)) ||
      (dow.hasLastChar && d > last - 7 && lastWeekdays.has(weekday));
    if (!dom.isWildcard && !dow.isWildcard) return matchedDom || matchedDow;
    if (!dom.isWildcard) return matchedDom;
    if (!dow.isWildcard) return matchedDow;
    return true;
  };
}

function parse(expr: string, tz: string): CronFields {
  const fields = sixFields(expr);
  if (typeof fields === 'string') throw new Error(fields);
  const invalid = validateTimezone(tz);
  if (invalid) throw new Error(invalid);
  const key = fields.join(' ');
  let parsed = parsedFields.get(key);
  if (!parsed) {
    let collection: CronFieldCollection;
    try {
      collection = CronExpressionParser.parse(key, { tz: 'UTC' }).fields;
    } catch (err) {
      throw new Error(validateCron(expr) ?? `cron "${expr}": ${messageOf(err)}`);
    }
    const numbers = (values: readonly unknown[]) =>
      values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
    parsed = {
      seconds: numbers(collection.second.values),
      minutes: numbers(collection.minute.values),
      hours: numbers(collection.hour.values),
      months: numbers(collection.month.values),
      dayMatches: dayMatcher(collection),
    };
    if (parsedFields.size >= MAX_PARSED) parsedFields.clear();
    parsedFields.set(key, parsed);
  }
  return parsed;
}

// First fire after an instant, remembered: a scheduler asks "anything due since lastFireAt?" on
// every scan with the same lastFireAt.
const firstAfterMemo = new Map<string, number | null>();
const MAX_MEMO = 2_000;

function firstAfter(expr: string, tz: string, after: number): number | undefined {
  const key = `${expr}\u0000${tz}\u0000${after}`;
  let value = firstAfterMemo.get(key);
  if (value === undefined) {
    const first = fireTimesAfter(parse(expr, tz), tz, after).next();
    value = first.done ? null : first.value;
    if (firstAfterMemo.size >= MAX_MEMO) firstAfterMemo.clear();
    firstAfterMemo.set(key, value);
  }
  return value ?? undefined;
}

/** The first fire time strictly after `after` (epoch ms). Throws if the cron never fires again. */
export function nextFire(expr: string, timezone: string, after: number): number {
  const first = firstAfter(expr, timezone, after);
  if (first === undefined)
    throw new Error(`cron "${expr}" in ${timezone} has no fire time after ${new Date(after).toISOString()}`);
  return first;
}

/** Fire times in (afterExclusive, untilInclusive], ascending: the earliest `cap` of them. */
export function firesBetween(
  expr: string,
  timezone: string,
  afterExclusive: number,
  untilInclusive: number,
  cap: number,
): number[] {
  const out: number[] = [];
  if (cap <= 0 || untilInclusive <= afterExclusive) return out;
  const first = firstAfter(expr, timezone, afterExclusive);
  if (first === undefined || first > untilInclusive) return out;
  // Fires are a set (see cron-walk.ts), so resuming just before `first` is exact.
  for (const t of fireTimesAfter(parse(expr, timezone), timezone, first - 1)) {
    if (t > untilInclusive) break;
    out.push(t);
    if (out.length >= cap) break;
  }
  return out;
}

/** Whether a schedule runs on a local date (month 1-12), by its month and day fields under AX's day rule. */
export function dateMatcher(expr: string): (year: number, month: number, day: number) => boolean {
  const fields = parse(expr, 'UTC');
  const months = new Set(fields.months);
  return (year, month, day) => months.has(month) && fields.dayMatches(year, month, day);
}

/** The latest fire time at or before `atOrBefore`, or undefined if there is none. */
export function prevFire(expr: string, timezone: string, atOrBefore: number): number | undefined {
  return lastFireAtOrBefore(parse(expr, timezone), timezone, atOrBefore);
}

/**
 * Human words for a schedule, e.g. "At 02:00 (Europe/Berlin)": 24-hour time, like every time the
 * CLI and the UI print beside it. Never throws.
 */
export function describeCron(expr: string, timezone: string): string {
  try {
    const fields = sixFields(expr);
    if (typeof fields === 'string' || validateCron(expr)) return `${expr} (${timezone})`;
    // cronstrue knows neither cron-parser's aliases nor `?`; the normalised fields avoid both.
    const text = fields.map((f) => (f === '?' ? '*' : f)).join(' ');
    return `${cronstrue.toString(text, { use24HourTimeFormat: true })} (${timezone})`;
  } catch {
    return `${expr} (${timezone})`;
  }
}

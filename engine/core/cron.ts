// Cron maths on top of cron-parser: validation that says what to fix, and fire times that are
// strictly increasing and DST-consistent from whichever instant a caller starts.
//
// DST rules (cron-parser's, made independent of where iteration starts):
// - a wall-clock time that happens twice (autumn) fires once, the first time, unless the hour
//   field is `*`: then every real hour fires, so the repeated hour runs twice at distinct instants;
// - a time skipped by a spring change fires in the first hour after the gap, same minute and
//   second (02:30 → 03:30); with hour `*` the skipped hour simply does not exist.
// cron-parser applies both rules only while it walks across a change, so a walk that starts
// inside the repeated or landing hour gets them wrong; we restart such walks just before the
// change (forward) or filter and correct them (backward).
import { CronExpression, CronExpressionParser } from 'cron-parser';
import type { CronFieldCollection } from 'cron-parser';
import cronstrue from 'cronstrue';

/** The widest DST shift in the tz database is 2 h (Antarctica/Troll); 3 h leaves a margin. */
const DST_WINDOW_MS = 3 * 3_600_000;
/** cron-parser results that fail to move forward before we call it a bug rather than loop. */
const MAX_STALLS = 1_000;
/** A fixed start for validation, so a message never depends on today's date. */
const VALIDATION_START = Date.UTC(2024, 0, 1);
const FIELD_COUNT_HINT = '5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first';

// cron-parser's predefined expressions (it does not export its table).
const ALIASES: Record<string, string> = {
  '@yearly': '0 0 0 1 1 *', '@annually': '0 0 0 1 1 *', '@monthly': '0 0 0 1 * *', '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *', '@hourly': '0 0 * * * *', '@minutely': '0 * * * * *', '@secondly': '* * * * * *',
  '@weekdays': '0 0 0 * * 1-5', '@weekends': '0 0 0 * * 0,6',
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
    return bad === text ? `${where} is out of range: use ${info.range}` : `${where}: ${bad} is out of range: use ${info.range}`;
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

// Parsed fields by expression: parsing costs ~10x building an iterator from them, and the
// scheduler asks about the same few expressions over and over.
const parsedFields = new Map<string, CronFieldCollection>();
const MAX_PARSED = 500;

function parse(expr: string, tz: string, currentDate: number): CronExpression {
  const fields = sixFields(expr);
  if (typeof fields === 'string') throw new Error(fields);
  const key = fields.join(' ');
  try {
    let collection = parsedFields.get(key);
    if (!collection) {
      collection = CronExpressionParser.parse(key, { tz: 'UTC' }).fields;
      if (parsedFields.size >= MAX_PARSED) parsedFields.clear();
      parsedFields.set(key, collection);
    }
    return new CronExpression(collection, { currentDate, tz, expression: key });
  } catch (err) {
    throw new Error(validateCron(expr) ?? validateTimezone(tz) ?? `cron "${expr}" in "${tz}": ${messageOf(err)}`);
  }
}

/** Whether cron-parser's DST rules apply: they do only when the hour field is not `*`. */
function hoursRestricted(cron: CronExpression): boolean {
  return cron.fields.hour.values.length !== 24;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at instant t, in ms (wall clock minus UTC). */
function utcOffsetMs(tz: string, t: number): number {
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(tz, format);
  }
  const p: Record<string, number> = {};
  for (const part of format.formatToParts(t)) p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
  return wall - Math.floor(t / 1000) * 1000;
}

/** The first instant of the last offset change in (after - window, after], if there is one. */
function recentChange(tz: string, after: number): number | undefined {
  let lo = after - DST_WINDOW_MS;
  let hi = after;
  const target = utcOffsetMs(tz, hi);
  if (utcOffsetMs(tz, lo) === target) return undefined;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (utcOffsetMs(tz, mid) === target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Whether t's wall-clock time already happened earlier (the second pass of an autumn change). */
function isRepeatedWallTime(tz: string, t: number): boolean {
  const before = utcOffsetMs(tz, t - DST_WINDOW_MS);
  const shift = before - utcOffsetMs(tz, t);
  return shift > 0 && utcOffsetMs(tz, t - shift) === before;
}

function wallHour(tz: string, t: number): number {
  return Math.floor((((t + utcOffsetMs(tz, t)) % 86_400_000) + 86_400_000) % 86_400_000 / 3_600_000);
}

/**
 * Whether a walk must start before the change at `change` to get cron-parser's rules right:
 * always in autumn (it then skips the repeated hour in one jump instead of us filtering it fire
 * by fire), in spring only when the hour field names a skipped hour (its fires move into the
 * landing hour); otherwise a walk from the landing hour would replay it for nothing.
 */
function walkAcross(cron: CronExpression, tz: string, change: number): boolean {
  if (utcOffsetMs(tz, change) < utcOffsetMs(tz, change - 1)) return true;
  const hours = new Set<number>(cron.fields.hour.values);
  const landing = wallHour(tz, change);
  for (let h = (wallHour(tz, change - 1) + 1) % 24; h !== landing; h = (h + 1) % 24) {
    if (hours.has(h)) return true;
  }
  return false;
}

/** Fire times strictly after `afterExclusive`, ascending, lazily. */
function* forwardFires(expr: string, tz: string, afterExclusive: number): Generator<number, void> {
  let cron = parse(expr, tz, afterExclusive);
  const restricted = hoursRestricted(cron);
  const change = restricted ? recentChange(tz, afterExclusive) : undefined;
  // Start just before a recent change so cron-parser walks across it and applies its DST rules.
  if (change !== undefined && walkAcross(cron, tz, change)) cron = parse(expr, tz, change - 1);
  let last = -Infinity;
  let stalls = 0;
  for (;;) {
    let t: number;
    try {
      t = cron.next().getTime();
    } catch (err) {
      if (/loop limit/.test(messageOf(err))) return; // no later date matches
      throw err;
    }
    if (t <= last) {
      if (++stalls > MAX_STALLS) throw new Error(`cron "${expr}" in "${tz}": cron-parser stopped moving forward at ${new Date(t).toISOString()}`);
      continue;
    }
    last = t;
    stalls = 0;
    if (t <= afterExclusive) continue;
    if (restricted && isRepeatedWallTime(tz, t)) continue;
    yield t;
  }
}

// First fire after an instant, remembered: a scheduler asks "anything due since lastFireAt?" on
// every scan with the same lastFireAt, and one cron-parser step can cost a millisecond.
const firstAfterMemo = new Map<string, number | null>();
const MAX_MEMO = 2_000;

function firstAfter(expr: string, tz: string, after: number): number | undefined {
  const key = `${expr}\u0000${tz}\u0000${after}`;
  let value = firstAfterMemo.get(key);
  if (value === undefined) {
    const first = forwardFires(expr, tz, after).next();
    value = first.done ? null : first.value;
    if (firstAfterMemo.size >= MAX_MEMO) firstAfterMemo.clear();
    firstAfterMemo.set(key, value);
  }
  return value ?? undefined;
}

/** The first fire time strictly after `after` (epoch ms). Throws if the cron never fires again. */
export function nextFire(expr: string, timezone: string, after: number): number {
  const first = firstAfter(expr, timezone, after);
  if (first === undefined) throw new Error(`cron "${expr}" has no fire time after ${new Date(after).toISOString()}`);
  return first;
}

/** Fire times in (afterExclusive, untilInclusive], ascending: the earliest `cap` of them. */
export function firesBetween(expr: string, timezone: string, afterExclusive: number, untilInclusive: number, cap: number): number[] {
  const out: number[] = [];
  if (cap <= 0 || untilInclusive <= afterExclusive) return out;
  const first = firstAfter(expr, timezone, afterExclusive);
  if (first === undefined || first > untilInclusive) return out;
  // Walks are stateless (see the top of this file), so resuming just before `first` is exact.
  for (const t of forwardFires(expr, timezone, first - 1)) {
    if (t > untilInclusive) break;
    out.push(t);
    if (out.length >= cap) break;
  }
  return out;
}

/** The latest fire time at or before `atOrBefore`, or undefined if there is none. */
export function prevFire(expr: string, timezone: string, atOrBefore: number): number | undefined {
  let cron = parse(expr, timezone, atOrBefore + 1); // prev() is strictly before its start
  const restricted = hoursRestricted(cron);
  let candidate: number | undefined;
  for (let i = 0; i < MAX_STALLS && candidate === undefined; i++) {
    let t: number;
    try {
      t = cron.prev().getTime();
    } catch (err) {
      if (/loop limit/.test(messageOf(err))) return undefined;
      throw err;
    }
    if (t > atOrBefore) continue;
    if (restricted && isRepeatedWallTime(timezone, t)) {
      // Walking backwards cron-parser returns the repeated hour too; jump to before the change.
      const change = recentChange(timezone, t) ?? t;
      cron = parse(expr, timezone, change);
      continue;
    }
    candidate = t;
  }
  if (candidate === undefined || !restricted) return candidate;
  // prev() ignores the spring rule (a skipped time fires in the landing hour): when a change lies
  // between the candidate and atOrBefore, let the forward walk find any fire prev() missed.
  const noChangeBetween = atOrBefore - candidate <= DST_WINDOW_MS && utcOffsetMs(timezone, candidate) === utcOffsetMs(timezone, atOrBefore);
  if (noChangeBetween) return candidate;
  let best = candidate;
  for (const t of forwardFires(expr, timezone, candidate)) {
    if (t > atOrBefore) break;
    best = t;
  }
  return best;
}

/** Human words for a schedule, e.g. "At 02:00 AM (Europe/Berlin)". Never throws. */
export function describeCron(expr: string, timezone: string): string {
  try {
    const fields = sixFields(expr);
    if (typeof fields === 'string' || validateCron(expr)) return `${expr} (${timezone})`;
    // cronstrue knows neither cron-parser's aliases nor `?`; the normalised fields avoid both.
    const text = fields.map((f) => (f === '?' ? '*' : f)).join(' ');
    return `${cronstrue.toString(text)} (${timezone})`;
  } catch {
    return `${expr} (${timezone})`;
  }
}

// systemd's calendar events (OnCalendar=, systemd.time(7)) as people write them: the shorthands
// (daily, weekly, …), `DOW YYYY-MM-DD HH:MM:SS ZONE` with any part left out, `*`, lists (`6,18`),
// ranges (`Mon..Fri`, `1..5`) and steps (`0/15`, `*/2`, `1..10/3`). Parsed into the set of values
// each field allows; from those sets both an AX cron (5 fields, or 6 when the seconds are not 0)
// and an evaluator of the event's own rules (fires walked in the zone, not through the cron), so
// the importer can compare the two. What cron cannot say is refused here with the reason: a year,
// `~` (days from the month's end), fractional seconds, a weekday together with a day of the month
// (systemd wants both, cron either).
import { validateTimezone } from '../model/cron.ts';

export interface CalendarSpec {
  /** the event as written */
  text: string;
  /** allowed values: weekday 0-6 (Sunday 0), month 1-12, day 1-31, hour, minute, second */
  weekdays: Set<number>;
  months: Set<number>;
  days: Set<number>;
  hours: Set<number>;
  minutes: Set<number>;
  seconds: Set<number>;
  /** the zone written after the time, if any */
  timezone?: string;
}

const SHORTHANDS: Record<string, string> = {
  minutely: '*-*-* *:*:00',
  hourly: '*-*-* *:00:00',
  daily: '*-*-* 00:00:00',
  monthly: '*-*-01 00:00:00',
  weekly: 'Mon *-*-* 00:00:00',
  yearly: '*-01-01 00:00:00',
  annually: '*-01-01 00:00:00',
  quarterly: '*-01,04,07,10-01 00:00:00',
  semiannually: '*-01,07-01 00:00:00',
};

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const WEEKDAY_LONG = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const range = (lo: number, hi: number): Set<number> => new Set(Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));

function weekday(word: string): number | undefined {
  const w = word.toLowerCase();
  const i = WEEKDAYS.indexOf(w);
  return i >= 0 ? i : WEEKDAY_LONG.indexOf(w) >= 0 ? WEEKDAY_LONG.indexOf(w) : undefined;
}

/** `Mon,Wed..Fri` → weekdays; systemd's ranges go forward from the first day (Sat..Mon wraps past Sunday). */
function parseWeekdays(text: string): Set<number> | string {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [a, b, extra] = part.split('..');
    const from = a === undefined ? undefined : weekday(a);
    const to = b === undefined ? from : weekday(b);
    if (from === undefined || to === undefined || extra !== undefined)
      return `"${part}" is not a weekday or a range of them: write Mon, Tue, … or Mon..Fri`;
    for (let d = from; ; d = (d + 1) % 7) {
      out.add(d);
      if (d === to) break;
    }
  }
  return out;
}

/** One numeric field: `*`, `5`, `1,15`, `1..5`, `0/15`, `*\/2`, `1..10/3`. */
function parseField(text: string, what: string, lo: number, hi: number): Set<number> | string {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    if (part.includes('~')) return `"${part}" counts days from the end of the month ("~"), which cron cannot say`;
    if (/\.\d/.test(part.replace(/\.\./g, ''))) return `"${part}" has fractions of a second, which cron cannot say`;
    const m = /^(\*|\d+)(?:\.\.(\d+))?(?:\/(\d+))?$/.exec(part);
    if (!m) return `"${part}" is not a ${what}: write a number, *, a list (1,15), a range (1..5) or a step (0/15)`;
    const [, start, end, step] = m;
    const from = start === '*' ? lo : Number(start);
    // a/b without an end runs to the field's last value; *, a..b without a step is every value
    const to = end !== undefined ? Number(end) : start === '*' || step !== undefined ? hi : from;
    const by = step === undefined ? 1 : Number(step);
    if (start === '*' && end !== undefined) return `"${part}" is not a ${what}: a range starts with a number`;
    if (by === 0) return `"${part}": a step of 0 never moves`;
    if (from < lo || to > hi || from > to) return `"${part}" is out of range for a ${what} (${lo}..${hi})`;
    for (let v = from; v <= to; v += by) out.add(v);
  }
  return out;
}

/** Parses one OnCalendar= value; a string is what cannot be parsed or expressed, and why. */
export function parseCalendar(value: string): CalendarSpec | string {
  const text = value.trim();
  let words = text.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return 'OnCalendar= is empty';
  const spec: CalendarSpec = {
    text,
    weekdays: range(0, 6),
    months: range(1, 12),
    days: range(1, 31),
    hours: range(0, 23),
    minutes: range(0, 59),
    seconds: new Set([0]),
  };
  // A zone is the last word when it is not a time or a date: an IANA name, or UTC.
  const last = words[words.length - 1] as string;
  if (
    words.length > 1 &&
    /^[A-Za-z]/.test(last) &&
    !SHORTHANDS[last.toLowerCase()] &&
    weekday(last.split(/[,.]/)[0] ?? '') === undefined
  ) {
    const tz = last === 'UTC' || last === 'utc' ? 'UTC' : last;
    const problem = validateTimezone(tz);
    if (problem) return `the zone "${last}": ${problem}`;
    spec.timezone = tz;
    words = words.slice(0, -1);
  }
  if (words.length === 1 && SHORTHANDS[(words[0] as string).toLowerCase()]) {
    words = (SHORTHANDS[(words[0] as string).toLowerCase()] as string).split(' ');
  } else if (words.length === 1 && /^(now|today|yesterday|tomorrow|epoch)$|^@/i.test(words[0] as string)) {
    return `"${words[0]}" is a point in time, not a repeating event`;
  }
  if (words.length > 0 && /^[A-Za-z]/.test(words[0] as string)) {
    const days = parseWeekdays(words[0] as string);
    if (typeof days === 'string') return days;
    spec.weekdays = days;
    words = words.slice(1);
  }
  let date: string | undefined;
  let time: string | undefined;
  for (const w of words) {
    if (w.includes(':') && time === undefined) time = w;
    else if (w.includes('-') && date === undefined && time === undefined) date = w;
    else return `"${w}" is not a date (YYYY-MM-DD) or a time (HH:MM[:SS]) in its place`;
  }
  if (date !== undefined) {
    const parts = date.split('-');
    if (parts.length === 2) parts.unshift('*');
    if (parts.length !== 3) return `"${date}" is not a date: write YYYY-MM-DD, MM-DD, with * for any`;
    const [year, month, day] = parts as [string, string, string];
    if (year !== '*') return `"${date}" names years (${year}), which cron cannot say`;
    const months = parseField(month, 'month', 1, 12);
    if (typeof months === 'string') return months;
    const days = parseField(day, 'day of the month', 1, 31);
    if (typeof days === 'string') return days;
    spec.months = months;
    spec.days = days;
  }
  const [hour, minute, second, extra] = (time ?? '00:00:00').split(':');
  if (minute === undefined || extra !== undefined) return `"${time}" is not a time: write HH:MM or HH:MM:SS`;
  const fields = [
    ['hours', hour, 'hour', 23],
    ['minutes', minute, 'minute', 59],
    ['seconds', second ?? '00', 'second', 59],
  ] as const;
  for (const [key, v, what, hi] of fields) {
    const set = parseField(v as string, what, 0, hi);
    if (typeof set === 'string') return set;
    spec[key] = set;
  }
  if (spec.weekdays.size < 7 && spec.days.size < 31)
    return `it names both weekdays and days of the month: systemd fires only when both match, cron when either does`;
  return spec;
}

/** A set as a cron field: `*`, `*\/15`, `a-b/s`, or runs of ranges and values (`1-5,7`). */
function cronField(set: Set<number>, lo: number, hi: number): string {
  const v = [...set].sort((a, b) => a - b);
  if (v.length === hi - lo + 1) return '*';
  if (v.length >= 3) {
    const step = (v[1] as number) - (v[0] as number);
    const even = v.every((x, i) => i === 0 || x - (v[i - 1] as number) === step);
    if (even && step > 1) {
      const first = v[0] as number;
      const lastV = v[v.length - 1] as number;
      if (first === lo && lastV + step > hi) return `*/${step}`;
      return `${first}-${lastV}/${step}`;
    }
  }
  const parts: string[] = [];
  for (let i = 0; i < v.length;) {
    let j = i;
    while (j + 1 < v.length && (v[j + 1] as number) === (v[j] as number) + 1) j++;
    parts.push(j - i >= 2 ? `${v[i]}-${v[j]}` : v.slice(i, j + 1).join(','));
    i = j + 1;
  }
  return parts.join(',');
}

/** The AX cron of an event: 5 fields, or 6 (seconds first) when it fires at other seconds than 0. */
export function calendarToCron(spec: CalendarSpec): string {
  const five = [
    cronField(spec.minutes, 0, 59),
    cronField(spec.hours, 0, 23),
    cronField(spec.days, 1, 31),
    cronField(spec.months, 1, 12),
    cronField(spec.weekdays, 0, 6),
  ].join(' ');
  const onlyZero = spec.seconds.size === 1 && spec.seconds.has(0);
  return onlyZero ? five : `${cronField(spec.seconds, 0, 59)} ${five}`;
}

// Fire times of a parsed cron expression in a time zone, computed here rather than by
// cron-parser's iterator, which loops out ("loop limit exceeded") at the 30-minute DST changes of
// Australia/Lord_Howe and applies its DST rules only while it walks across a change. Here the
// fires are a set defined by wall-clock times, whatever instant a walk starts from:
//
// - every local date whose day fields match, every (hour, minute, second) the fields allow, is a
//   wall time W; W becomes the instant(s) t with t + offset(t) = W;
// - W that happens twice (autumn): the first instant only, unless the hour field is `*`: then every
//   real hour fires, so the repeated part runs twice at distinct instants;
// - W skipped by a spring change: the instant W would be under the offset before the change, i.e.
//   the same minute and second one shift later (02:30 → 03:30; Lord Howe 02:10 → 02:40); with
//   hour `*` a skipped time simply does not exist;
// - one instant fires once, however many wall times land on it.
//
// Zone offsets come from Intl, looked up once per local day (and a binary search on days with a
// change), so a walk costs arithmetic per fire.

export interface CronFields {
  seconds: readonly number[];
  minutes: readonly number[];
  hours: readonly number[];
  /** 1-12 */
  months: readonly number[];
  /** whether a local date matches the day-of-month and day-of-week fields */
  dayMatches(year: number, month: number, day: number): boolean;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Offsets in the tz database lie within ±14 h (plus a margin for local mean times). */
const MAX_OFFSET_MS = 15 * HOUR_MS;
/** Local days a walk looks through for a matching one before it concludes there is none. */
const MAX_DAYS = 366 * 12;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at instant t, in ms (wall clock minus UTC), whole seconds. */
export function utcOffsetMs(tz: string, t: number): number {
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, format);
  }
  const p: Record<string, number> = {};
  for (const part of format.formatToParts(t)) p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
  return wall - Math.floor(t / 1000) * 1000;
}

/** The offsets around one local day: `before` until the instant `change`, `after` from it. */
interface DayZone {
  before: number;
  after: number;
  change?: number;
}

// Day zones, remembered: a walk and the scheduler's next scan ask about the same few days.
const dayZones = new Map<string, DayZone>();
const MAX_DAY_ZONES = 20_000;

function dayZone(tz: string, dayStartWall: number): DayZone {
  const key = `${tz}|${dayStartWall}`;
  let zone = dayZones.get(key);
  if (!zone) {
    zone = computeDayZone(tz, dayStartWall);
    if (dayZones.size >= MAX_DAY_ZONES) dayZones.clear();
    dayZones.set(key, zone);
  }
  return zone;
}

function computeDayZone(tz: string, dayStartWall: number): DayZone {
  // Instants certainly before the day begins and after it ends, wherever the zone is.
  const lo = dayStartWall - MAX_OFFSET_MS;
  const hi = dayStartWall + DAY_MS + MAX_OFFSET_MS;
  const before = utcOffsetMs(tz, lo);
  const after = utcOffsetMs(tz, hi);
  if (before === after) return { before, after };
  let a = lo;
  let b = hi;
  while (b - a > 1000) {
    const mid = a + Math.floor((b - a) / 2000) * 1000;
    if (utcOffsetMs(tz, mid) === before) a = mid;
    else b = mid;
  }
  return { before, after, change: b };
}

/** The instants of wall time w (ms) under the day's zone and the DST rules above. */
function instantsOf(w: number, zone: DayZone, allHours: boolean): number[] {
  if (zone.change === undefined) return [w - zone.before];
  const early = w - zone.before;
  const late = w - zone.after;
  const earlyValid = early < zone.change;
  const lateValid = late >= zone.change;
  if (earlyValid && lateValid) return allHours ? [early, late] : [early];
  if (earlyValid) return [early];
  if (lateValid) return [late];
  // In the gap of a spring change: one shift later, unless the hour field is `*`.
  return allHours ? [] : [early];
}

/** Seconds of the day (ascending) the time fields allow, from `fromSecond` on. */
function* timesOfDay(f: CronFields, fromSecond: number): Generator<number, void> {
  for (const h of f.hours) {
    if (h * 3600 + 3599 < fromSecond) continue;
    for (const m of f.minutes) {
      const base = h * 3600 + m * 60;
      if (base + 59 < fromSecond) continue;
      for (const s of f.seconds) if (base + s >= fromSecond) yield base + s;
    }
  }
}

/** Fire times strictly after `after`, ascending, lazily. */
export function* fireTimesAfter(f: CronFields, tz: string, after: number): Generator<number, void> {
  const allHours = f.hours.length === 24;
  const months = new Set(f.months);
  // A fire at wall time w is at least w - max offset: wall times below this bound fire before `after`.
  const startZone = dayZone(tz, Math.floor((after + utcOffsetMs(tz, after)) / DAY_MS) * DAY_MS);
  const wallBound = after + Math.min(startZone.before, startZone.after) + 1;
  // Instants of earlier days that may still come after later days' (only around a change).
  let pending: number[] = [];
  let last = -Infinity;
  let day = Math.floor(wallBound / DAY_MS) * DAY_MS;
  for (let scanned = 0; scanned < MAX_DAYS; scanned++, day += DAY_MS) {
    const date = new Date(day);
    const [y, mo, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!months.has(mo)) {
      day = Date.UTC(y, mo, 1) - DAY_MS; // on to the first of the next month
      continue;
    }
    if (!f.dayMatches(y, mo, d)) continue;
    const zone = dayZone(tz, day);
    // Nothing of this day or later fires before this; what is pending below it is final.
    const floor = day - Math.max(zone.before, zone.after);
    if (pending.length > 0) {
      const ready = pending.filter((t) => t < floor);
      pending = pending.filter((t) => t >= floor);
      for (const t of ready) if (t > after && t > last) yield (last = t);
    }
    const fromSecond = wallBound > day ? Math.ceil((wallBound - day) / 1000) : 0;
    if (zone.change === undefined && pending.length === 0) {
      for (const s of timesOfDay(f, fromSecond)) {
        const t = day + s * 1000 - zone.before;
        if (t > after && t > last) yield (last = t);
      }
      scanned = 0;
      continue;
    }
    for (const s of timesOfDay(f, fromSecond))
      for (const t of instantsOf(day + s * 1000, zone, allHours)) pending.push(t);
    pending.sort((a, b) => a - b);
    scanned = 0;
  }
  for (const t of pending) if (t > after && t > last) yield (last = t);
}

/** The latest fire time at or before `atOrBefore`, or undefined if there is none. */
export function lastFireAtOrBefore(f: CronFields, tz: string, atOrBefore: number): number | undefined {
  // Forward walks over growing windows: exact (the same set of fires) and cheap for every cron,
  // an every-second one (first window) or a yearly one (a few more).
  for (let window = 60_000; window < 16 * 366 * DAY_MS; window *= 4) {
    let best: number | undefined;
    for (const t of fireTimesAfter(f, tz, atOrBefore - window)) {
      if (t > atOrBefore) break;
      best = t;
    }
    if (best !== undefined) return best;
  }
  return undefined;
}

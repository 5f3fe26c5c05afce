// When cron itself runs a crontab line: its own rules, not AX's, so an import can compare the two.
// cron looks at the wall clock of its zone once a minute and runs the jobs whose fields match it:
//
// - days: minute, hour and month must match, and the day fields by cron's rule (crontab(5) and
//   Vixie's DOM_STAR / DOW_STAR): if either day field starts with `*` (`*`, `*/2`) both must
//   match, otherwise either may;
// - daylight saving time (cron(8), "clock is changed by less than 3 hours"): a job "specified with
//   wildcards" (its minute or hour field starts with `*`, or @hourly) runs by the new wall clock
//   only: a skipped wall time does not run, a repeated one runs in both passes. Any other job runs
//   once per wall time: one in a skipped stretch runs soon after the change (at the change here;
//   cron runs it within seconds of it), one in a repeated stretch only in the first pass.
import { utcOffsetMs } from '../model/cron-walk.ts';
import type { CronSets } from './crontab-grammar.ts';

const MINUTE_MS = 60_000;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAY_MS = 86_400_000;
/** Offsets lie within ±14 h: a wall time's instants are within 15 h of it. */
const REACH_MS = 15 * 3_600_000;
/** How far a walk looks for fires before it concludes there are no more (Feb 29 needs years). */
export const CRON_HORIZON_MS = 30 * 366 * DAY_MS;

/** Whether cron runs the job on a date (month 1-12). */
export function cronDayMatches(sets: CronSets, year: number, month: number, day: number): boolean {
  if (!sets.months.includes(month)) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number))) return false;
  const dom = sets.doms.includes(day);
  // 1970-01-01 was a Thursday (4).
  const dow = sets.dows.includes((Math.floor(Date.UTC(year, month - 1, day) / DAY_MS) + 4) % 7);
  return sets.domStar || sets.dowStar ? dom && dow : dom || dow;
}

/** The first instant at or after `from` whose offset is `offset` (a change lies in [from, to]). */
function changeAt(tz: string, from: number, to: number, offset: number): number {
  let lo = Math.floor(from / 1000);
  let hi = Math.ceil(to / 1000);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (utcOffsetMs(tz, mid * 1000) === offset) hi = mid;
    else lo = mid + 1;
  }
  return lo * 1000;
}

/** The fires of one wall time `w` under cron's DST rules. */
function firesOfWall(tz: string, w: number, wild: boolean, before: number, after: number): number[] {
  if (before === after) return [w - before];
  const valid = [...new Set([w - before, w - after])].filter((t) => t + utcOffsetMs(tz, t) === w).sort((a, b) => a - b);
  if (valid.length === 2) return wild ? valid : [valid[0] as number];
  if (valid.length === 1) return valid;
  // A skipped wall time: the clock jumped over it.
  if (wild) return [];
  return [changeAt(tz, w - Math.max(before, after), w - Math.min(before, after), after)];
}

/**
 * cron's fires in (afterExclusive, untilInclusive], ascending, at most `cap` (a job in a skipped
 * stretch can fire more than once at the same instant, as cron runs each skipped minute's jobs).
 */
export function cronFiresBetween(
  sets: CronSets,
  tz: string,
  afterExclusive: number,
  untilInclusive: number,
  cap: number,
): number[] {
  const out: number[] = [];
  const wild = sets.minStar || sets.hourStar;
  const startWall = afterExclusive + utcOffsetMs(tz, afterExclusive);
  for (let day = Math.floor(startWall / DAY_MS) * DAY_MS - DAY_MS; day - REACH_MS <= untilInclusive; day += DAY_MS) {
    // Every instant of this day or later is at least day - 15 h: the earliest `cap` are final.
    if (out.length >= cap && (out[cap - 1] as number) < day - REACH_MS) break;
    const date = new Date(day);
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!cronDayMatches(sets, y, m, d)) continue;
    const before = utcOffsetMs(tz, day - REACH_MS);
    const after = utcOffsetMs(tz, day + DAY_MS + REACH_MS);
    let added = false;
    for (const h of sets.hours)
      for (const mi of sets.minutes)
        for (const t of firesOfWall(tz, day + (h * 60 + mi) * MINUTE_MS, wild, before, after))
          if (t > afterExclusive && t <= untilInclusive) {
            out.push(t);
            added = true;
          }
    if (added) out.sort((a, b) => a - b);
  }
  return out.slice(0, cap);
}

/** cron's next `count` fires after `after` (fewer when there are no more within 30 years). */
export function nextCronFires(sets: CronSets, tz: string, after: number, count: number): number[] {
  return cronFiresBetween(sets, tz, after, after + CRON_HORIZON_MS, count);
}

const changesMemo = new Map<string, number[]>();

/** The instants in [from, to) at which the zone's offset changes (DST), found day by day. */
export function offsetChanges(tz: string, from: number, to: number): number[] {
  const key = `${tz}|${from}|${to}`;
  const known = changesMemo.get(key);
  if (known) return known;
  const out = scanChanges(tz, from, to);
  if (changesMemo.size >= 200) changesMemo.clear();
  changesMemo.set(key, out);
  return out;
}

function scanChanges(tz: string, from: number, to: number): number[] {
  const out: number[] = [];
  let previous = utcOffsetMs(tz, from);
  for (let t = from + DAY_MS; t < to + DAY_MS; t += DAY_MS) {
    const offset = utcOffsetMs(tz, t);
    if (offset !== previous) {
      const at = changeAt(tz, t - DAY_MS, t, offset);
      if (at >= from && at < to) out.push(at);
      previous = offset;
    }
  }
  return out;
}

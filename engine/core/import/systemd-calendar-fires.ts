// The next fires of a systemd calendar event by its own rules, walked in its zone (not through a
// cron: this is what the cron the importer writes is checked against). The walk goes day by day
// over the calendar (month, day and weekday by date arithmetic), and for each matching day turns
// its wall times (hours × minutes × seconds of the event) into instants. A wall time a
// spring-forward skips does not exist and does not fire (systemd skips it too); one a fall-back
// repeats fires once, at its first occurrence (systemd resolves the local time once).
import type { CalendarSpec } from './systemd-calendar.ts';

interface Wall {
  year: number;
  month: number;
  day: number;
  weekday: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function wall(t: number, zone: string): Wall {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, f);
  }
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(new Date(t))) p[part.type] = part.value;
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    weekday: WEEKDAY[p.weekday as string] ?? -1,
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
  };
}

/** The wall clock of instant t in the zone, as if it were UTC (epoch ms). */
function wallMs(t: number, zone: string): number {
  const w = wall(t, zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

const offsetAt = (t: number, zone: string): number => wallMs(t, zone) - t;
const DAY = 86_400_000;
const sorted = (set: Set<number>): number[] => [...set].sort((a, b) => a - b);

/** The first `count` fires strictly after `after` (epoch ms), within `horizonMs` (default 5 years). */
export function calendarFires(
  spec: CalendarSpec,
  zone: string,
  after: number,
  count: number,
  horizonMs = 5 * 366 * DAY,
): number[] {
  const out: number[] = [];
  const hours = sorted(spec.hours);
  const minutes = sorted(spec.minutes);
  const seconds = sorted(spec.seconds);
  const start = wall(after, zone);
  // local midnights as if UTC: the calendar of the zone without its offsets
  let day = Date.UTC(start.year, start.month - 1, start.day);
  const lastDay = day + horizonMs;
  for (; day <= lastDay && out.length < count; day += DAY) {
    const d = new Date(day);
    if (!spec.months.has(d.getUTCMonth() + 1) || !spec.days.has(d.getUTCDate()) || !spec.weekdays.has(d.getUTCDay()))
      continue;
    // the offsets in force around this day: the same on both sides on a day without a change
    const before = offsetAt(day - DAY, zone);
    const later = offsetAt(day + 2 * DAY, zone);
    for (const h of hours) {
      for (const m of minutes) {
        for (const sec of seconds) {
          const local = day + ((h * 60 + m) * 60 + sec) * 1000;
          const instants =
            before === later
              ? [local - before]
              : [local - before, local - later].filter((u) => wallMs(u, zone) === local).sort((x, y) => x - y);
          const first = instants[0];
          // none: a wall time the change skips; several: a repeated one, fired at its first occurrence
          if (first === undefined || first <= after) continue;
          out.push(first);
          if (out.length >= count) return out;
        }
      }
    }
  }
  return out;
}

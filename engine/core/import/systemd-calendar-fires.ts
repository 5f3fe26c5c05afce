// The next fires of a systemd calendar event by its own rules, walked instant by instant in its
// zone (not through a cron: this is what the cron the importer writes is checked against). An
// instant fires when its wall-clock fields are all in the event's sets. Wall times a spring-forward
// skips never occur, so they do not fire (systemd skips them too); a wall time a fall-back repeats
// fires once, at its first occurrence (systemd resolves the local time once). The walk jumps to
// the next hour while the day or the hour does not match, then goes minute by minute (second by
// second only when the event names seconds other than 0).
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

const sameWall = (a: Wall, b: Wall): boolean =>
  a.year === b.year &&
  a.month === b.month &&
  a.day === b.day &&
  a.hour === b.hour &&
  a.minute === b.minute &&
  a.second === b.second;

/** Whether the same wall time occurred within the last three hours (a fall-back repeats it). */
function repeated(t: number, w: Wall, zone: string): boolean {
  for (let back = 15 * 60_000; back <= 3 * 3_600_000; back += 15 * 60_000) {
    if (sameWall(wall(t - back, zone), w)) return true;
  }
  return false;
}

/** The first `count` fires strictly after `after` (epoch ms), within `horizonMs` (default 5 years). */
export function calendarFires(
  spec: CalendarSpec,
  zone: string,
  after: number,
  count: number,
  horizonMs = 5 * 366 * 86_400_000,
): number[] {
  const out: number[] = [];
  const bySecond = !(spec.seconds.size === 1 && spec.seconds.has(0));
  const stepMs = bySecond ? 1000 : 60_000;
  let t = Math.floor(after / stepMs) * stepMs + stepMs;
  const end = after + horizonMs;
  while (out.length < count && t <= end) {
    const w = wall(t, zone);
    const dayOk = spec.months.has(w.month) && spec.days.has(w.day) && spec.weekdays.has(w.weekday);
    if (!dayOk || !spec.hours.has(w.hour)) {
      // to the next hour boundary of the zone's clock (zones' offsets are whole quarter hours)
      t += ((59 - w.minute) * 60 + (60 - w.second)) * 1000;
      continue;
    }
    if (spec.minutes.has(w.minute) && spec.seconds.has(w.second) && !repeated(t, w, zone)) out.push(t);
    t += stepMs;
  }
  return out;
}

// A job line's schedule for the import: cron's next fires (crontab-fires.ts), the AX cron that
// means the same (crontab-translate.ts) and AX's next fires (model/cron.ts), which must be equal;
// and the clock changes of the coming year where cron and AX would run it differently.
import { firesBetween, nextFire } from '../model/cron.ts';
import { cronFiresBetween, nextCronFires, offsetChanges } from './crontab-fires.ts';
import type { CrontabLine } from './crontab-grammar.ts';
import { translateSchedule } from './crontab-translate.ts';

export interface JobSchedule {
  /** undefined: @reboot */
  cron?: string;
  sourceFires: number[];
  axFires: number[];
  warnings: string[];
}

const HOUR_MS = 3_600_000;
const YEAR_MS = 366 * 24 * HOUR_MS;

/** AX's next `count` fires after `after` (fewer when it has no more). */
export function nextAxFires(cron: string, zone: string, after: number, count: number): number[] {
  const out: number[] = [];
  let t = after;
  for (let i = 0; i < count; i++) {
    try {
      t = nextFire(cron, zone, t);
    } catch {
      break;
    }
    out.push(t);
  }
  return out;
}

/** An instant as the zone's wall clock, e.g. `2027-03-28 03:00 (+02:00)`. */
export function wallText(t: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'longOffset',
  }).formatToParts(t);
  const p = (type: string) => parts.find((x) => x.type === type)?.value ?? '';
  return `${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')} (${p('timeZoneName').replace('GMT', '') || '+00:00'})`;
}

const list = (fires: number[], zone: string) =>
  fires.length === 0 ? 'not at all' : fires.map((t) => wallText(t, zone)).join(', ');

export function scheduleOf(
  line: Extract<CrontabLine, { kind: 'job' }>,
  zone: string,
  now: number,
  count: number,
): JobSchedule | { reason: string } {
  if (!line.sets || !line.fields) return { sourceFires: [], axFires: [], warnings: [] };
  const sourceFires = nextCronFires(line.sets, zone, now, count);
  if (sourceFires.length === 0) {
    const [, , dom, month] = line.fields;
    return {
      reason: `cron never runs it: no date has day-of-month "${dom}" in month "${month}" (such as February 30): fix the date or delete the line`,
    };
  }
  const translated = translateSchedule(line.fields, line.sets);
  if ('reason' in translated) return translated;
  const { cron } = translated;
  const axFires = nextAxFires(cron, zone, now, count);
  if (axFires.length !== sourceFires.length || axFires.some((t, i) => t !== sourceFires[i]))
    return {
      reason: `cron and AX ("${cron}" in ${zone}) would not run it at the same times: cron ${list(sourceFires, zone)}; AX ${list(axFires, zone)}`,
    };
  const warnings: string[] = [];
  for (const change of offsetChanges(zone, now, now + YEAR_MS)) {
    const from = change - 3 * HOUR_MS;
    const to = change + 3 * HOUR_MS;
    const byCron = cronFiresBetween(line.sets, zone, from, to, 1000);
    const byAx = firesBetween(cron, zone, from, to, 1000);
    if (byCron.length === byAx.length && byCron.every((t, i) => t === byAx[i])) continue;
    const cronOnly = byCron.filter((t) => !byAx.includes(t));
    const axOnly = byAx.filter((t) => !byCron.includes(t));
    warnings.push(
      `at the clock change of ${wallText(change, zone).slice(0, 10)} cron and AX run it differently: ` +
        `cron also at ${list(cronOnly.slice(0, 4), zone)}${cronOnly.length > 4 ? ' …' : ''}` +
        (byCron.length - new Set(byCron).size > 0 ? ' (some several times at once)' : '') +
        `, AX instead at ${list(axOnly.slice(0, 4), zone)}${axOnly.length > 4 ? ' …' : ''} ` +
        '(cron runs a skipped time\'s job at the change and a job with "*" in its minute or hour in both passes of a repeated hour)',
    );
  }
  return { cron, sourceFires, axFires, warnings };
}

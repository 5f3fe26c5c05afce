// `ax runs --owner X --trigger cron,manual --since 2026-11-01 --until 2026-11-30`: the same
// filter as the UI's runs page. A bare date is that day's midnight on this machine, as the
// runs page cuts days in the viewer's zone.
import { AxError } from '../../api/errors.ts';
import type { RunFilter } from '../../api/engine-api.ts';
import { TRIGGER_TYPES, type TriggerType } from '../../api/types.ts';

export interface RunFilterOptions {
  owner?: string;
  trigger?: string;
  since?: string;
  until?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** epoch ms of a date (local midnight; `nextDay`: the midnight after it) or an ISO 8601 time */
export function instantArg(flag: string, value: string, nextDay = false): number {
  const day = DATE.exec(value);
  const ms = day
    ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]) + (nextDay ? 1 : 0)).getTime()
    : /^\d{4}-\d{2}-\d{2}T/.test(value)
      ? Date.parse(value)
      : Number.NaN;
  if (!Number.isFinite(ms))
    throw new AxError(
      'validation',
      `${flag}: expected a date (2026-11-01) or a time (2026-11-01T02:00), got "${value}"`,
    );
  return ms;
}

export function triggersArg(value: string): TriggerType[] {
  const wanted = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = wanted.filter((t) => !TRIGGER_TYPES.includes(t as TriggerType));
  if (unknown.length)
    throw new AxError(
      'validation',
      `--trigger: unknown ${unknown.join(', ')}; use one or more of ${TRIGGER_TYPES.join(', ')}`,
    );
  return wanted as TriggerType[];
}

/** the listRuns filter of these options; `--until` takes a whole day when given a date */
export function runFilterOf(opts: RunFilterOptions): Pick<RunFilter, 'owner' | 'triggers' | 'from' | 'to'> {
  return {
    owner: opts.owner,
    triggers: opts.trigger ? triggersArg(opts.trigger) : undefined,
    from: opts.since ? instantArg('--since', opts.since) : undefined,
    to: opts.until ? instantArg('--until', opts.until, true) : undefined,
  };
}

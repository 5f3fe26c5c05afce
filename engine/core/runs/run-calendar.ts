// The runs calendar: the store's quarter-hour counts cut into days of the reader's zone, so a
// run created at 23:30 UTC is on the next day for a reader in Asia/Shanghai (UTC+8).
import { AxError } from '../../api/errors.ts';
import type { CalendarCell, CalendarQuery, RunCalendar } from '../../api/run-views.ts';
import type { RunState } from '../../api/types.ts';
import type { Store } from '../../ports/store.ts';

/** a year and a bit: a calendar of a year in any zone, not an unbounded scan */
const MAX_RANGE_MS = 367 * 86_400_000;

/** `(epoch ms) => YYYY-MM-DD` in `zone`; throws a validation error naming the zone when it is unknown */
export function dayCutter(zone: string): (ms: number) => string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
  } catch {
    throw new AxError('validation', `unknown time zone "${zone}": use an IANA name such as Europe/Paris or UTC`);
  }
  return (ms) => {
    const parts = format.formatToParts(ms);
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    return `${part('year')}-${part('month')}-${part('day')}`;
  };
}

function tally(cell: CalendarCell, state: RunState, count: number): void {
  if (state === 'SUCCESS') cell.success += count;
  else if (state === 'FAILED') cell.failed += count;
  else if (state === 'QUEUED' || state === 'RUNNING') cell.active += count;
  else cell.other += count;
}

export async function runCalendar(store: Store, query: CalendarQuery, hostZone: string): Promise<RunCalendar> {
  if (query.to <= query.from) throw new AxError('validation', 'runCalendar: "to" must be after "from"');
  if (query.to - query.from > MAX_RANGE_MS)
    throw new AxError('validation', 'runCalendar: ask for at most a year (366 days) at a time');
  const zone = query.zone ?? hostZone;
  const dayOf = dayCutter(zone);
  const rows = await store.runCounts({
    from: query.from,
    to: query.to,
    workflowName: query.workflow,
    owner: query.owner,
  });
  const days = new Map<number, string>();
  const cells = new Map<string, CalendarCell>();
  for (const row of rows) {
    let day = days.get(row.bucket);
    if (day === undefined) days.set(row.bucket, (day = dayOf(row.bucket)));
    const key = `${day}\u0000${row.workflow}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { day, workflow: row.workflow, success: 0, failed: 0, other: 0, active: 0 }));
    tally(cell, row.state, row.count);
  }
  const sorted = [...cells.values()].sort((a, b) =>
    a.day === b.day ? a.workflow.localeCompare(b.workflow) : a.day < b.day ? -1 : 1,
  );
  return { zone, from: query.from, to: query.to, cells: sorted };
}

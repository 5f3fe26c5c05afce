// The runs page's filters as they sit in the address (so a reload, a copied link and back/forward
// keep them): parsed leniently (an unknown state or a malformed date is dropped, not an error
// page) and written back in one canonical order, without the defaults.
import { RUN_STATES, TRIGGER_TYPES, type RunState, type TriggerType } from '../../../engine/api/types.ts';

export const VIEWS = ['list', 'calendar', 'day'] as const;
export type RunsView = (typeof VIEWS)[number];

/** the calendar's ranges in days; a year is the most runCalendar answers */
export const CALENDAR_RANGES = [7, 30, 90, 365] as const;
export type CalendarRange = (typeof CALENDAR_RANGES)[number];
export const DEFAULT_RANGE: CalendarRange = 30;

export interface RunsQuery {
  view: RunsView;
  states: RunState[];
  triggers: TriggerType[];
  workflow?: string;
  owner?: string;
  /** first day shown, YYYY-MM-DD in the viewer's zone (inclusive) */
  from?: string;
  /** last day shown, YYYY-MM-DD in the viewer's zone (inclusive) */
  to?: string;
  /** the calendar's range in days */
  range: CalendarRange;
  /** the day timeline's day, YYYY-MM-DD in the viewer's zone; today when absent */
  day?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function validDay(value: string | null): string | undefined {
  if (!value || !DAY.test(value)) return undefined;
  const [y, m, d] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(y, m - 1, d);
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d ? value : undefined;
}

function list<T extends string>(value: string | null, allowed: readonly T[]): T[] {
  if (!value) return [];
  const wanted = new Set(value.split(','));
  return allowed.filter((a) => wanted.has(a));
}

export function parseRunsQuery(params: URLSearchParams): RunsQuery {
  const view = params.get('view');
  const range = Number(params.get('range'));
  const text = (key: string) => params.get(key)?.trim() || undefined;
  let from = validDay(params.get('from'));
  let to = validDay(params.get('to'));
  if (from && to && from > to) [from, to] = [to, from];
  return {
    view: VIEWS.includes(view as RunsView) ? (view as RunsView) : 'list',
    states: list(params.get('state'), RUN_STATES),
    triggers: list(params.get('trigger'), TRIGGER_TYPES),
    workflow: text('workflow'),
    owner: text('owner'),
    from,
    to,
    range: CALENDAR_RANGES.includes(range as CalendarRange) ? (range as CalendarRange) : DEFAULT_RANGE,
    day: validDay(params.get('day')),
  };
}

export function runsQueryParams(query: RunsQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.view !== 'list') params.set('view', query.view);
  if (query.states.length) params.set('state', query.states.join(','));
  if (query.workflow) params.set('workflow', query.workflow);
  if (query.owner) params.set('owner', query.owner);
  if (query.triggers.length) params.set('trigger', query.triggers.join(','));
  if (query.from) params.set('from', query.from);
  if (query.to) params.set('to', query.to);
  if (query.range !== DEFAULT_RANGE) params.set('range', String(query.range));
  if (query.day) params.set('day', query.day);
  return params;
}

/** local midnight of a YYYY-MM-DD day in the viewer's zone (epoch ms) */
export function dayStart(day: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).getTime();
}

/** the next day's local midnight: a day is 23 or 25 hours long when the clocks change */
export function dayEnd(day: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + 1).getTime();
}

/** YYYY-MM-DD of an instant in the viewer's zone */
export function dayOf(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** `day` moved by `delta` days (calendar days, whatever their length) */
export function addDays(day: string, delta: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return dayOf(new Date(y, m - 1, d + delta).getTime());
}

/** what the engine's listRuns is asked for this query (from/to in epoch ms of the viewer's days) */
export function runFilterOf(query: RunsQuery) {
  return {
    states: query.states.length ? query.states : undefined,
    triggers: query.triggers.length ? query.triggers : undefined,
    workflow: query.workflow,
    owner: query.owner,
    from: query.from ? dayStart(query.from) : undefined,
    to: query.to ? dayEnd(query.to) : undefined,
  };
}

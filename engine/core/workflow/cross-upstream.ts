// Dependencies across workflows: an upstream that names another workflow's task
// (`orders-etl.load`), a whole workflow (`orders-etl.*`), or either with a date rule
// (`{ ref: orders-etl.load, date: previous_day }`). Here: reading and writing them in a workflow
// file, and the window of logical times an instance waits for, computed in the downstream
// workflow's zone. The waiting itself is the store's (upstream_wait rows, released by the
// upstream's finish; see adapters/sql/upstream-waits.ts).
import { because, type Reason } from '../../api/reasons.ts';
import { type CrossUpstream, DEFAULT_WAIT_TIMEOUT_MS, UPSTREAM_DATES, type UpstreamDate } from '../../api/types.ts';
import type { UpstreamWaitDraft } from '../../ports/store.ts';
import { utcOffsetMs } from '../model/cron-walk.ts';
import { NAME, nameHint, type Reader, typeName, type YMap } from './workflow-reader.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const REF_KEYS = ['ref', 'date'];
/** `{ ref: orders-etl }` and `orders-etl.*` both name the whole workflow */
const WHOLE = '*';

/**
 * A reference's workflow and task: split at the last dot (a workflow name may hold dots, a task
 * of another workflow named in a string may not; `{ ref }` has the same rule). No dot: the whole
 * workflow.
 */
export function splitRef(ref: string): { workflow: string; task?: string } {
  const dot = ref.lastIndexOf('.');
  if (dot < 0) return { workflow: ref };
  const task = ref.slice(dot + 1);
  return task === WHOLE ? { workflow: ref.slice(0, dot) } : { workflow: ref.slice(0, dot), task };
}

/** `orders-etl.load`, or `orders-etl.*` for the whole workflow. */
export const refName = (u: Pick<CrossUpstream, 'workflow' | 'task'>): string => `${u.workflow}.${u.task ?? WHOLE}`;

/** One upstream reference's problems (its names), or its parts. */
function checkRef(r: Reader, ref: string, at: string, self: string): { workflow: string; task?: string } | undefined {
  const parts = splitRef(ref);
  if (!NAME.test(parts.workflow)) r.add(at, `"${ref}": ${nameHint(parts.workflow)}`);
  else if (parts.task !== undefined && !NAME.test(parts.task)) r.add(at, `"${ref}": ${nameHint(parts.task)}`);
  else if (parts.workflow === self)
    r.add(at, `"${ref}" is this workflow: name its task alone, e.g. upstream: [${parts.task ?? 'extract'}]`);
  else return parts;
  return undefined;
}

/**
 * A task's `upstream` list: strings (a task of this workflow, or another's as WORKFLOW.TASK or
 * WORKFLOW.*) and `{ ref, date }` maps. Strings are sorted into local and cross references by
 * `sortUpstream` once every task's name is known.
 */
export function readUpstreamList(
  r: Reader,
  m: YMap,
  path: string,
  self: string,
): { names: string[]; cross: CrossUpstream[] } {
  const v = m.get('upstream');
  const at = `${path}.upstream`;
  const out = { names: [] as string[], cross: [] as CrossUpstream[] };
  if (v === undefined) return out;
  if (!Array.isArray(v)) {
    r.add(at, `must be a list of task names, e.g. [extract] (got ${typeName(v)})`);
    return out;
  }
  const seen = new Set<string>();
  for (const [i, item] of v.entries()) {
    if (typeof item === 'string' && item !== '') {
      if (seen.has(item)) r.add(at, `"${item}" is listed twice: list it once`);
      else out.names.push(item);
      seen.add(item);
      continue;
    }
    if (!(item instanceof Map)) {
      r.add(
        at,
        `must be a list of task names, e.g. [extract] (got an item that is ${item === '' ? 'empty' : typeName(item)})`,
      );
      continue;
    }
    const itemAt = `${at}[${i}]`;
    const im = item as YMap;
    r.keys(im, REF_KEYS, itemAt);
    const ref = im.get('ref');
    if (typeof ref !== 'string' || ref === '') {
      r.add(`${itemAt}.ref`, `missing: name the upstream as ref: WORKFLOW.TASK (or WORKFLOW for its whole run)`);
      continue;
    }
    const date = r.choice(im, 'date', itemAt, UPSTREAM_DATES, 'same_day');
    const parts = checkRef(r, ref, `${itemAt}.ref`, self);
    if (!parts) continue;
    const key = `${refName(parts)} ${date}`;
    if (seen.has(key)) r.add(at, `"${refName(parts)}" (${date}) is listed twice: list it once`);
    seen.add(key);
    out.cross.push({ workflow: parts.workflow, ...(parts.task !== undefined && { task: parts.task }), date });
  }
  return out;
}

/**
 * Moves a task's strings that name no task of this workflow but hold a dot into its cross
 * references (same day); the rest stay local upstreams, for the unknown-task check.
 */
export function sortUpstream(
  r: Reader,
  names: string[],
  known: Set<string>,
  path: string,
  self: string,
  cross: CrossUpstream[],
): string[] {
  const local: string[] = [];
  for (const name of names) {
    if (known.has(name) || !name.includes('.')) {
      local.push(name);
      continue;
    }
    const parts = checkRef(r, name, path, self);
    if (!parts) continue;
    if (cross.some((c) => c.workflow === parts.workflow && c.task === parts.task && c.date === 'same_day'))
      r.add(path, `"${name}" is listed twice: list it once`);
    else
      cross.push({ workflow: parts.workflow, ...(parts.task !== undefined && { task: parts.task }), date: 'same_day' });
  }
  return local;
}

/** A cross reference as the file writes it: a plain string for the default date rule. */
export function writeCrossUpstream(u: CrossUpstream): string | Map<string, string> {
  if (u.date === 'same_day') return refName(u);
  return new Map([
    ['ref', refName(u)],
    ['date', u.date],
  ]);
}

/** The instant a wall-clock time (ms since 1970 on the zone's clock) happens in the zone. */
function wallToInstant(wall: number, tz: string): number {
  const guess = wall - utcOffsetMs(tz, wall);
  return wall - utcOffsetMs(tz, guess);
}

/** The logical times [from, to) a date rule waits for, from the downstream's logical time in its zone; undefined for `latest`. */
export function waitWindow(
  date: UpstreamDate,
  logicalTime: number,
  tz: string,
): { from: number; to: number; wallStart: number } | undefined {
  if (date === 'latest') return undefined;
  const unit = date === 'same_hour' ? HOUR : DAY;
  const wall = logicalTime + utcOffsetMs(tz, logicalTime);
  const start = Math.floor(wall / unit) * unit - (date === 'previous_day' ? DAY : 0);
  return { from: wallToInstant(start, tz), to: wallToInstant(start + unit, tz), wallStart: start };
}

/** What a waiting instance says it waits for: `orders-etl.load of 2026-11-30`. */
export function waitLabel(u: CrossUpstream, wallStart: number | undefined): string {
  const what = u.task === undefined ? `the whole of ${u.workflow}` : `${u.workflow}.${u.task}`;
  if (wallStart === undefined) return `${what} (its latest run)`;
  const iso = new Date(wallStart).toISOString();
  return `${what} of ${u.date === 'same_hour' ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10)}`;
}

/** The waits of a task's first attempt in a run of logical time `logicalTime`, in zone `tz`. */
export function waitDrafts(
  task: { crossUpstream?: CrossUpstream[]; waitTimeoutMs?: number },
  logicalTime: number,
  tz: string,
  now: number,
): UpstreamWaitDraft[] {
  const deadline = now + (task.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS);
  return (task.crossUpstream ?? []).map((u) => {
    const window = waitWindow(u.date, logicalTime, tz);
    return {
      workflow: u.workflow,
      task: u.task ?? null,
      window: window ? { from: window.from, to: window.to } : { latestAtOrBefore: logicalTime },
      label: waitLabel(u, window?.wallStart),
      deadline,
    };
  });
}

/** The reason a held instance shows: `waiting for orders-etl.load of 2026-11-30`. */
export const waitingReason = (labels: string[]): Reason => because('waiting_upstream', { labels: labels.join(', ') });

// Where a validation problem belongs. The engine reports field paths in the file's words
// ("tasks.clean.timeout", "tasks.clean.retry_backoff.max", "schedule.cron", "workflow",
// "tasks"); the designer shows each on its form field and marks the task's node. Task names may
// contain dots, so the longest task name that fits the path wins.
import type { ValidationProblem } from '../../../../engine/api/errors.ts';

export const TASK_FIELDS = [
  'name',
  'command',
  'cwd',
  'env',
  'timeout',
  'retries',
  'retry_backoff',
  'retry_backoff.strategy',
  'retry_backoff.delay',
  'retry_backoff.max',
  'labels',
  'upstream',
  'wait_timeout',
  'owner',
  'run_if',
  'when',
  'call',
  'call.workflow',
  'call.params',
] as const;
export type TaskField = (typeof TASK_FIELDS)[number];
export const WORKFLOW_FIELDS = [
  'workflow',
  'description',
  'owner',
  'schedule',
  'schedule.cron',
  'schedule.timezone',
  'schedule.misfire',
  'schedule.overlap',
  'on_event',
  'routing',
  'tasks',
  'params',
  // the settings tasks inherit (a task's own value wins)
  'env',
  'cwd',
  'timeout',
  'retries',
  'retry_backoff',
  'retry_backoff.strategy',
  'retry_backoff.delay',
  'retry_backoff.max',
  'labels',
] as const;
export type WorkflowField = (typeof WORKFLOW_FIELDS)[number];

export type ProblemPlace =
  | { scope: 'task'; task: string; field?: TaskField; detail?: string }
  /** `param`: the declared param a "params.NAME…" problem is about */
  | { scope: 'workflow'; field?: WorkflowField; param?: string };

/** the longest of `names` that `rest` is or starts with (names may contain dots) */
function longestName(rest: string, names: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const name of names) {
    if ((rest === name || rest.startsWith(`${name}.`)) && (!found || name.length > found.length)) found = name;
  }
  return found;
}

export function locateProblem(
  path: string,
  taskNames: readonly string[],
  paramNames: readonly string[] = [],
): ProblemPlace {
  if (path === 'tasks' || path.startsWith('tasks[')) return { scope: 'workflow', field: 'tasks' };
  if (path.startsWith('tasks.')) {
    const rest = path.slice('tasks.'.length);
    let task = longestName(rest, taskNames);
    if (!task) {
      // a task the spec no longer has (or a bad name): the first segment is the best guess
      task = rest.split('.')[0] ?? rest;
    }
    const sub = rest.slice(task.length + 1).replace(/\[\d+\]$/, '');
    if (sub === '') return { scope: 'task', task };
    if ((TASK_FIELDS as readonly string[]).includes(sub)) return { scope: 'task', task, field: sub as TaskField };
    // env.NAME: the env list, naming the variable
    if (sub.startsWith('env.')) return { scope: 'task', task, field: 'env', detail: sub.slice(4) };
    // upstream[2].ref (a { ref, date } item): the upstream field
    const first = (sub.split('.')[0] as string).replace(/\[\d+\]$/, '');
    return (TASK_FIELDS as readonly string[]).includes(first)
      ? { scope: 'task', task, field: first as TaskField, detail: sub }
      : { scope: 'task', task, detail: sub };
  }
  if (path === '') return { scope: 'workflow' };
  if (path.startsWith('params.')) {
    const rest = path.slice('params.'.length);
    const param = longestName(rest, paramNames) ?? rest.split('.')[0];
    return param ? { scope: 'workflow', field: 'params', param } : { scope: 'workflow', field: 'params' };
  }
  // the short schedule form reports at "schedule"; the form edits it as the cron
  if (path === 'schedule') return { scope: 'workflow', field: 'schedule.cron' };
  if ((WORKFLOW_FIELDS as readonly string[]).includes(path)) return { scope: 'workflow', field: path as WorkflowField };
  const first = path.split('.')[0] as string;
  return (WORKFLOW_FIELDS as readonly string[]).includes(first)
    ? { scope: 'workflow', field: first as WorkflowField }
    : { scope: 'workflow' };
}

export interface PlacedProblem extends ValidationProblem {
  place: ProblemPlace;
}

export function placeProblems(
  problems: readonly ValidationProblem[],
  taskNames: readonly string[],
  paramNames: readonly string[] = [],
): PlacedProblem[] {
  return problems.map((p) => ({ ...p, place: locateProblem(p.path, taskNames, paramNames) }));
}

/** messages per field of one task, e.g. { timeout: ['…'] } ('' for the task as a whole) */
export function taskFieldMessages(problems: readonly PlacedProblem[], task: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of problems) {
    if (p.place.scope !== 'task' || p.place.task !== task) continue;
    const key = p.place.field ?? '';
    out.set(key, [...(out.get(key) ?? []), p.message]);
  }
  return out;
}

/** messages per workflow field ('' for the workflow as a whole, `params.NAME` for one param) */
export function workflowFieldMessages(problems: readonly PlacedProblem[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of problems) {
    if (p.place.scope !== 'workflow') continue;
    const key = p.place.param !== undefined ? `params.${p.place.param}` : (p.place.field ?? '');
    out.set(key, [...(out.get(key) ?? []), p.message]);
  }
  return out;
}

/** number of problems per task name, for the node badges */
export function problemCounts(problems: readonly PlacedProblem[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of problems) if (p.place.scope === 'task') out.set(p.place.task, (out.get(p.place.task) ?? 0) + 1);
  return out;
}

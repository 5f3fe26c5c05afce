// Edits of a WorkflowSpec, as pure functions. The spec itself is the designer's document, so a
// workflow opened and saved unchanged is the very object the engine sent: every field is kept
// (even ones no form shows), tasks keep their order, and an edit replaces only the task it
// touches (the others stay the same objects, which keeps node re-renders cheap).
import type { RetryBackoff, TaskSpec, WorkflowSpec } from '../../../../engine/api/types.ts';
import { findCycle, type Edge } from '../../../../engine/core/model/dag.ts';

/** the workflow file's rule for workflow, task and event names */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
export const DEFAULT_BACKOFF: RetryBackoff = { kind: 'fixed', delayMs: 10_000, maxDelayMs: 10_000 };
/** the parser's cap for exponential backoff when none is given */
export const EXPONENTIAL_MAX_MS = 3_600_000;

export function emptySpec(): WorkflowSpec {
  return { name: '', routing: 'round_robin', tasks: [] };
}

export function newTask(name: string): TaskSpec {
  return { name, command: '', env: {}, retries: 0, retryBackoff: { ...DEFAULT_BACKOFF }, labels: [], upstream: [] };
}

/** "task-1", "task-2", … : the first that is free */
export function freeTaskName(spec: WorkflowSpec, base = 'task'): string {
  const taken = new Set(spec.tasks.map((t) => t.name));
  for (let i = 1; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

export function findTask(spec: WorkflowSpec, name: string): TaskSpec | undefined {
  return spec.tasks.find((t) => t.name === name);
}

export function addTask(spec: WorkflowSpec, task: TaskSpec): WorkflowSpec {
  return { ...spec, tasks: [...spec.tasks, task] };
}

export function updateTask(
  spec: WorkflowSpec,
  name: string,
  patch: Partial<Omit<TaskSpec, 'name' | 'upstream'>>,
): WorkflowSpec {
  return { ...spec, tasks: spec.tasks.map((t) => (t.name === name ? withFields<TaskSpec>(t, patch) : t)) };
}

export function updateWorkflow(spec: WorkflowSpec, patch: Partial<Omit<WorkflowSpec, 'tasks'>>): WorkflowSpec {
  return withFields<WorkflowSpec>(spec, patch);
}

/** Applies a patch; a field set to undefined is removed (so optional fields really go away). */
function withFields<T extends object>(target: T, patch: Partial<T>): T {
  const out = { ...target } as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out as T;
}

export type RenameProblem = 'empty' | 'invalid' | 'taken';

export function checkTaskName(spec: WorkflowSpec, name: string, current?: string): RenameProblem | undefined {
  if (name === '') return 'empty';
  if (!NAME_PATTERN.test(name)) return 'invalid';
  if (name !== current && spec.tasks.some((t) => t.name === name)) return 'taken';
  return undefined;
}

/** Renames a task and every upstream reference to it, in place in each list. */
export function renameTask(
  spec: WorkflowSpec,
  from: string,
  to: string,
): { spec: WorkflowSpec } | { problem: RenameProblem } {
  if (from === to) return { spec };
  const problem = checkTaskName(spec, to, from);
  if (problem) return { problem };
  return {
    spec: {
      ...spec,
      tasks: spec.tasks.map((t) => {
        const renamed = t.name === from ? { ...t, name: to } : t;
        return renamed.upstream.includes(from)
          ? { ...renamed, upstream: renamed.upstream.map((u) => (u === from ? to : u)) }
          : renamed;
      }),
    },
  };
}

/** Removes tasks and every edge that touches them. */
export function removeTasks(spec: WorkflowSpec, names: readonly string[]): WorkflowSpec {
  const gone = new Set(names);
  if (!spec.tasks.some((t) => gone.has(t.name))) return spec;
  return {
    ...spec,
    tasks: spec.tasks
      .filter((t) => !gone.has(t.name))
      .map((t) =>
        t.upstream.some((u) => gone.has(u)) ? { ...t, upstream: t.upstream.filter((u) => !gone.has(u)) } : t,
      ),
  };
}

/** upstream → downstream pairs, in task order then upstream-list order */
export function edgesOf(spec: WorkflowSpec): Edge<string>[] {
  const out: Edge<string>[] = [];
  for (const t of spec.tasks) for (const up of t.upstream) out.push([up, t.name]);
  return out;
}

export type ConnectResult = { spec: WorkflowSpec } | { cycle: string[] } | { unchanged: true };

/**
 * Adds the edge up → down (appended to down's upstream list) unless it would close a cycle; the
 * refusal names the cycle starting at `down`, so "a → b → c → a" reads along the edges.
 */
export function connect(spec: WorkflowSpec, up: string, down: string): ConnectResult {
  const target = findTask(spec, down);
  if (!target || !findTask(spec, up) || target.upstream.includes(up)) return { unchanged: true };
  if (up === down) return { cycle: [up, up] };
  const names = spec.tasks.map((t) => t.name);
  const cycle = findCycle(names, [...edgesOf(spec), [up, down]]);
  if (cycle) return { cycle: rotate(cycle, down) };
  return {
    spec: { ...spec, tasks: spec.tasks.map((t) => (t === target ? { ...t, upstream: [...t.upstream, up] } : t)) },
  };
}

/** [x, y, z, x] rotated to start at `start` when it is on the cycle */
function rotate(cycle: string[], start: string): string[] {
  const ring = cycle.slice(0, -1);
  const at = ring.indexOf(start);
  if (at <= 0) return cycle;
  const turned = [...ring.slice(at), ...ring.slice(0, at)];
  return [...turned, start];
}

export function disconnect(spec: WorkflowSpec, edges: readonly (readonly [string, string])[]): WorkflowSpec {
  if (edges.length === 0) return spec;
  const drop = new Map<string, Set<string>>();
  for (const [up, down] of edges) (drop.get(down) ?? drop.set(down, new Set()).get(down)!).add(up);
  let changed = false;
  const tasks = spec.tasks.map((t) => {
    const ups = drop.get(t.name);
    if (!ups || !t.upstream.some((u) => ups.has(u))) return t;
    changed = true;
    return { ...t, upstream: t.upstream.filter((u) => !ups.has(u)) };
  });
  return changed ? { ...spec, tasks } : spec;
}

/** Sets a task's upstream list (the panel's keyboard path to edges), refusing a cycle. */
export function setUpstream(spec: WorkflowSpec, name: string, upstream: readonly string[]): ConnectResult {
  const task = findTask(spec, name);
  if (!task) return { unchanged: true };
  const kept = task.upstream.filter((u) => upstream.includes(u));
  let next = disconnect(
    spec,
    task.upstream.filter((u) => !upstream.includes(u)).map((u) => [u, name] as const),
  );
  for (const up of upstream) {
    if (kept.includes(up)) continue;
    const r = connect(next, up, name);
    if ('cycle' in r) return r;
    if ('spec' in r) next = r.spec;
  }
  return next === spec ? { unchanged: true } : { spec: next };
}

/**
 * Puts back what the edit `before` → `after` removed (tasks with their connections, or lone
 * connections) into `current`, a spec edited since: each task at its old place with its old
 * upstreams, each connection re-made. A task whose name has been taken since, or a connection
 * that would now close a cycle or lost an end, stays out.
 */
export function restoreRemoved(current: WorkflowSpec, before: WorkflowSpec, after: WorkflowSpec): WorkflowSpec {
  const kept = new Set(after.tasks.map((t) => t.name));
  const taken = new Set(current.tasks.map((t) => t.name));
  const tasks = [...current.tasks];
  before.tasks.forEach((t, i) => {
    if (!kept.has(t.name) && !taken.has(t.name)) tasks.splice(Math.min(i, tasks.length), 0, { ...t, upstream: [] });
  });
  let next: WorkflowSpec = tasks.length === current.tasks.length ? current : { ...current, tasks };
  const stayed = new Set(edgesOf(after).map(([up, down]) => `${up}\u0000${down}`));
  for (const [up, down] of edgesOf(before)) {
    if (stayed.has(`${up}\u0000${down}`)) continue;
    const r = connect(next, up, down);
    if ('spec' in r) next = r.spec;
  }
  return next;
}

// The workflow-level settings tasks inherit (WorkflowSpec.taskDefaults: env, cwd, timeout,
// retries, retry backoff, labels), as the designer edits them. Each TaskSpec holds its effective
// values (its own where it differs from what it inherits, else the workflow's; env merged key by
// key); the engine's export writes a task's value on the task only where it differs. So when the
// workflow's setting changes, every task that inherited it takes the new value, and a task that
// overrode it keeps its own: `withTaskDefaults` does that in one edit (one undo step).
import type { EnvValue } from '../../../../engine/api/secrets.ts';
import type { RetryBackoff, TaskDefaults, TaskSpec, WorkflowSpec } from '../../../../engine/api/types.ts';
import { DEFAULT_BACKOFF } from './spec-ops.ts';

type Settings = Pick<TaskSpec, 'env' | 'cwd' | 'timeoutMs' | 'retries' | 'retryBackoff' | 'labels'>;

/** what a task that writes none of the settings gets under these defaults */
function inherited(d: TaskDefaults | undefined): Settings {
  return {
    env: d?.env ?? {},
    cwd: d?.cwd,
    timeoutMs: d?.timeoutMs,
    retries: d?.retries ?? 0,
    retryBackoff: d?.retryBackoff ?? DEFAULT_BACKOFF,
    labels: d?.labels ?? [],
  };
}

const sameEnvValue = (a: EnvValue | undefined, b: EnvValue | undefined): boolean =>
  typeof a === 'object' && typeof b === 'object' ? a.secret === b.secret : a === b;
const sameBackoff = (a: RetryBackoff, b: RetryBackoff): boolean =>
  a.kind === b.kind && a.delayMs === b.delayMs && a.maxDelayMs === b.maxDelayMs;
const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The task under new defaults: each setting it inherited follows them, each it set itself stays. */
export function rebaseTask(
  task: TaskSpec,
  before: TaskDefaults | undefined,
  after: TaskDefaults | undefined,
): TaskSpec {
  const old = inherited(before);
  const next = inherited(after);
  const out: Record<string, unknown> = { ...task };
  let changed = false;
  const set = (key: keyof Settings, value: unknown) => {
    if (value === undefined) {
      if (key in out) {
        delete out[key];
        changed = true;
      }
    } else if (out[key] !== value) {
      out[key] = value;
      changed = true;
    }
  };
  // env: the task's own keys (absent from the old defaults, or different) over the new defaults
  const own = Object.entries(task.env).filter(([k, v]) => !sameEnvValue(old.env[k], v));
  const env = { ...next.env, ...Object.fromEntries(own) };
  if (JSON.stringify(Object.entries(env)) !== JSON.stringify(Object.entries(task.env))) set('env', env);
  if ((task.cwd ?? undefined) === old.cwd) set('cwd', next.cwd);
  if (task.timeoutMs === old.timeoutMs) set('timeoutMs', next.timeoutMs);
  if (task.retries === old.retries) set('retries', next.retries);
  if (sameBackoff(task.retryBackoff, old.retryBackoff) && !sameBackoff(task.retryBackoff, next.retryBackoff))
    set('retryBackoff', next.retryBackoff);
  if (sameList(task.labels, old.labels) && !sameList(task.labels, next.labels)) set('labels', next.labels);
  return changed ? (out as unknown as TaskSpec) : task;
}

/** One setting of the workflow changed (undefined removes it): the defaults and the tasks that follow. */
export function withTaskDefaults(spec: WorkflowSpec, patch: Partial<TaskDefaults>): WorkflowSpec {
  const before = spec.taskDefaults;
  const merged: Record<string, unknown> = { ...before, ...patch };
  for (const [k, v] of Object.entries(patch)) if (v === undefined) delete merged[k];
  const after = Object.keys(merged).length > 0 ? (merged as TaskDefaults) : undefined;
  const tasks = spec.tasks.map((t) => rebaseTask(t, before, after));
  const out: WorkflowSpec = { ...spec, tasks };
  if (after) out.taskDefaults = after;
  else delete out.taskDefaults;
  return out;
}

/** Whether a task's setting is the one it inherits (the task panel says so). */
export function inheritsSetting(task: TaskSpec, defaults: TaskDefaults | undefined, key: keyof Settings): boolean {
  if (!defaults || defaults[key] === undefined) return false;
  const base = inherited(defaults);
  switch (key) {
    case 'env':
      return false;
    case 'retryBackoff':
      return sameBackoff(task.retryBackoff, base.retryBackoff);
    case 'labels':
      return sameList(task.labels, base.labels);
    default:
      return task[key] === base[key];
  }
}

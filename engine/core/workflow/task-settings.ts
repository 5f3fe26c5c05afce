// The settings a task may write itself and a workflow may write once for all its tasks (env, cwd,
// timeout, retries, retry_backoff, labels), read the same way at both levels, and how a task
// inherits them: its own value wins; env is merged key by key, the task's key winning.
//
// What the spec keeps: WorkflowSpec.taskDefaults holds the workflow-level values as written; each
// TaskSpec holds its effective values (what runs, stored in task_definition). Export writes a
// task's value on the task only where it differs from what the task would inherit
// (`ownSettings`), so workflow-level settings stay workflow-level and a task's override stays on
// the task; a task that repeats the workflow's value exactly loses only the repetition.
import { type EnvValue, secretNameProblem } from '../../api/secrets.ts';
import { DEFAULT_RETRY_DELAY_MS, type RetryBackoff, type TaskDefaults, type TaskSpec } from '../../api/types.ts';
import { formatDuration } from '../model/duration.ts';
import { type Reader, typeName, type YMap } from './workflow-reader.ts';

/** The keys of the settings a workflow's top level may give its tasks. */
export const WORKFLOW_TASK_SETTINGS = ['env', 'cwd', 'timeout', 'retries', 'retry_backoff', 'labels'] as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_RETRIES = 100;
const EXPONENTIAL_MAX_MS = 3_600_000;
const BACKOFF_KEYS = ['strategy', 'delay', 'max'];
const STRATEGY = ['fixed', 'exponential'] as const;
export const DEFAULT_BACKOFF: RetryBackoff = {
  kind: 'fixed',
  delayMs: DEFAULT_RETRY_DELAY_MS,
  maxDelayMs: DEFAULT_RETRY_DELAY_MS,
};

/** A path that does not depend on a current directory: /srv/etl, C:\jobs, \\server\share. */
export const isAbsolutePath = (p: string): boolean => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(p);

function readBackoff(r: Reader, v: unknown, path: string): RetryBackoff {
  if (!(v instanceof Map)) {
    const delayMs = r.duration(v, path) ?? DEFAULT_RETRY_DELAY_MS;
    return { kind: 'fixed', delayMs, maxDelayMs: delayMs };
  }
  const m = v as YMap;
  r.keys(m, BACKOFF_KEYS, path);
  const kind = r.choice(m, 'strategy', path, STRATEGY, 'fixed');
  const delayMs = m.has('delay')
    ? (r.duration(m.get('delay'), `${path}.delay`) ?? DEFAULT_RETRY_DELAY_MS)
    : DEFAULT_RETRY_DELAY_MS;
  // fixed backoff ignores the cap; exponential is capped at an hour unless told otherwise
  const fallbackMax = kind === 'fixed' ? delayMs : Math.max(EXPONENTIAL_MAX_MS, delayMs);
  const maxDelayMs = m.has('max') ? (r.duration(m.get('max'), `${path}.max`) ?? fallbackMax) : fallbackMax;
  if (maxDelayMs < delayMs) r.add(`${path}.max`, `must be at least the delay (${formatDuration(delayMs)})`);
  return { kind, delayMs, maxDelayMs };
}

/** `{ secret: NAME }`: the value is the worker's secret NAME, never written in the workflow. */
function readSecretRef(r: Reader, m: YMap, at: string, set: (name: string) => void): void {
  r.keys(m, ['secret'], at);
  const name = m.get('secret');
  if (name === undefined)
    r.add(
      `${at}.secret`,
      'missing: write { secret: NAME } to take the value from the secret NAME set with "ax secrets set NAME"',
    );
  else if (typeof name !== 'string') r.add(`${at}.secret`, `must be a secret name (got ${typeName(name)})`);
  else {
    const problem = secretNameProblem(name);
    if (problem) r.add(`${at}.secret`, problem);
    else set(name);
  }
}

function readEnv(r: Reader, v: unknown, path: string): TaskDefaults['env'] {
  const m = r.map(v, path, 'a map of NAME: value (or NAME: { secret: SECRET })');
  if (!m) return undefined;
  const env: NonNullable<TaskDefaults['env']> = {};
  for (const [key, value] of m) {
    const at = `${path}.${key}`;
    if (!ENV_NAME.test(key))
      r.add(at, `"${key}" is not a valid variable name: use letters, digits and "_", not a leading digit`);
    else if (typeof value === 'string') env[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') env[key] = r.scalarText.get(at) ?? String(value);
    else if (value instanceof Map) readSecretRef(r, value as YMap, at, (secret) => (env[key] = { secret }));
    else
      r.add(
        at,
        `must be a string, number, boolean or { secret: NAME } (got ${typeName(value)}): write "" for an empty value`,
      );
  }
  return env;
}

/**
 * The settings a map (a task, or the workflow's top level) gives itself: only the keys it has.
 * `path` is the map's own ("tasks.load", or "" for the top level).
 */
export function readSettings(
  r: Reader,
  m: YMap,
  path: string,
  resolveCwd: ((cwd: string) => string) | undefined,
): TaskDefaults {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  const own: TaskDefaults = {};
  if (m.has('env')) {
    const env = readEnv(r, m.get('env'), at('env'));
    if (env) own.env = env;
  }
  const cwd = r.text(m, 'cwd', path);
  if (cwd !== undefined) {
    if (isAbsolutePath(cwd)) own.cwd = cwd;
    else if (resolveCwd) own.cwd = resolveCwd(cwd);
    else
      r.add(
        at('cwd'),
        `"${cwd}" is a relative path: write the full path, e.g. "/srv/etl" ("ax apply FILE" resolves it against the file's directory)`,
      );
  }
  if (m.has('timeout')) {
    const ms = r.duration(m.get('timeout'), at('timeout'));
    if (ms === 0) r.add(at('timeout'), 'must be longer than 0: leave timeout out for no limit');
    else if (ms !== undefined) own.timeoutMs = ms;
  }
  const retries = m.get('retries');
  if (retries !== undefined) {
    const got = typeof retries === 'number' ? retries : typeName(retries);
    if (Number.isInteger(retries) && (retries as number) >= 0 && (retries as number) <= MAX_RETRIES)
      own.retries = retries as number;
    else r.add(at('retries'), `must be a whole number from 0 to ${MAX_RETRIES} (got ${got})`);
  }
  if (m.has('retry_backoff')) own.retryBackoff = readBackoff(r, m.get('retry_backoff'), at('retry_backoff'));
  if (m.has('labels')) own.labels = r.list(m, 'labels', path, 'labels', 'gpu');
  return own;
}

/** What a task that writes none of the settings gets: the workflow's, or the engine's defaults. */
export function inheritedSettings(
  defaults: TaskDefaults | undefined,
): Required<Omit<TaskDefaults, 'cwd' | 'timeoutMs'>> & Pick<TaskDefaults, 'cwd' | 'timeoutMs'> {
  return {
    env: defaults?.env ?? {},
    ...(defaults?.cwd !== undefined && { cwd: defaults.cwd }),
    ...(defaults?.timeoutMs !== undefined && { timeoutMs: defaults.timeoutMs }),
    retries: defaults?.retries ?? 0,
    retryBackoff: defaults?.retryBackoff ?? DEFAULT_BACKOFF,
    labels: defaults?.labels ?? [],
  };
}

/** A task's effective settings: its own where it wrote them, else inherited; env merged key by key. */
export function effectiveSettings(
  own: TaskDefaults,
  defaults: TaskDefaults | undefined,
): Pick<TaskSpec, 'env' | 'cwd' | 'timeoutMs' | 'retries' | 'retryBackoff' | 'labels'> {
  const base = inheritedSettings(defaults);
  const cwd = own.cwd ?? base.cwd;
  const timeoutMs = own.timeoutMs ?? base.timeoutMs;
  return {
    env: { ...base.env, ...own.env },
    ...(cwd !== undefined && { cwd }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    retries: own.retries ?? base.retries,
    retryBackoff: own.retryBackoff ?? base.retryBackoff,
    labels: own.labels ?? base.labels,
  };
}

const sameEnv = (a: EnvValue | undefined, b: EnvValue): boolean =>
  typeof a === 'string' || typeof b === 'string' ? a === b : a?.secret === b.secret;
const sameBackoff = (a: RetryBackoff, b: RetryBackoff): boolean =>
  a.kind === b.kind && a.delayMs === b.delayMs && a.maxDelayMs === b.maxDelayMs;
const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The settings a task must write itself for its effective values, given the workflow's: each
 * one that differs from what it would inherit (env: each key that differs or is its own).
 */
export function ownSettings(task: TaskSpec, defaults: TaskDefaults | undefined): TaskDefaults {
  const base = inheritedSettings(defaults);
  const own: TaskDefaults = {};
  const env = Object.entries(task.env).filter(([k, v]) => !sameEnv(base.env[k], v));
  if (env.length > 0) own.env = Object.fromEntries(env);
  if (task.cwd !== undefined && task.cwd !== '' && task.cwd !== base.cwd) own.cwd = task.cwd;
  if (task.timeoutMs !== undefined && task.timeoutMs !== base.timeoutMs) own.timeoutMs = task.timeoutMs;
  if (task.retries !== base.retries) own.retries = task.retries;
  if (!sameBackoff(task.retryBackoff, base.retryBackoff)) own.retryBackoff = task.retryBackoff;
  if (!sameList(task.labels, base.labels)) own.labels = task.labels;
  return own;
}

/** True when the workflow gives its tasks nothing (the spec then has no taskDefaults). */
export const noSettings = (s: TaskDefaults): boolean => Object.keys(s).length === 0;

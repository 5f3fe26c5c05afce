// The workflow file (YAML or JSON) ↔ WorkflowSpec. Parsing reports every problem at once, each
// with a field path and a message that says the fix; serializing gives one canonical text so
// that `ax export` then `ax apply` is a no-op.
import { type Document, isAlias, isMap, isScalar, isSeq, Lexer, parseDocument, type YAMLError } from 'yaml';
import { ValidationError, type ValidationProblem } from '../api/errors.ts';
import { DEFAULT_RETRY_DELAY_MS, type RetryBackoff, type ScheduleSpec, type TaskSpec, type WorkflowSpec } from '../api/types.ts';
import { validateCron, validateTimezone } from './cron.ts';
import { findCycle, type Edge } from './dag.ts';
import { formatDuration, parseDuration } from './duration.ts';

export interface ParseOptions {
  file?: string;
  defaultTimezone: string;
  /**
   * Makes a relative `cwd` absolute: the CLI resolves it against the workflow file's directory.
   * Without it (the UI, the API) a relative cwd is refused: the engine's own directory would be
   * a silent, surprising base.
   */
  resolveCwd?: (cwd: string) => string;
}

/** Workflow files larger than this are refused before parsing: the YAML document model takes 50-100× the file in memory. */
export const MAX_WORKFLOW_FILE_BYTES = 5 * 1024 * 1024;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_RETRIES = 100;
const DEFAULT_DELAY_MS = DEFAULT_RETRY_DELAY_MS;
const EXPONENTIAL_MAX_MS = 3_600_000;
const MAX_DEPTH = 64; // a workflow file nests 4 levels; deeper means an alias loop or a mistake
const MAX_ALIASED = 10_000; // values copied through aliases; stops "billion laughs" expansion
const TOP_KEYS = ['workflow', 'description', 'owner', 'schedule', 'on_event', 'routing', 'tasks'];
const SCHEDULE_KEYS = ['cron', 'timezone', 'misfire', 'overlap'];
const TASK_KEYS = ['command', 'cwd', 'env', 'timeout', 'retries', 'retry_backoff', 'labels', 'upstream', 'owner'];
const BACKOFF_KEYS = ['strategy', 'delay', 'max'];
const MISFIRE = ['run_once', 'skip', 'all'] as const;
const OVERLAP = ['skip', 'queue', 'parallel'] as const;
const ROUTING = ['round_robin', 'random', 'least_busy'] as const;
const STRATEGY = ['fixed', 'exponential'] as const;
export const COMMENT_WARNING = 'comments are not stored: "ax export" will not reproduce them';

type YMap = Map<string, unknown>;
const join = (path: string, key: string | number): string => (path === '' ? String(key) : `${path}.${key}`);

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (v instanceof Map) return 'a map';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}

/** Levenshtein distance, for "did you mean" hints. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = row;
  }
  return prev[b.length] as number;
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length > 5 ? 2 : 1;
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d <= limit && d < bestD) [best, bestD] = [c, d];
  }
  return best;
}

/** A path that does not depend on a current directory: /srv/etl, C:\jobs, \\server\share. */
export const isAbsolutePath = (p: string): boolean => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(p);

const NUL_HINT = 'contains a NUL character (\\0), which no command, path or variable can hold: remove it';

const nameHint = (v: string): string =>
  `"${v}" is not a valid name: use letters, digits, "_", "." or "-", starting with a letter or digit (at most 100 characters)`;

/** Collects problems while turning the YAML tree into plain values. */
class Reader {
  readonly problems: ValidationProblem[] = [];
  /** source text of number/boolean scalars by path, so env "1.10" is not turned into "1.1" */
  readonly scalarText = new Map<string, string>();
  private aliased = 0;

  constructor(
    private readonly file: string | undefined,
    private readonly doc: Document,
  ) {}

  add(path: string, message: string): void {
    this.problems.push(this.file === undefined ? { path, message } : { file: this.file, path, message });
  }

  /** Maps become Map (keeps file order, even for keys like "2"); duplicate keys are reported. */
  plain(node: unknown, path: string, depth = 0, viaAlias = false): unknown {
    if (depth > MAX_DEPTH) {
      this.add(path, 'nested too deeply (is an alias referring to itself?)');
      return undefined;
    }
    if (viaAlias && ++this.aliased > MAX_ALIASED) {
      if (this.aliased === MAX_ALIASED + 1) this.add(path, `aliases expand to more than ${MAX_ALIASED} values: write them out`);
      return undefined;
    }
    if (isAlias(node)) return this.plain(node.resolve(this.doc), path, depth + 1, true);
    if (isScalar(node)) {
      if (typeof node.value === 'string' && node.value.includes('\0')) this.add(path, NUL_HINT);
      if (typeof node.value !== 'string' && node.source !== undefined) this.scalarText.set(path, node.source);
      return node.value;
    }
    if (isSeq(node)) return node.items.map((item, i) => this.plain(item, `${path}[${i}]`, depth + 1, viaAlias));
    if (!isMap(node)) return null;
    const out: YMap = new Map();
    for (const pair of node.items) {
      const k = pair.key;
      if (!isScalar(k) || k.value === null || typeof k.value === 'object') {
        this.add(path, 'every key must be a plain name');
        continue;
      }
      const key = typeof k.value === 'string' ? k.value : (k.source ?? String(k.value));
      const at = join(path, key);
      if (key.includes('\0')) {
        this.add(join(path, key.replaceAll('\0', '\\0')), `key ${NUL_HINT}`);
        continue;
      }
      if (out.has(key)) {
        const what = path === 'tasks' ? `task "${key}": task names must be unique` : `key "${key}": write each key once`;
        this.add(at, `duplicate ${what}`);
        continue;
      }
      out.set(key, this.plain(pair.value, at, depth + 1, viaAlias));
    }
    return out;
  }

  map(v: unknown, path: string, what: string): YMap | undefined {
    if (v instanceof Map) return v as YMap;
    this.add(path, `must be ${what} (got ${typeName(v)})`);
    return undefined;
  }

  keys(m: YMap, allowed: readonly string[], path: string): void {
    for (const key of m.keys()) {
      if (allowed.includes(key)) continue;
      const guess = closest(key, allowed);
      const hint = guess ? `did you mean '${guess}'?` : `allowed keys are ${allowed.join(', ')}`;
      this.add(join(path, key), `unknown key "${key}": ${hint}`);
    }
  }

  /** An optional string; an empty one counts as absent. */
  text(m: YMap, key: string, path: string): string | undefined {
    const v = m.get(key);
    if (v === undefined || v === '') return undefined;
    if (typeof v === 'string') return v;
    this.add(join(path, key), `must be a string (got ${typeName(v)}): put the value in quotes`);
    return undefined;
  }

  name(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string') this.add(path, `must be a name in quotes, e.g. "nightly-etl" (got ${typeName(v)})`);
    else if (!NAME.test(v)) this.add(path, nameHint(v));
    else return v;
    return undefined;
  }

  choice<T extends string>(m: YMap, key: string, path: string, allowed: readonly T[], fallback: T): T {
    const v = m.get(key);
    if (v === undefined) return fallback;
    if (allowed.includes(v as T)) return v as T;
    this.add(join(path, key), `must be one of ${allowed.join(', ')} (got ${typeof v === 'string' ? `"${v}"` : typeName(v)})`);
    return fallback;
  }

  duration(v: unknown, path: string): number | undefined {
    if (typeof v !== 'string' && typeof v !== 'number') {
      this.add(path, `must be a duration such as "30m" (got ${typeName(v)})`);
      return undefined;
    }
    const d = parseDuration(String(v));
    if ('ms' in d) return d.ms;
    this.add(path, d.error);
    return undefined;
  }

  list(m: YMap, key: string, path: string, what: string, example: string): string[] {
    const v = m.get(key);
    const at = join(path, key);
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      this.add(at, `must be a list of ${what}, e.g. [${example}] (got ${typeName(v)})`);
      return [];
    }
    const bad = v.find((x) => typeof x !== 'string' || x === '');
    if (bad !== undefined) {
      this.add(at, `must be a list of ${what}, e.g. [${example}] (got an item that is ${bad === '' ? 'empty' : typeName(bad)})`);
      return [];
    }
    const out = new Set<string>();
    for (const item of v as string[]) {
      if (out.has(item)) this.add(at, `"${item}" is listed twice: list it once`);
      else out.add(item);
    }
    return [...out];
  }
}

function readSchedule(r: Reader, v: unknown, defaultTimezone: string): ScheduleSpec | undefined {
  const spec: ScheduleSpec = { cron: typeof v === 'string' ? v : '', timezone: defaultTimezone, misfire: 'run_once', overlap: 'skip' };
  let cron: unknown = v;
  const cronPath = typeof v === 'string' ? 'schedule' : 'schedule.cron';
  if (typeof v !== 'string') {
    const m = r.map(v, 'schedule', 'a cron string or a map with "cron" and "timezone"');
    if (!m) return undefined;
    r.keys(m, SCHEDULE_KEYS, 'schedule');
    cron = m.get('cron');
    if (cron === undefined) r.add(cronPath, 'missing: add the cron expression, e.g. cron: "0 2 * * *"');
    else if (typeof cron !== 'string') r.add(cronPath, `must be a cron expression in quotes (got ${typeName(cron)})`);
    else spec.cron = cron;
    const tz = r.text(m, 'timezone', 'schedule');
    const problem = tz === undefined ? undefined : validateTimezone(tz);
    if (problem) r.add('schedule.timezone', problem);
    spec.timezone = tz ?? defaultTimezone;
    spec.misfire = r.choice(m, 'misfire', 'schedule', MISFIRE, 'run_once');
    spec.overlap = r.choice(m, 'overlap', 'schedule', OVERLAP, 'skip');
  }
  const problem = typeof cron === 'string' ? validateCron(cron) : undefined;
  if (problem) r.add(cronPath, problem);
  return spec;
}

function readBackoff(r: Reader, v: unknown, path: string): RetryBackoff {
  if (v === undefined) return { kind: 'fixed', delayMs: DEFAULT_DELAY_MS, maxDelayMs: DEFAULT_DELAY_MS };
  if (!(v instanceof Map)) {
    const delayMs = r.duration(v, path) ?? DEFAULT_DELAY_MS;
    return { kind: 'fixed', delayMs, maxDelayMs: delayMs };
  }
  const m = v as YMap;
  r.keys(m, BACKOFF_KEYS, path);
  const kind = r.choice(m, 'strategy', path, STRATEGY, 'fixed');
  const delayMs = m.has('delay') ? (r.duration(m.get('delay'), `${path}.delay`) ?? DEFAULT_DELAY_MS) : DEFAULT_DELAY_MS;
  // fixed backoff ignores the cap; exponential is capped at an hour unless told otherwise
  const fallbackMax = kind === 'fixed' ? delayMs : Math.max(EXPONENTIAL_MAX_MS, delayMs);
  const maxDelayMs = m.has('max') ? (r.duration(m.get('max'), `${path}.max`) ?? fallbackMax) : fallbackMax;
  if (maxDelayMs < delayMs) r.add(`${path}.max`, `must be at least the delay (${formatDuration(delayMs)})`);
  return { kind, delayMs, maxDelayMs };
}

function readTask(r: Reader, name: string, v: unknown, resolveCwd: ParseOptions['resolveCwd']): TaskSpec | undefined {
  const path = join('tasks', name);
  const m = r.map(v, path, 'a map with at least "command"');
  if (!m) return undefined;
  r.keys(m, TASK_KEYS, path);
  const command = m.get('command');
  let cmd = '';
  if (command === undefined || command === null) r.add(`${path}.command`, 'missing: every task needs a "command" to run');
  else if (typeof command !== 'string') r.add(`${path}.command`, `must be a string (got ${typeName(command)}): put it in quotes`);
  else if (command.trim() === '') r.add(`${path}.command`, 'command is empty: write the shell command to run');
  else cmd = command;
  const task: TaskSpec = {
    name,
    command: cmd,
    env: {},
    retries: 0,
    retryBackoff: readBackoff(r, m.get('retry_backoff'), `${path}.retry_backoff`),
    labels: r.list(m, 'labels', path, 'labels', 'gpu'),
    upstream: r.list(m, 'upstream', path, 'task names', 'extract'),
  };
  const cwd = r.text(m, 'cwd', path);
  if (cwd !== undefined) {
    if (isAbsolutePath(cwd)) task.cwd = cwd;
    else if (resolveCwd) task.cwd = resolveCwd(cwd);
    else r.add(`${path}.cwd`, `"${cwd}" is a relative path: write the full path, e.g. "/srv/etl" ("ax apply FILE" resolves it against the file's directory)`);
  }
  const owner = r.text(m, 'owner', path);
  if (owner !== undefined) task.owner = owner;
  const env = m.has('env') ? r.map(m.get('env'), `${path}.env`, 'a map of NAME: value') : undefined;
  for (const [key, value] of env ?? []) {
    const at = `${path}.env.${key}`;
    if (!ENV_NAME.test(key)) r.add(at, `"${key}" is not a valid variable name: use letters, digits and "_", not a leading digit`);
    else if (typeof value === 'string') task.env[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') task.env[key] = r.scalarText.get(at) ?? String(value);
    else r.add(at, `must be a string, number or boolean (got ${typeName(value)}): write "" for an empty value`);
  }
  if (m.has('timeout')) {
    const ms = r.duration(m.get('timeout'), `${path}.timeout`);
    if (ms === 0) r.add(`${path}.timeout`, 'must be longer than 0: leave timeout out for no limit');
    else if (ms !== undefined) task.timeoutMs = ms;
  }
  const retries = m.get('retries');
  if (retries !== undefined) {
    const got = typeof retries === 'number' ? retries : typeName(retries);
    if (Number.isInteger(retries) && (retries as number) >= 0 && (retries as number) <= MAX_RETRIES) task.retries = retries as number;
    else r.add(`${path}.retries`, `must be a whole number from 0 to ${MAX_RETRIES} (got ${got})`);
  }
  return task;
}

function checkEdges(r: Reader, tasks: TaskSpec[]): void {
  const names = tasks.map((t) => t.name);
  const known = new Set(names); // a Set: workflows may hold tens of thousands of tasks
  const edges: Edge<string>[] = [];
  for (const task of tasks) {
    for (const up of task.upstream) {
      const at = `tasks.${task.name}.upstream`;
      if (up === task.name) r.add(at, `a task cannot be upstream of itself: remove "${up}"`);
      else if (!known.has(up)) {
        const guess = closest(up, names);
        r.add(at, `unknown task "${up}": ${guess ? `did you mean '${guess}'?` : 'upstream must name a task in this workflow'}`);
      } else edges.push([up, task.name]);
    }
  }
  const cycle = findCycle(names, edges);
  if (cycle) r.add('tasks', `cycle: ${cycle.join(' → ')}`);
}

function syntaxMessage(e: YAMLError): string {
  const pos = e.linePos?.[0];
  const at = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
  if (e.code === 'MULTIPLE_DOCS') return `invalid YAML${at}: a file holds one workflow: move the part after this "---" to its own file`;
  const first = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  return `invalid YAML${at}: ${first}`;
}

const MB = 1024 * 1024;
const tooLarge = (size: number): string =>
  `the file is ${(size / MB).toFixed(1)} MB, over the ${MAX_WORKFLOW_FILE_BYTES / MB} MB limit for a workflow file: split it into several workflows`;

/** The size-limit problem of a file of `size` bytes, if any: checked before reading it. */
export function fileSizeProblem(size: number): string | undefined {
  return size > MAX_WORKFLOW_FILE_BYTES ? tooLarge(size) : undefined;
}

/**
 * The text of a workflow file's bytes. Refused when over the size limit, or when not UTF-8 (a
 * Latin-1 "café" would otherwise run as "caf\uFFFD"), naming the first bad byte by offset, line
 * and column.
 */
export function decodeWorkflowFile(bytes: Uint8Array, file?: string): string {
  const fail = (message: string): never => {
    throw new ValidationError([{ ...(file !== undefined && { file }), path: '', message }]);
  };
  const size = fileSizeProblem(bytes.length);
  if (size) fail(size);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Everything before the first bad byte survives a lenient decode and re-encode unchanged.
    const again = new TextEncoder().encode(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes));
    let at = 0;
    while (at < bytes.length && bytes[at] === again[at]) at++;
    const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1;
    let line = 1;
    for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
    const column = new TextDecoder().decode(bytes.subarray(lineStart, at)).length + 1;
    const hex = (bytes[at] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return fail(`not UTF-8: byte 0x${hex} at offset ${at} (line ${line}, column ${column}) is not valid UTF-8: save the file as UTF-8 (it may be Latin-1 or UTF-16)`);
  }
}

/**
 * Parses and validates a workflow file; throws ValidationError listing every problem.
 * `timezoneDefaulted`: the file has a schedule without a timezone (opts.defaultTimezone was used).
 */
export function parseWorkflowFile(text: string, opts: ParseOptions): { spec: WorkflowSpec; warnings: string[]; timezoneDefaulted?: boolean } {
  if (text.length > MAX_WORKFLOW_FILE_BYTES) {
    throw new ValidationError([{ ...(opts.file !== undefined && { file: opts.file }), path: '', message: tooLarge(text.length) }]);
  }
  // JSON goes through the YAML parser as well: JSON.parse would silently keep the last duplicate.
  const doc = parseDocument(text, { uniqueKeys: false });
  const r = new Reader(opts.file, doc);
  for (const e of doc.errors) r.add('', syntaxMessage(e));
  if (r.problems.length > 0) throw new ValidationError(r.problems);
  const top = r.plain(doc.contents, '');
  if (top === null || top === undefined) r.add('', 'the file is empty: a workflow needs at least "workflow:" and "tasks:"');
  else if (!(top instanceof Map)) r.add('', `the top level must be a map with "workflow" and "tasks" keys (got ${typeName(top)})`);
  if (!(top instanceof Map)) throw new ValidationError(r.problems);

  const m = top as YMap;
  r.keys(m, TOP_KEYS, '');
  if (!m.has('workflow')) r.add('workflow', 'missing: add "workflow: <name>" at the top level');
  const name = m.has('workflow') ? r.name(m.get('workflow'), 'workflow') : undefined;
  const spec: WorkflowSpec = { name: name ?? '', routing: r.choice(m, 'routing', '', ROUTING, 'round_robin'), tasks: [] };
  const description = r.text(m, 'description', '');
  if (description !== undefined) spec.description = description;
  const owner = r.text(m, 'owner', '');
  if (owner !== undefined) spec.owner = owner;
  if (m.has('schedule')) spec.schedule = readSchedule(r, m.get('schedule'), opts.defaultTimezone);
  const onEvent = m.has('on_event') ? r.name(m.get('on_event'), 'on_event') : undefined;
  if (onEvent !== undefined) spec.onEvent = onEvent;

  const tasks = m.has('tasks') ? r.map(m.get('tasks'), 'tasks', 'a map of task name to task') : undefined;
  if (!m.has('tasks')) r.add('tasks', 'missing: add a "tasks" map with at least one task');
  else if (tasks?.size === 0) r.add('tasks', 'at least one task is required');
  for (const [name, value] of tasks ?? []) {
    if (!NAME.test(name)) r.add(join('tasks', name), nameHint(name));
    const task = readTask(r, name, value, opts.resolveCwd);
    if (task) spec.tasks.push(task);
  }
  checkEdges(r, spec.tasks);
  if (r.problems.length > 0) throw new ValidationError(r.problems);

  // Lexer tokens, not a regex: a "#" inside a quoted or block string is not a comment.
  const hasComment = text.includes('#') && [...new Lexer().lex(text)].some((token) => token.startsWith('#'));
  const given = m.get('schedule');
  const timezoneDefaulted = spec.schedule !== undefined && !(given instanceof Map && given.has('timezone'));
  return { spec, warnings: hasComment ? [COMMENT_WARNING] : [], ...(timezoneDefaulted && { timezoneDefaulted }) };
}

// The workflow file (YAML or JSON) ↔ WorkflowSpec. Parsing reports every problem at once, each
// with a field path and a message that says the fix; serializing gives one canonical text so
// that `ax export` then `ax apply` is a no-op.
import { Document, isAlias, isMap, isScalar, isSeq, Lexer, parseDocument, visit, type YAMLError } from 'yaml';
import { ValidationError, type ValidationProblem } from '../api/errors.ts';
import type { RetryBackoff, ScheduleSpec, TaskSpec, WorkflowSpec } from '../api/types.ts';
import { validateCron, validateTimezone } from './cron.ts';
import { findCycle, type Edge } from './dag.ts';
import { formatDuration, parseDuration } from './duration.ts';

export interface ParseOptions {
  file?: string;
  defaultTimezone: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_RETRIES = 100;
const DEFAULT_DELAY_MS = 10_000;
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

function readTask(r: Reader, name: string, v: unknown): TaskSpec | undefined {
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
  if (cwd !== undefined) task.cwd = cwd;
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

/** Parses and validates a workflow file; throws ValidationError listing every problem. */
export function parseWorkflowFile(text: string, opts: ParseOptions): { spec: WorkflowSpec; warnings: string[] } {
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
    const task = readTask(r, name, value);
    if (task) spec.tasks.push(task);
  }
  checkEdges(r, spec.tasks);
  if (r.problems.length > 0) throw new ValidationError(r.problems);

  // Lexer tokens, not a regex: a "#" inside a quoted or block string is not a comment.
  const hasComment = text.includes('#') && [...new Lexer().lex(text)].some((token) => token.startsWith('#'));
  return { spec, warnings: hasComment ? [COMMENT_WARNING] : [] };
}

/** The canonical file text of a spec: fixed key order, defaults and empty values left out. */
export function serializeWorkflow(spec: WorkflowSpec): string {
  const out = new Map<string, unknown>([['workflow', spec.name]]);
  if (spec.description !== undefined && spec.description !== '') out.set('description', spec.description);
  if (spec.owner !== undefined && spec.owner !== '') out.set('owner', spec.owner);
  if (spec.schedule) {
    const s = spec.schedule;
    // timezone is always written: the reader's default zone may differ from the writer's
    const schedule = new Map<string, unknown>([['cron', s.cron], ['timezone', s.timezone]]);
    if (s.misfire !== 'run_once') schedule.set('misfire', s.misfire);
    if (s.overlap !== 'skip') schedule.set('overlap', s.overlap);
    out.set('schedule', schedule);
  }
  if (spec.onEvent !== undefined) out.set('on_event', spec.onEvent);
  if (spec.routing !== 'round_robin') out.set('routing', spec.routing);
  out.set('tasks', new Map(spec.tasks.map((t) => [t.name, taskMap(t)])));
  const doc = new Document(out);
  visit(doc, {
    Seq(_, node) {
      node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

function taskMap(t: TaskSpec): Map<string, unknown> {
  const m = new Map<string, unknown>([['command', t.command]]);
  if (t.cwd !== undefined && t.cwd !== '') m.set('cwd', t.cwd);
  if (Object.keys(t.env).length > 0) m.set('env', new Map(Object.entries(t.env)));
  if (t.timeoutMs !== undefined) m.set('timeout', formatDuration(t.timeoutMs));
  if (t.retries !== 0) m.set('retries', t.retries);
  const b = t.retryBackoff;
  if (b.kind === 'fixed' && b.maxDelayMs === b.delayMs) {
    if (b.delayMs !== DEFAULT_DELAY_MS) m.set('retry_backoff', formatDuration(b.delayMs));
  } else {
    const delay = formatDuration(b.delayMs);
    m.set('retry_backoff', new Map([['strategy', b.kind], ['delay', delay], ['max', formatDuration(b.maxDelayMs)]]));
  }
  if (t.labels.length > 0) m.set('labels', t.labels);
  if (t.upstream.length > 0) m.set('upstream', t.upstream);
  if (t.owner !== undefined && t.owner !== '') m.set('owner', t.owner);
  return m;
}

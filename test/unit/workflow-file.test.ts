import { describe, expect, it } from 'vitest';
import { ValidationError, type ValidationProblem } from '../../engine/api/errors.ts';
import type { TaskSpec, WorkflowSpec } from '../../engine/api/types.ts';
import { validateCron, validateTimezone } from '../../engine/core/model/cron.ts';
import { environmentWarnings } from '../../engine/core/workflow/spec-warnings.ts';
import {
  decodeWorkflowFile,
  hasComments,
  MAX_WORKFLOW_FILE_BYTES,
  parseWorkflowFile,
} from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';

const opts = { defaultTimezone: 'Europe/Berlin' };
const parse = (text: string) => parseWorkflowFile(text, opts);

/** The problems a file produces (fails the test if it parses). */
function problems(text: string, file?: string): ValidationProblem[] {
  try {
    parseWorkflowFile(text, { ...opts, file });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).problems;
  }
  throw new Error('expected a ValidationError');
}

/** A valid file with one task, plus extra lines for that task (indented 4). */
const oneTask = (...lines: string[]) =>
  ['workflow: w', 'tasks:', '  extract:', '    command: ./extract.sh', ...lines.map((l) => `    ${l}`)].join('\n');

const task = (name: string, extra: Partial<TaskSpec> = {}): TaskSpec => ({
  name,
  command: `./${name}.sh`,
  env: {},
  retries: 0,
  retryBackoff: { kind: 'fixed', delayMs: 10_000, maxDelayMs: 10_000 },
  labels: [],
  upstream: [],
  ...extra,
});

describe('parseWorkflowFile: valid files', () => {
  it('fills in defaults', () => {
    const { spec, warnings } = parse(
      'workflow: nightly-etl\nschedule: "0 2 * * *"\ntasks:\n  extract:\n    command: ./extract.sh\n',
    );
    expect(warnings).toEqual([]);
    expect(spec).toStrictEqual({
      name: 'nightly-etl',
      routing: 'round_robin',
      schedule: { cron: '0 2 * * *', timezone: 'Europe/Berlin', misfire: 'run_once', overlap: 'skip' },
      tasks: [task('extract')],
    });
  });

  it('reads every field', () => {
    const { spec } = parse(`
workflow: etl.v2
description: nightly load
owner: ana
schedule: { cron: "0 2 * * *", timezone: UTC, misfire: all, overlap: queue }
on_event: orders-ready
routing: least_busy
tasks:
  extract:
    command: ./extract.sh
    cwd: /data
    env: { A: x, N: 1.10, B: true, HEX: 0x1F }
    timeout: 1h30m
    retries: 3
    retry_backoff: { strategy: exponential, delay: 5s }
    labels: [gpu, linux]
    owner: bo
  load:
    command: ./load.sh
    retry_backoff: 30s
    upstream: [extract]
`);
    expect(spec.description).toBe('nightly load');
    expect(spec.owner).toBe('ana');
    expect(spec.schedule).toEqual({ cron: '0 2 * * *', timezone: 'UTC', misfire: 'all', overlap: 'queue' });
    expect(spec.onEvent).toBe('orders-ready');
    expect(spec.routing).toBe('least_busy');
    // numbers keep the text as written: a version "1.10" must not become "1.1"
    expect(spec.tasks[0]).toStrictEqual({
      name: 'extract',
      command: './extract.sh',
      cwd: '/data',
      env: { A: 'x', N: '1.10', B: 'true', HEX: '0x1F' },
      timeoutMs: 5_400_000,
      retries: 3,
      retryBackoff: { kind: 'exponential', delayMs: 5000, maxDelayMs: 3_600_000 },
      labels: ['gpu', 'linux'],
      upstream: [],
      owner: 'bo',
    });
    expect(spec.tasks[1]?.retryBackoff).toEqual({ kind: 'fixed', delayMs: 30_000, maxDelayMs: 30_000 });
    expect(spec.tasks[1]?.upstream).toEqual(['extract']);
  });

  it('lists tasks in topological order, ties by name, and keeps names that look like numbers as written', () => {
    const { spec } = parse(
      'workflow: w\ntasks:\n  b: {command: x}\n  2: {command: x}\n  1.50: {command: x}\n  a: {command: x}\n',
    );
    expect(spec.tasks.map((t) => t.name)).toEqual(['1.50', '2', 'a', 'b']);
    const chain = parse(
      'workflow: w\ntasks:\n  load: {command: x, upstream: [clean]}\n  clean: {command: x, upstream: [extract]}\n  extract: {command: x}\n  audit: {command: x}\n',
    );
    expect(chain.spec.tasks.map((t) => t.name)).toEqual(['audit', 'extract', 'clean', 'load']);
  });

  it('resolves anchors and aliases', () => {
    const { spec } = parse(
      'workflow: w\ntasks:\n  a: { command: x, env: &common { REGION: eu } }\n  b: { command: y, env: *common }\n',
    );
    expect(spec.tasks.map((t) => t.env)).toEqual([{ REGION: 'eu' }, { REGION: 'eu' }]);
  });

  it('accepts JSON', () => {
    const json = JSON.stringify(
      {
        workflow: 'w',
        schedule: { cron: '*/5 * * * *', overlap: 'parallel' },
        tasks: { a: { command: 'echo a', retries: 1 }, b: { command: 'echo b', upstream: ['a'] } },
      },
      null,
      '\t',
    );
    const { spec, warnings } = parse(json);
    expect(warnings).toEqual([]);
    expect(spec.schedule).toEqual({
      cron: '*/5 * * * *',
      timezone: 'Europe/Berlin',
      misfire: 'run_once',
      overlap: 'parallel',
    });
    expect(spec.tasks.map((t) => [t.name, t.retries, t.upstream])).toEqual([
      ['a', 1, []],
      ['b', 0, ['a']],
    ]);
  });

  it('takes comments without a warning (they matter only where ax export would write over them), and tells comments from "#" inside strings', () => {
    expect(parse(`# nightly\n${oneTask()}`).warnings).toEqual([]);
    expect(parse(`${oneTask()}  # trailing`).warnings).toEqual([]);
    expect(hasComments(`# nightly\n${oneTask()}`)).toBe(true);
    expect(hasComments(`${oneTask()}  # trailing`)).toBe(true);
    expect(hasComments(oneTask('env: { A: "#x", B: a#b }'))).toBe(false);
    expect(hasComments('workflow: w\ntasks:\n  t:\n    command: |\n      # a shell comment\n      ls\n')).toBe(false);
  });
});

describe('parseWorkflowFile: problems', () => {
  const one = (text: string) => {
    const list = problems(text);
    expect(list).toHaveLength(1);
    return list[0];
  };

  it('reports every problem at once, each with the file', () => {
    const list = problems('workflow: "bad name"\ntasks:\n  a: {comand: x}\n  b: {command: ""}\n', 'etl.yaml');
    expect(list).toEqual([
      { file: 'etl.yaml', path: 'workflow', message: expect.stringContaining('"bad name" is not a valid name') },
      { file: 'etl.yaml', path: 'tasks.a.comand', message: `unknown key "comand": did you mean 'command'?` },
      { file: 'etl.yaml', path: 'tasks.a.command', message: 'missing: every task needs a "command" to run' },
      { file: 'etl.yaml', path: 'tasks.b.command', message: 'command is empty: write the shell command to run' },
    ]);
  });

  it('the thrown error message lists the problems with file and path', () => {
    expect(() => parseWorkflowFile('workflow: w\n', { ...opts, file: 'w.yaml' })).toThrow(
      'w.yaml: tasks: missing: add a "tasks" map with at least one task',
    );
  });

  it('unknown keys, with a suggestion only when one is close', () => {
    expect(one(oneTask('timout: 5m'))).toEqual({
      path: 'tasks.extract.timout',
      message: `unknown key "timout": did you mean 'timeout'?`,
    });
    expect(one(oneTask('retryBackoff: 5s'))).toEqual({
      path: 'tasks.extract.retryBackoff',
      message: `unknown key "retryBackoff": did you mean 'retry_backoff'?`,
    });
    expect(one(oneTask('envs: { A: x }'))).toEqual({
      path: 'tasks.extract.envs',
      message: `unknown key "envs": did you mean 'env'?`,
    });
    // three edits away from "owner": a guess would mislead more than help
    expect(one(`${oneTask()}\nuser: x`)?.message).toBe(
      'unknown key "user": allowed keys are workflow, description, owner, schedule, on_event, routing, alerts, tasks',
    );
    expect(one(`${oneTask()}\nname: x`)).toEqual({
      path: 'name',
      message:
        'unknown key "name": allowed keys are workflow, description, owner, schedule, on_event, routing, alerts, tasks',
    });
    expect(one('workflow: w\nschedule: { cron: "0 2 * * *", tz: UTC }\ntasks: { a: { command: x } }')).toEqual({
      path: 'schedule.tz',
      message: 'unknown key "tz": allowed keys are cron, timezone, misfire, overlap',
    });
  });

  it('wrong types', () => {
    expect(one('workflow: w\ntasks: [a, b]')).toEqual({
      path: 'tasks',
      message: 'must be a map of task name to task (got a list)',
    });
    expect(one(oneTask('labels: gpu'))).toEqual({
      path: 'tasks.extract.labels',
      message: 'must be a list of labels, e.g. [gpu] (got a string)',
    });
    expect(one(oneTask('upstream: [1]'))).toEqual({
      path: 'tasks.extract.upstream',
      message: 'must be a list of task names, e.g. [extract] (got an item that is a number)',
    });
    expect(one(oneTask('cwd: [a]'))).toEqual({
      path: 'tasks.extract.cwd',
      message: 'must be a string (got a list): put the value in quotes',
    });
    expect(one(oneTask('env: [A]'))).toEqual({
      path: 'tasks.extract.env',
      message: 'must be a map of NAME: value (or NAME: { secret: SECRET }) (got a list)',
    });
    expect(one(oneTask('env: { A: [1] }'))).toEqual({
      path: 'tasks.extract.env.A',
      message: 'must be a string, number, boolean or { secret: NAME } (got a list): write "" for an empty value',
    });
    expect(one(oneTask('env: { 1A: x }'))).toEqual({
      path: 'tasks.extract.env.1A',
      message: '"1A" is not a valid variable name: use letters, digits and "_", not a leading digit',
    });
    expect(one('workflow: w\ntasks:\n  a: {command: 42}')).toEqual({
      path: 'tasks.a.command',
      message: 'must be a string (got a number): put it in quotes',
    });
    expect(one('workflow: w\ntasks:\n  a: ./a.sh')).toEqual({
      path: 'tasks.a',
      message: 'must be a map with at least "command" (got a string)',
    });
    expect(one(`${oneTask()}\nrouting: fastest`)).toEqual({
      path: 'routing',
      message: 'must be one of round_robin, random, least_busy (got "fastest")',
    });
  });

  it('missing workflow, tasks, command; empty tasks and command', () => {
    expect(one('tasks: { a: { command: x } }')).toEqual({
      path: 'workflow',
      message: 'missing: add "workflow: <name>" at the top level',
    });
    expect(one('workflow: w')).toEqual({ path: 'tasks', message: 'missing: add a "tasks" map with at least one task' });
    expect(one('workflow: w\ntasks: {}')).toEqual({ path: 'tasks', message: 'at least one task is required' });
    expect(one('workflow: w\ntasks:\n  a: { cwd: /tmp }')).toEqual({
      path: 'tasks.a.command',
      message: 'missing: every task needs a "command" to run',
    });
    expect(one('workflow: w\ntasks:\n  a: { command: "   " }')).toEqual({
      path: 'tasks.a.command',
      message: 'command is empty: write the shell command to run',
    });
  });

  it('invalid names', () => {
    const hint =
      'is not a valid name: use letters, digits, "_", "." or "-", starting with a letter or digit (at most 100 characters)';
    expect(one('workflow: -w\ntasks: { a: { command: x } }')).toEqual({ path: 'workflow', message: `"-w" ${hint}` });
    expect(one('workflow: w\ntasks: { "a b": { command: x } }')).toEqual({
      path: 'tasks.a b',
      message: `"a b" ${hint}`,
    });
    expect(one(`workflow: ${'x'.repeat(101)}\ntasks: { a: { command: x } }`)?.path).toBe('workflow');
    expect(parse(`workflow: ${'x'.repeat(100)}\ntasks: { a: { command: x } }`).spec.name).toHaveLength(100);
  });

  it("a bad cron passes validateCron's message through", () => {
    const expected = validateCron('0 2 * *');
    expect(expected).toBeTypeOf('string');
    expect(one('workflow: w\nschedule: "0 2 * *"\ntasks: { a: { command: x } }')).toEqual({
      path: 'schedule',
      message: expected,
    });
    expect(one('workflow: w\nschedule: { cron: "0 2 * *" }\ntasks: { a: { command: x } }')).toEqual({
      path: 'schedule.cron',
      message: expected,
    });
    expect(one('workflow: w\nschedule: { cron: "" }\ntasks: { a: { command: x } }')).toEqual({
      path: 'schedule.cron',
      message: validateCron(''),
    });
    expect(one('workflow: w\nschedule: { timezone: UTC }\ntasks: { a: { command: x } }')).toEqual({
      path: 'schedule.cron',
      message: 'missing: add the cron expression, e.g. cron: "0 2 * * *"',
    });
  });

  it('an unknown time zone', () => {
    const expected = validateTimezone('Mars/Olympus');
    expect(expected).toBeTypeOf('string');
    expect(
      one('workflow: w\nschedule: { cron: "0 2 * * *", timezone: Mars/Olympus }\ntasks: { a: { command: x } }'),
    ).toEqual({
      path: 'schedule.timezone',
      message: expected,
    });
  });

  it('bad durations and backoff', () => {
    const bad = (text: string) =>
      `"${text}" is not a duration: write a number with a unit, e.g. "500ms", "90s", "30m", "1h30m", "2d"`;
    expect(one(oneTask('timeout: 30 minutes'))).toEqual({ path: 'tasks.extract.timeout', message: bad('30 minutes') });
    expect(one(oneTask('timeout: 30'))).toEqual({ path: 'tasks.extract.timeout', message: bad('30') });
    expect(one(oneTask('timeout: 0s'))).toEqual({
      path: 'tasks.extract.timeout',
      message: 'must be longer than 0: leave timeout out for no limit',
    });
    // past 2³¹−1 ms (24.8 days) a timer must be chained; past 365 days the file is refused
    expect(parse(oneTask('timeout: 25d')).spec.tasks[0]?.timeoutMs).toBe(25 * 86_400_000);
    expect(parse(oneTask('timeout: 365d')).spec.tasks[0]?.timeoutMs).toBe(365 * 86_400_000);
    expect(one(oneTask('timeout: 366d'))).toEqual({
      path: 'tasks.extract.timeout',
      message: '"366d" is longer than the longest duration AX accepts, 365d',
    });
    expect(one(oneTask('retry_backoff: { strategy: exponential, delay: 1m, max: 8760h1ms }'))).toEqual({
      path: 'tasks.extract.retry_backoff.max',
      message: '"8760h1ms" is longer than the longest duration AX accepts, 365d',
    });
    expect(one(oneTask('retry_backoff: soon'))).toEqual({ path: 'tasks.extract.retry_backoff', message: bad('soon') });
    expect(one(oneTask('retry_backoff: { strategy: linear }'))).toEqual({
      path: 'tasks.extract.retry_backoff.strategy',
      message: 'must be one of fixed, exponential (got "linear")',
    });
    expect(one(oneTask('retry_backoff: { strategy: exponential, delay: 1m, max: 10s }'))).toEqual({
      path: 'tasks.extract.retry_backoff.max',
      message: 'must be at least the delay (1m)',
    });
  });

  it('negative, fractional or non-numeric retries', () => {
    const msg = (got: string) => ({
      path: 'tasks.extract.retries',
      message: `must be a whole number from 0 to 100 (got ${got})`,
    });
    expect(one(oneTask('retries: -1'))).toEqual(msg('-1'));
    expect(one(oneTask('retries: 1.5'))).toEqual(msg('1.5'));
    expect(one(oneTask('retries: 101'))).toEqual(msg('101'));
    expect(one(oneTask('retries: "2"'))).toEqual(msg('a string'));
    expect(parse(oneTask('retries: 100')).spec.tasks[0]?.retries).toBe(100);
  });

  it('unknown upstream, self upstream, repeated upstream', () => {
    const wf = (up: string) =>
      `workflow: w\ntasks:\n  extract: { command: x }\n  clean: { command: y, upstream: ${up} }`;
    expect(one(wf('[extrct]'))).toEqual({
      path: 'tasks.clean.upstream',
      message: `unknown task "extrct": did you mean 'extract'?`,
    });
    expect(one(wf('[zzz]'))).toEqual({
      path: 'tasks.clean.upstream',
      message:
        'unknown task "zzz": upstream must name a task in this workflow (or another workflow\'s as WORKFLOW.TASK, a whole one as WORKFLOW.*)',
    });
    expect(one(wf('[clean]'))).toEqual({
      path: 'tasks.clean.upstream',
      message: 'a task cannot be upstream of itself: remove "clean"',
    });
    expect(one(wf('[extract, extract]'))).toEqual({
      path: 'tasks.clean.upstream',
      message: '"extract" is listed twice: list it once',
    });
  });

  it('a cycle, spelled out', () => {
    const text = `workflow: w
tasks:
  extract: { command: x, upstream: [clean] }
  clean: { command: y, upstream: [extract] }
  load: { command: z, upstream: [clean] }`;
    expect(one(text)).toEqual({ path: 'tasks', message: 'cycle: extract → clean → extract' });
  });

  it('duplicate task names and duplicate keys', () => {
    expect(one('workflow: w\ntasks:\n  extract: { command: x }\n  extract: { command: y }')).toEqual({
      path: 'tasks.extract',
      message: 'duplicate task "extract": task names must be unique',
    });
    expect(one(oneTask('timeout: 5m', 'timeout: 6m'))).toEqual({
      path: 'tasks.extract.timeout',
      message: 'duplicate key "timeout": write each key once',
    });
    // JSON.parse would silently keep the second one
    expect(one('{"workflow": "a", "workflow": "b", "tasks": {"t": {"command": "x"}}}')).toEqual({
      path: 'workflow',
      message: 'duplicate key "workflow": write each key once',
    });
  });

  it('an alias that contains itself is an error, not a stack overflow', () => {
    const list = problems(`${oneTask()}\ndescription: &x [*x]`);
    expect(list.map((p) => p.message)).toContain('nested too deeply (is an alias referring to itself?)');
  });

  it('aliases that expand exponentially are cut off', () => {
    // 10^8 values if expanded; the unknown keys l0..l7 are reported too
    const lines = ['workflow: w', 'tasks: { t: { command: x } }', 'l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      lines.push(
        `l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    // expanded, this would outlast the test's timeout; how long the cut-off takes is in bench/guard-times.ts
    const list = problems(lines.join('\n'));
    expect(list.map((p) => p.message)).toContain('aliases expand to more than 10000 values: write them out');
  });

  it('invalid YAML with its line, an empty file, a top level that is not a map', () => {
    expect(one('workflow: w\ntasks:\n  a: b: c\n')).toEqual({
      path: '',
      message: 'invalid YAML at line 3, column 6: Nested mappings are not allowed in compact mappings',
    });
    expect(one('{"workflow": "w",\n "tasks": {\n}')?.message).toMatch(/^invalid YAML at line \d+, column \d+: /);
    expect(one('workflow: w\n---\nworkflow: v\n')).toEqual({
      path: '',
      message:
        'invalid YAML at line 2, column 1: a file holds one workflow: move the part after this "---" to its own file',
    });
    const empty = { path: '', message: 'the file is empty: a workflow needs at least "workflow:" and "tasks:"' };
    expect(one('')).toEqual(empty);
    expect(one('  \n# just a comment\n')).toEqual(empty);
    expect(one('- extract\n- load\n')).toEqual({
      path: '',
      message: 'the top level must be a map with "workflow" and "tasks" keys (got a list)',
    });
    expect(one('"just text"')).toEqual({
      path: '',
      message: 'the top level must be a map with "workflow" and "tasks" keys (got a string)',
    });
  });
});

describe('serializeWorkflow', () => {
  const minimal: WorkflowSpec = { name: 'w', routing: 'round_robin', tasks: [task('extract')] };
  const full: WorkflowSpec = {
    name: 'nightly-etl',
    description: 'Nightly: load "orders" # not a comment',
    owner: 'ana',
    schedule: { cron: '0 2 * * *', timezone: 'Europe/Berlin', misfire: 'all', overlap: 'parallel' },
    onEvent: 'orders-ready',
    routing: 'random',
    // in topological order, ties by name: as a file is read back
    tasks: [
      task('123', { retryBackoff: { kind: 'fixed', delayMs: 30_000, maxDelayMs: 30_000 } }),
      task('extract', {
        command: 'set -e\n./extract.sh --since "$AX_LOGICAL_TIME"\n',
        cwd: '/data/etl',
        env: { A: '1.10', B: 'true', EMPTY: '', MULTI: 'a\nb', SPACE: ' x ' },
        timeoutMs: 5_400_000,
        retries: 3,
        retryBackoff: { kind: 'exponential', delayMs: 5000, maxDelayMs: 600_000 },
        labels: ['gpu', 'true', '2'],
        owner: 'bo',
      }),
      task('report', { command: 'echo yes', timeoutMs: 1 }),
      task('load', { upstream: ['extract', '123'], retryBackoff: { kind: 'fixed', delayMs: 0, maxDelayMs: 60_000 } }),
    ],
  };
  const specs: Record<string, WorkflowSpec> = {
    minimal,
    full,
    scheduleDefaults: {
      ...minimal,
      schedule: { cron: '*/5 * * * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'skip' },
    },
    exponentialDefault: {
      ...minimal,
      tasks: [task('a', { retries: 1, retryBackoff: { kind: 'exponential', delayMs: 10_000, maxDelayMs: 3_600_000 } })],
    },
  };

  for (const [label, spec] of Object.entries(specs)) {
    it(`round-trips the ${label} spec`, () => {
      const text = serializeWorkflow(spec);
      const back = parseWorkflowFile(text, { defaultTimezone: 'Asia/Tokyo' });
      expect(back.spec).toStrictEqual(spec);
      expect(back.warnings).toEqual([]);
      expect(serializeWorkflow(back.spec)).toBe(text);
    });
  }

  it('writes the minimal form, omitting defaults', () => {
    expect(serializeWorkflow(minimal)).toBe('workflow: w\ntasks:\n  extract:\n    command: ./extract.sh\n');
  });

  it('writes keys in canonical order, tasks in topological order, the schedule as a map with its timezone, lists in flow style', () => {
    const text = serializeWorkflow({
      tasks: [task('b', { upstream: ['a'], labels: ['gpu'], retries: 2, timeoutMs: 1_800_000 }), task('a')],
      routing: 'least_busy',
      schedule: { cron: '0 2 * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'queue' },
      name: 'w',
    });
    expect(text).toBe(`workflow: w
schedule:
  cron: 0 2 * * *
  timezone: UTC
  overlap: queue
routing: least_busy
tasks:
  a:
    command: ./a.sh
  b:
    command: ./b.sh
    timeout: 30m
    retries: 2
    labels: [gpu]
    upstream: [a]
`);
  });

  it('writes a fixed backoff as a duration and other backoffs as a full map', () => {
    const one = (b: TaskSpec['retryBackoff']) =>
      serializeWorkflow({ ...minimal, tasks: [task('t', { retryBackoff: b })] });
    expect(one({ kind: 'fixed', delayMs: 90_000, maxDelayMs: 90_000 })).toContain('    retry_backoff: 1m30s\n');
    expect(one({ kind: 'exponential', delayMs: 1000, maxDelayMs: 60_000 })).toContain(
      '    retry_backoff:\n      strategy: exponential\n      delay: 1s\n      max: 1m\n',
    );
  });

  it('normalises a hand-written file into the canonical text', () => {
    const text = `# hand written
{ "tasks": { "b": { "command": "./b.sh", "upstream": ["a"], "env": { "N": 7 } }, "a": { "command": "./a.sh" } },
  "workflow": "w", "schedule": "0 2 * * *" }`;
    const first = parseWorkflowFile(text, opts);
    expect(first.warnings).toEqual([]);
    const canonical = serializeWorkflow(first.spec);
    expect(
      canonical.startsWith('workflow: w\nschedule:\n  cron: 0 2 * * *\n  timezone: Europe/Berlin\ntasks:\n  a:\n'),
    ).toBe(true);
    expect(canonical).toContain('      N: "7"\n');
    expect(serializeWorkflow(parseWorkflowFile(canonical, { defaultTimezone: 'UTC' }).spec)).toBe(canonical);
  });
});

describe('hostile and careless input', () => {
  const NUL = 'contains a NUL character (\\0), which no command, path or variable can hold: remove it';

  it('a NUL anywhere is an error naming the field, whether escaped or raw', () => {
    expect(problems(oneTask('env: { X: "a\\0b" }', 'cwd: "/tmp/\\0"'))).toEqual([
      { path: 'tasks.extract.env.X', message: NUL },
      { path: 'tasks.extract.cwd', message: NUL },
    ]);
    expect(problems('workflow: w\ntasks:\n  a:\n    command: "echo a\0b"\n')).toEqual([
      { path: 'tasks.a.command', message: NUL },
    ]);
    expect(problems('workflow: w\ntasks:\n  a:\n    command: echo\n    env: { "A\\0B": x }\n')).toEqual([
      { path: 'tasks.a.env.A\\0B', message: `key ${NUL}` },
    ]);
  });

  it('a spec from the API with a NUL is refused as a file with one would be', () => {
    const text = serializeWorkflow({ name: 'w', routing: 'round_robin', tasks: [task('a', { command: 'echo \0' })] });
    expect(problems(text)).toEqual([{ path: 'tasks.a.command', message: NUL }]);
  });

  it('a relative cwd is resolved by the host when it can, and refused when there is no file to resolve it against', () => {
    expect(problems(oneTask('cwd: data'))).toEqual([
      {
        path: 'tasks.extract.cwd',
        message:
          '"data" is a relative path: write the full path, e.g. "/srv/etl" ("ax apply FILE" resolves it against the file\'s directory)',
      },
    ]);
    const seen: string[] = [];
    const resolveCwd = (cwd: string) => {
      seen.push(cwd);
      return `/base/${cwd}`;
    };
    const { spec } = parseWorkflowFile(`${oneTask('cwd: ../data')}\n  b:\n    command: x\n    cwd: /abs`, {
      ...opts,
      resolveCwd,
    });
    expect(spec.tasks.map((t) => t.cwd)).toEqual(['/abs', '/base/../data']);
    expect(seen).toEqual(['../data']);
    expect(parse(oneTask('cwd: "C:\\\\jobs"')).spec.tasks[0]?.cwd).toBe('C:\\jobs');
  });

  it('text over the size limit is refused before the parser sees it', () => {
    // A document the parser would reject at its first line: only the size is reported.
    const text = `{{{ ${'x'.repeat(MAX_WORKFLOW_FILE_BYTES)}`;
    // only the size is reported, none of the parser's errors: it never ran (its time: bench/guard-times.ts)
    expect(problems(text, 'big.yaml')).toEqual([
      {
        file: 'big.yaml',
        path: '',
        message: 'the file is 5.0 MB, over the 5 MB limit for a workflow file: split it into several workflows',
      },
    ]);
  });

  it('bytes that are not UTF-8 are refused with the offset, line and column of the first bad one', () => {
    const latin1 = Buffer.from('workflow: w\ntasks:\n  a:\n    command: echo café\n', 'latin1');
    const problem = (bytes: Uint8Array) => {
      try {
        decodeWorkflowFile(bytes, 'f.yaml');
      } catch (e) {
        return (e as ValidationError).problems;
      }
      throw new Error('expected a ValidationError');
    };
    const hint = 'is not valid UTF-8: save the file as UTF-8 (it may be Latin-1 or UTF-16)';
    expect(problem(latin1)).toEqual([
      { file: 'f.yaml', path: '', message: `not UTF-8: byte 0xE9 at offset 45 (line 4, column 22) ${hint}` },
    ]);
    // UTF-16 with its byte-order mark fails at the very first byte
    expect(problem(Buffer.from('\uFEFFworkflow: w', 'utf16le'))[0]?.message).toBe(
      `not UTF-8: byte 0xFF at offset 0 (line 1, column 1) ${hint}`,
    );
    // the column counts characters: "é" before the bad byte is one column
    expect(problem(Buffer.concat([Buffer.from('# é'), Buffer.from([0xc3, 0x28])]))[0]?.message).toBe(
      `not UTF-8: byte 0xC3 at offset 4 (line 1, column 4) ${hint}`,
    );
    expect(decodeWorkflowFile(Buffer.from('\uFEFFworkflow: café'), 'f.yaml')).toBe('workflow: café');
    expect(() => decodeWorkflowFile(new Uint8Array(MAX_WORKFLOW_FILE_BYTES + 1), 'f.yaml')).toThrow(
      'over the 5 MB limit',
    );
  });
});

describe('environmentWarnings: what would keep a valid workflow from running here', () => {
  const worker = (id: string, labels: string[]): WorkerRecord => ({
    id,
    host: 'h',
    pid: 1,
    version: '1',
    labels,
    maxConcurrency: 8,
    running: 0,
    startedAt: 0,
    lastHeartbeat: 0,
    status: 'lost',
    acceptUnlabelled: true,
  });
  const spec: WorkflowSpec = {
    name: 'w',
    routing: 'round_robin',
    tasks: [
      task('train', { labels: ['gpu', 'big'] }),
      task('prep', { cwd: '/missing' }),
      task('load', { labels: ['gpu'], cwd: '/here' }),
    ],
  };
  const checkCwd = (cwd: string) => (cwd === '/here' ? undefined : 'does not exist on this machine');

  it('solo: any label, and a cwd that does not exist', () => {
    expect(environmentWarnings(spec, [worker('local', [])], 'solo', checkCwd, 'w.yaml')).toEqual([
      {
        file: 'w.yaml',
        path: 'tasks.train.labels',
        message:
          'no worker offers labels [gpu, big]: the solo worker offers none, so the task would wait forever; remove the labels, or run the workflow in team mode on a worker started with --labels gpu,big',
      },
      {
        file: 'w.yaml',
        path: 'tasks.prep.cwd',
        message: '"/missing" does not exist on this machine: the task would fail to start; create it or fix the path',
      },
      { file: 'w.yaml', path: 'tasks.load.labels', message: expect.stringContaining('no worker offers labels [gpu]') },
    ]);
  });

  it('team: labels that no known worker offers, even a lost one; a cwd is not checked (tasks run elsewhere)', () => {
    const workers = [worker('etl-1', ['gpu']), worker('laptop', [])];
    expect(environmentWarnings(spec, workers, 'team')).toEqual([
      {
        path: 'tasks.train.labels',
        message:
          'no known worker offers labels [gpu, big] (workers: etl-1 [gpu], laptop [no labels]): the task would wait until one joins; start one with "ax serve --role worker --labels gpu,big"',
      },
    ]);
    expect(environmentWarnings(spec, [worker('etl-1', ['big', 'gpu'])], 'team')).toEqual([]);
    expect(environmentWarnings(spec, [], 'team')[0]?.message).toContain('(workers: none has registered yet)');
  });
});

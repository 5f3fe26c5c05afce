import { describe, expect, it } from 'vitest';
import { validateCron, validateTimezone } from '../../engine/core/model/cron.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { oneTask, opts, parse, problems } from '../helpers/workflow-text.ts';

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
      {
        file: 'etl.yaml',
        path: 'tasks.a.command',
        message: 'missing: every task needs a "command" to run (or a "call" of another workflow)',
      },
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
      'unknown key "user": allowed keys are workflow, description, owner, schedule, on_event, on, monitor, routing, alerts, params, env, cwd, timeout, retries, retry_backoff, labels, tasks',
    );
    expect(one(`${oneTask()}\nname: x`)).toEqual({
      path: 'name',
      message:
        'unknown key "name": allowed keys are workflow, description, owner, schedule, on_event, on, monitor, routing, alerts, params, env, cwd, timeout, retries, retry_backoff, labels, tasks',
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
      message: 'must be a map with at least "command" (or "call") (got a string)',
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
      message: 'missing: every task needs a "command" to run (or a "call" of another workflow)',
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

// A workflow file's `params:` and its workflow-level task settings: what is read, every problem
// with its path, and the round trip through export (serializeWorkflow) and apply (parse).
import { describe, expect, it } from 'vitest';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { parse, problems } from '../helpers/workflow-text.ts';

const withParams = (...lines: string[]) =>
  ['workflow: w', 'params:', ...lines.map((l) => `  ${l}`), 'tasks:', '  a: { command: ./a.sh }'].join('\n');

describe('params: reading', () => {
  it('reads every type and rule, in the file order', () => {
    const { spec } = parse(
      withParams(
        'region: { type: enum, choices: [eu, us], default: eu, description: "Sales region" }',
        'day: { type: date, required: true }',
        'limit: { type: number, min: 1, max: 100, default: 10 }',
        'dry_run: { type: boolean, default: false }',
        'tag: { type: string, pattern: "^[a-z]+$" }',
        'at: { type: datetime, default: "2026-11-30T02:00:00Z" }',
        'code: { default: 007 }',
      ),
    );
    expect(spec.params).toStrictEqual([
      {
        name: 'region',
        type: 'enum',
        required: false,
        description: 'Sales region',
        choices: ['eu', 'us'],
        default: 'eu',
      },
      { name: 'day', type: 'date', required: true },
      { name: 'limit', type: 'number', required: false, min: 1, max: 100, default: 10 },
      { name: 'dry_run', type: 'boolean', required: false, default: false },
      { name: 'tag', type: 'string', required: false, pattern: '^[a-z]+$' },
      { name: 'at', type: 'datetime', required: false, default: '2026-11-30T02:00:00Z' },
      // no type: text, keeping the number's text as written
      { name: 'code', type: 'string', required: false, default: '007' },
    ]);
  });

  const rows: [string, string, string, RegExp][] = [
    [
      'an unknown type',
      'day: { type: day }',
      'params.day.type',
      /must be one of string, number, boolean, date, datetime, enum/,
    ],
    ['a bad name', '"-x": { type: string }', 'params.-x', /is not a valid name/],
    ['a param that is no map', 'day: date', 'params.day', /must be a map such as \{ type: string \}/],
    ['an unknown key', 'day: { type: date, requird: true }', 'params.day.requird', /did you mean 'required'/],
    [
      'a pattern that does not compile',
      'tag: { pattern: "[a-" }',
      'params.tag.pattern',
      /is not a valid regular expression/,
    ],
    [
      'a pattern on a number',
      'n: { type: number, pattern: "1" }',
      'params.n.pattern',
      /only a param of type string takes "pattern"/,
    ],
    ['min above max', 'n: { type: number, min: 5, max: 1 }', 'params.n.max', /must be at least min \(5\)/],
    ['a min that is no number', 'n: { type: number, min: x }', 'params.n.min', /must be a number/],
    ['an enum without choices', 'r: { type: enum }', 'params.r.choices', /an enum needs its choices as a list/],
    ['a choice twice', 'r: { choices: [eu, eu] }', 'params.r.choices', /"eu" is listed twice/],
    [
      'a default not among the choices',
      'r: { choices: [eu, us], default: apac }',
      'params.r.default',
      /"apac" is not one of eu, us: the default must itself be a valid value/,
    ],
    [
      'a default out of range',
      'n: { type: number, max: 5, default: 9 }',
      'params.n.default',
      /9 is above the maximum 5/,
    ],
    [
      'a default that is no date',
      'd: { type: date, default: tomorrow }',
      'params.d.default',
      /"tomorrow" is not a date as YYYY-MM-DD/,
    ],
    [
      'a default against the pattern',
      't: { pattern: "[a-z]+", default: ABC }',
      'params.t.default',
      /does not match the pattern/,
    ],
    [
      'required that is no boolean',
      'd: { type: date, required: yes please }',
      'params.d.required',
      /must be true or false/,
    ],
  ];
  for (const [label, line, path, message] of rows)
    it(`refuses ${label}, naming ${path}`, () => {
      const found = problems(withParams(line)).find((x) => x.path === path);
      expect(found?.message).toMatch(message);
    });

  it('refuses a schedule when a param is required without a default', () => {
    const text = [
      'workflow: w',
      'schedule: "0 2 * * *"',
      'params:',
      '  day: { type: date, required: true }',
      'tasks:',
      '  a: { command: ./a.sh }',
    ];
    expect(problems(text.join('\n'))).toStrictEqual([
      {
        path: 'params.day',
        message:
          'required without a default, but a scheduled run has no one to give it (day): give it a default, or make it not required',
      },
    ]);
    // with a default, or on an event, it is fine
    expect(() =>
      parse(text.join('\n').replace('required: true', 'required: true, default: "2026-01-01"')),
    ).not.toThrow();
    expect(() => parse(text.join('\n').replace('schedule: "0 2 * * *"', 'on_event: orders'))).not.toThrow();
    expect(problems(text.join('\n').replace('schedule: "0 2 * * *"', 'on: engine_start'))[0]?.message).toMatch(
      /a run at the engine's start has no one to give it/,
    );
  });
});

describe('workflow-level settings', () => {
  const file = `workflow: w
env: { TZ: UTC, REGION: eu }
cwd: /srv/etl
timeout: 1h
retries: 2
retry_backoff: 30s
labels: [linux]
tasks:
  extract: { command: ./extract.sh }
  load:
    command: ./load.sh
    env: { REGION: us, EXTRA: "1" }
    cwd: /srv/load
    timeout: 5m
    retries: 0
    retry_backoff: { strategy: exponential, delay: 1s, max: 1m }
    labels: []
    upstream: [extract]
`;

  it("tasks inherit them; a task's own value wins, env merged key by key", () => {
    const { spec } = parse(file);
    const [extract, load] = spec.tasks;
    expect(extract).toMatchObject({
      env: { TZ: 'UTC', REGION: 'eu' },
      cwd: '/srv/etl',
      timeoutMs: 3_600_000,
      retries: 2,
      retryBackoff: { kind: 'fixed', delayMs: 30_000, maxDelayMs: 30_000 },
      labels: ['linux'],
    });
    expect(load).toMatchObject({
      env: { TZ: 'UTC', REGION: 'us', EXTRA: '1' },
      cwd: '/srv/load',
      timeoutMs: 300_000,
      retries: 0,
      retryBackoff: { kind: 'exponential', delayMs: 1000, maxDelayMs: 60_000 },
      labels: [],
    });
    expect(spec.taskDefaults).toStrictEqual({
      env: { TZ: 'UTC', REGION: 'eu' },
      cwd: '/srv/etl',
      timeoutMs: 3_600_000,
      retries: 2,
      retryBackoff: { kind: 'fixed', delayMs: 30_000, maxDelayMs: 30_000 },
      labels: ['linux'],
    });
  });

  it('export writes them back where they were written, and apply of the export changes nothing', () => {
    const { spec } = parse(file);
    const text = serializeWorkflow(spec);
    expect(text).toBe(`workflow: w
cwd: /srv/etl
env:
  TZ: UTC
  REGION: eu
timeout: 1h
retries: 2
retry_backoff: 30s
labels: [linux]
tasks:
  extract:
    command: ./extract.sh
  load:
    command: ./load.sh
    cwd: /srv/load
    env:
      REGION: us
      EXTRA: "1"
    timeout: 5m
    retries: 0
    retry_backoff:
      strategy: exponential
      delay: 1s
      max: 1m
    labels: []
    upstream: [extract]
`);
    const back = parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;
    expect(back).toStrictEqual(spec);
    expect(serializeWorkflow(back)).toBe(text);
  });

  it('params round-trip through export', () => {
    const { spec } = parse(
      withParams(
        'region: { type: enum, choices: [eu, "1.10"], default: "1.10", description: "Sales: region" }',
        'day: { type: date, required: true }',
        'limit: { type: number, min: -1.5, max: 100, default: 10 }',
        'code: { type: string, pattern: "^[0-9]+$", default: "007" }',
        'on: { type: boolean, default: true }',
      ),
    );
    const text = serializeWorkflow(spec);
    const back = parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;
    expect(back).toStrictEqual(spec);
    expect(serializeWorkflow(back)).toBe(text);
  });

  it("a relative workflow-level cwd is resolved like a task's, or refused without a base", () => {
    const text = 'workflow: w\ncwd: jobs\ntasks:\n  a: { command: ./a.sh }\n';
    const resolved = parseWorkflowFile(text, { defaultTimezone: 'UTC', resolveCwd: (c) => `/home/ana/${c}` }).spec;
    expect(resolved.tasks[0]?.cwd).toBe('/home/ana/jobs');
    expect(problems(text)).toStrictEqual([
      {
        path: 'cwd',
        message:
          '"jobs" is a relative path: write the full path, e.g. "/srv/etl" ("ax apply FILE" resolves it against the file\'s directory)',
      },
    ]);
  });

  it('workflow-level problems are named at the top level', () => {
    const found = problems('workflow: w\nretries: -1\ntimeout: 0s\nenv: { 1X: a }\ntasks:\n  a: { command: ./a.sh }\n');
    expect(found.map((x) => x.path)).toEqual(['env.1X', 'timeout', 'retries']);
  });
});

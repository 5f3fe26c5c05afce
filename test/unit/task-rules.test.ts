import { describe, expect, it } from 'vitest';
import type { WorkflowSpec } from '../../engine/api/types.ts';
import { evaluateComparison, parseComparison, type Comparison } from '../../engine/core/model/task-condition.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { parse, problems, task } from '../helpers/workflow-text.ts';

const file = (...taskLines: string[]) =>
  [
    'workflow: w',
    'tasks:',
    '  extract:',
    '    command: ./extract.sh',
    '  load:',
    '    command: ./load.sh',
    '    upstream: [extract]',
    ...taskLines.map((l) => `    ${l}`),
  ].join('\n');

describe('run_if and when in the workflow file', () => {
  it('reads every rule, a comparison and a command', () => {
    for (const rule of ['all_success', 'all_done', 'one_failed', 'all_failed', 'none_failed'])
      expect(parse(file(`run_if: ${rule}`)).spec.tasks[1]?.runIf).toBe(rule);
    expect(parse(file("when: 'outputs.extract.rows > 0'")).spec.tasks[1]?.when).toEqual({
      expr: 'outputs.extract.rows > 0',
    });
    expect(parse(file('when: { command: "test -s x.csv" }')).spec.tasks[1]?.when).toEqual({
      command: 'test -s x.csv',
    });
    expect(parse(file()).spec.tasks[1]?.runIf).toBeUndefined();
  });

  it('names the field and says what to write', () => {
    expect(problems(file('run_if: always'))).toEqual([
      {
        path: 'tasks.load.run_if',
        message:
          'must be one of all_success, all_done, one_failed, all_failed, none_failed (got "always"): all_success is the default',
      },
    ]);
    expect(problems(file("when: 'outputs.extract.rows >> 0'"))[0]).toEqual({
      path: 'tasks.load.when',
      message: '">>" is not a comparison operator: use one of == != <= >= < >',
    });
    expect(problems(file("when: 'rows > 0'"))[0]?.message).toBe(
      '"rows" is not something to compare: write params.NAME, outputs.TASK.KEY, a number, "text" in quotes, true or false (quote text: "rows")',
    );
    expect(problems(file("when: 'outputs.extract.rows'"))[0]?.message).toMatch(
      /^"outputs.extract.rows" is not one comparison: write LEFT OP RIGHT/,
    );
    expect(problems(file("when: 'params.region == \"eu'"))[0]?.message).toBe(
      'the string starting at character 18 has no closing "',
    );
    expect(problems(file('when: { command: "" }'))[0]?.path).toBe('tasks.load.when.command');
    expect(problems(file('when: { cmd: "x" }')).map((p) => p.path)).toEqual([
      'tasks.load.when.cmd',
      'tasks.load.when.command',
    ]);
    expect(problems(file('when: 3'))[0]?.message).toMatch(/^must be a comparison such as/);
  });

  it('refuses an output of a task that is not an upstream, and an undeclared param', () => {
    const text = [
      'workflow: w',
      'tasks:',
      '  a: { command: ./a.sh }',
      '  b: { command: ./b.sh }',
      "  c: { command: ./c.sh, upstream: [a], when: 'outputs.b.rows > params.min' }",
    ].join('\n');
    expect(problems(text)).toEqual([
      {
        path: 'tasks.c.when',
        message:
          'outputs.b.rows: "b" is not an upstream of "c": its upstreams are a (a task sees only its upstreams\' outputs)',
      },
      { path: 'tasks.c.when', message: 'params.min: the workflow declares no param "min": declare it under params:' },
    ]);
  });

  it('round-trips through export', () => {
    const spec: WorkflowSpec = {
      name: 'w',
      routing: 'round_robin',
      tasks: [
        task('extract'),
        task('cleanup', { upstream: ['extract'], runIf: 'all_done' }),
        task('load', { upstream: ['extract'], runIf: 'none_failed', when: { expr: 'outputs.extract.rows >= 10' } }),
        task('notify', { upstream: ['extract'], runIf: 'one_failed', when: { command: 'test -s "x y.csv"' } }),
      ],
    };
    const text = serializeWorkflow(spec);
    expect(text).toContain('    run_if: none_failed\n    when: outputs.extract.rows >= 10\n');
    expect(text).toContain('    when:\n      command: test -s "x y.csv"\n');
    expect(parse(text).spec).toStrictEqual(spec);
  });
});

const cmp = (text: string): Comparison => {
  const c = parseComparison(text);
  if ('error' in c) throw new Error(c.error);
  return c;
};

describe('when: comparisons against the task environment', () => {
  const env = {
    AX_OUTPUT_EXTRACT_ROWS: '12',
    AX_OUTPUT_EXTRACT_FILE: 'b.csv',
    AX_PARAM_REGION: 'eu',
    AX_PARAM_DRY_RUN: 'false',
    AX_OUTPUT_MY_TASK_ROW_COUNT: '3',
  };
  const holds = (text: string) => evaluateComparison(cmp(text), env).holds;

  it('compares numbers as numbers when both sides are numbers', () => {
    expect(holds('outputs.extract.rows > 9')).toBe(true); // as text, "12" < "9"
    expect(holds('outputs.extract.rows == 12.0')).toBe(true);
    expect(holds('outputs.extract.rows <= 11')).toBe(false);
    expect(holds('-1 < outputs.extract.rows')).toBe(true);
  });

  it('compares text otherwise, with either quote', () => {
    expect(holds('params.region == "eu"')).toBe(true);
    expect(holds("params.region != 'eu'")).toBe(false);
    expect(holds('outputs.extract.file > "a.csv"')).toBe(true);
    expect(holds('params.dry_run == false')).toBe(true);
    expect(holds('outputs.my-task.row_count >= 3')).toBe(true); // AX_OUTPUT_MY_TASK_ROW_COUNT
    expect(holds('outputs.my-task.row_count < 3')).toBe(false);
  });

  it('says why it is false, with the values it read', () => {
    expect(evaluateComparison(cmp('outputs.extract.rows > 100'), env)).toEqual({
      holds: false,
      reason: 'when: outputs.extract.rows > 100 is false (outputs.extract.rows = "12")',
      reasonCode: {
        code: 'when_false',
        args: { condition: 'outputs.extract.rows > 100', values: 'outputs.extract.rows = "12"' },
      },
    });
  });

  it('a missing value is "" and the reason says it was missing', () => {
    expect(evaluateComparison(cmp('outputs.extract.bytes > 0'), env)).toEqual({
      holds: false,
      reason:
        'when: outputs.extract.bytes > 0 is false (outputs.extract.bytes is missing (no AX_OUTPUT_EXTRACT_BYTES); outputs.extract.bytes = "")',
      reasonCode: {
        code: 'when_false_missing',
        args: {
          condition: 'outputs.extract.bytes > 0',
          reference: 'outputs.extract.bytes',
          variable: 'AX_OUTPUT_EXTRACT_BYTES',
          values: 'outputs.extract.bytes = ""',
        },
      },
    });
    // both sides missing: each named, in order
    expect(evaluateComparison(cmp('outputs.extract.bytes > params.floor'), env)).toMatchObject({
      reason:
        'when: outputs.extract.bytes > params.floor is false (outputs.extract.bytes is missing (no AX_OUTPUT_EXTRACT_BYTES); params.floor is missing (no AX_PARAM_FLOOR); outputs.extract.bytes = "", params.floor = "")',
      reasonCode: { code: 'when_false_missing_both' },
    });
    expect(holds('params.tag == ""')).toBe(true);
  });

  it('refuses a comparison of two constants', () => {
    expect(parseComparison('1 < 2')).toEqual({
      error: '"1 < 2" compares two constants: one side must be params.NAME or outputs.TASK.KEY',
    });
  });
});

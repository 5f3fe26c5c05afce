// checkParams (engine/api/params.ts): the rules a run's values pass at every door and in the UI's
// form, one table row per type and rule; each refusal names the param and says what is allowed.
import { describe, expect, it } from 'vitest';
import { checkParams, paramEnvName, paramProblemsText, paramText, patternProblem } from '../../engine/api/params.ts';
import { checkParams as checkRequest } from '../../engine/api/schemas.ts';
import type { ParamSpec, ParamValue } from '../../engine/api/types.ts';

const p = (name: string, type: ParamSpec['type'], extra: Partial<ParamSpec> = {}): ParamSpec => ({
  name,
  type,
  required: false,
  ...extra,
});

const specs: ParamSpec[] = [
  p('region', 'enum', { choices: ['eu', 'us'], default: 'eu' }),
  p('day', 'date', { required: true }),
  p('limit', 'number', { min: 1, max: 100, default: 10 }),
  p('dry_run', 'boolean', { default: false }),
  p('tag', 'string', { pattern: '[a-z]+' }),
  p('at', 'datetime'),
];

describe('checkParams: accepted values, typed or as text', () => {
  const rows: [string, Record<string, unknown>, Record<string, ParamValue>][] = [
    [
      'defaults fill what is not given',
      { day: '2026-11-30' },
      { region: 'eu', day: '2026-11-30', limit: 10, dry_run: false },
    ],
    [
      'enum as text',
      { day: '2026-11-30', region: 'us' },
      { region: 'us', day: '2026-11-30', limit: 10, dry_run: false },
    ],
    [
      'number as text',
      { day: '2026-11-30', limit: '25' },
      { region: 'eu', day: '2026-11-30', limit: 25, dry_run: false },
    ],
    [
      'number typed, at the bounds',
      { day: '2026-11-30', limit: 100 },
      { region: 'eu', day: '2026-11-30', limit: 100, dry_run: false },
    ],
    [
      'decimal number',
      { day: '2026-11-30', limit: '2.5' },
      { region: 'eu', day: '2026-11-30', limit: 2.5, dry_run: false },
    ],
    [
      'boolean as text',
      { day: '2026-11-30', dry_run: 'true' },
      { region: 'eu', day: '2026-11-30', limit: 10, dry_run: true },
    ],
    [
      'boolean typed',
      { day: '2026-11-30', dry_run: true },
      { region: 'eu', day: '2026-11-30', limit: 10, dry_run: true },
    ],
    ['a leap day', { day: '2028-02-29' }, { region: 'eu', day: '2028-02-29', limit: 10, dry_run: false }],
    [
      'string matching its pattern',
      { day: '2026-11-30', tag: 'abc' },
      { region: 'eu', day: '2026-11-30', limit: 10, dry_run: false, tag: 'abc' },
    ],
    [
      'datetime with Z',
      { day: '2026-11-30', at: '2026-11-30T02:00:00Z' },
      { region: 'eu', day: '2026-11-30', limit: 10, dry_run: false, at: '2026-11-30T02:00:00Z' },
    ],
    [
      'datetime with an offset',
      { day: '2026-11-30', at: '2026-11-30T02:00+05:30' },
      { region: 'eu', day: '2026-11-30', limit: 10, dry_run: false, at: '2026-11-30T02:00+05:30' },
    ],
    [
      'null counts as not given',
      { day: '2026-11-30', limit: null },
      { region: 'eu', day: '2026-11-30', limit: 10, dry_run: false },
    ],
  ];
  for (const [label, given, values] of rows)
    it(label, () => {
      expect(checkParams(specs, given)).toStrictEqual({ values });
    });
});

describe('checkParams: refused values name the param and what is allowed', () => {
  const base = { day: '2026-11-30' };
  const rows: [string, Record<string, unknown>, string][] = [
    ['an enum value not among the choices', { ...base, region: 'apac' }, 'params.region: "apac" is not one of eu, us'],
    ['a required param not given', {}, 'params.day: required: give -p day=YYYY-MM-DD'],
    ['an unknown param', { ...base, x: '1' }, 'no param "x": this workflow takes region, day, limit, dry_run, tag, at'],
    ['a date that is no date', { day: '2026-02-30' }, 'params.day: "2026-02-30" is not a date as YYYY-MM-DD'],
    ['a date in another form', { day: '30.11.2026' }, 'params.day: "30.11.2026" is not a date as YYYY-MM-DD'],
    ['a number below the minimum', { ...base, limit: '0' }, 'params.limit: 0 is below the minimum 1'],
    ['a number above the maximum', { ...base, limit: 101 }, 'params.limit: 101 is above the maximum 100'],
    ['text for a number', { ...base, limit: 'ten' }, 'params.limit: "ten" is not a number'],
    ['a boolean spelled otherwise', { ...base, dry_run: 'yes' }, 'params.dry_run: "yes" is not true or false'],
    ['a string against its pattern', { ...base, tag: 'ABC' }, 'params.tag: "ABC" does not match the pattern [a-z]+'],
    [
      'a pattern matches the whole value',
      { ...base, tag: 'abc1' },
      'params.tag: "abc1" does not match the pattern [a-z]+',
    ],
    [
      'a datetime without its offset',
      { ...base, at: '2026-11-30T02:00:00' },
      'params.at: "2026-11-30T02:00:00" is not a date and time with its offset',
    ],
    [
      'a datetime at hour 25',
      { ...base, at: '2026-11-30T25:00:00Z' },
      'params.at: "2026-11-30T25:00:00Z" is not a date and time',
    ],
  ];
  for (const [label, given, text] of rows)
    it(label, () => {
      const result = checkParams(specs, given);
      expect('problems' in result).toBe(true);
      if ('problems' in result) expect(paramProblemsText(result.problems)).toContain(text);
    });

  it('reports every problem at once, each on its param', () => {
    const result = checkParams(specs, { region: 'apac', limit: 'x' });
    expect('problems' in result && result.problems.map((x) => x.param)).toEqual(['region', 'day', 'limit']);
  });

  it('a workflow without params takes none', () => {
    const result = checkParams([], { region: 'eu' });
    expect(result).toStrictEqual({
      problems: [{ param: 'region', message: 'no param "region": this workflow takes no params' }],
    });
  });
});

describe('environment names and text', () => {
  it.each([
    ['region', 'AX_PARAM_REGION'],
    ['day-of.week', 'AX_PARAM_DAY_OF_WEEK'],
    ['dry_run', 'AX_PARAM_DRY_RUN'],
    ['2x', 'AX_PARAM_2X'],
  ])('%s → %s', (name, env) => expect(paramEnvName(name)).toBe(env));

  it.each<[ParamValue, string]>([
    [10, '10'],
    [2.5, '2.5'],
    [true, 'true'],
    [false, 'false'],
    ['2026-11-30', '2026-11-30'],
  ])('%s as text is %s', (value, text) => expect(paramText(value)).toBe(text));

  it('a pattern that does not compile says why', () => {
    expect(patternProblem('[a-')).toMatch(/^is not a valid regular expression: /);
    expect(patternProblem('^[a-z]+$')).toBeUndefined();
  });
});

describe('the API schema (schemas.ts)', () => {
  it('runWorkflow takes params typed or as text, a logical time and downstream; a wrong type is named', () => {
    const ok = checkRequest('runWorkflow', [
      'orders',
      {
        task: 'load',
        downstream: true,
        params: { day: '2026-11-30', limit: 10, dry_run: true },
        logicalTime: 0,
        actor: 'me',
      },
    ]);
    expect(ok.ok).toBe(true);
    const bad = checkRequest('runWorkflow', ['orders', { params: { day: { y: 2026 } }, actor: 'me' }]);
    expect(!bad.ok && bad.problems[0]?.path).toBe('runWorkflow(param 2.params.day)');
    const time = checkRequest('runWorkflow', ['orders', { logicalTime: -1, actor: 'me' }]);
    expect(!time.ok && time.problems[0]?.path).toBe('runWorkflow(param 2.logicalTime)');
  });

  it('a spec over the API carries params and workflow-level settings; a wrong param type is named', () => {
    const spec = {
      name: 'w',
      params: [{ name: 'day', type: 'date', required: true }],
      taskDefaults: { env: { TZ: 'UTC' }, retries: 2, labels: ['linux'] },
      tasks: [{ name: 'a', command: './a.sh' }],
    };
    const ok = checkRequest('apply', [spec, 'me']);
    expect(ok.ok && (ok.params[0] as { params: ParamSpec[] }).params).toEqual(spec.params);
    const bad = checkRequest('apply', [{ ...spec, params: [{ name: 'day', type: 'day' }] }, 'me']);
    expect(!bad.ok && bad.problems[0]?.path).toBe('apply(param 1.params.0.type)');
  });
});

// Secret references in a workflow file: `env: { NAME: { secret: SECRET } }` is read as a
// reference (never a value), its problems are named with their path and fix, and `ax export`
// (serializeWorkflow) writes it back as written. Masking of secret values in log lines.
import { describe, expect, it } from 'vitest';
import { ValidationError, type ValidationProblem } from '../../engine/api/errors.ts';
import { checkParams } from '../../engine/api/schemas.ts';
import { secretNames } from '../../engine/api/secrets.ts';
import { MASK, secretMasker } from '../../engine/core/secrets/secret-mask.ts';
import { environmentWarnings } from '../../engine/core/workflow/spec-warnings.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';

const parse = (text: string) => parseWorkflowFile(text, { defaultTimezone: 'UTC' });
const oneTask = (env: string) => `workflow: w\ntasks:\n  call:\n    command: ./call.sh\n    env: ${env}\n`;

function problems(text: string): ValidationProblem[] {
  try {
    parse(text);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).problems;
  }
  throw new Error('expected a ValidationError');
}

describe('workflow file: secret references', () => {
  it('reads { secret: NAME } as a reference beside literal values', () => {
    const { spec } = parse(oneTask('{ API_TOKEN: { secret: api-token }, REGION: eu, N: 1.10 }'));
    expect(spec.tasks[0]!.env).toEqual({ API_TOKEN: { secret: 'api-token' }, REGION: 'eu', N: '1.10' });
    expect(secretNames(spec.tasks[0]!.env)).toEqual(['api-token']);
  });

  it('round-trips through export: the reference, never a value, in the same order', () => {
    const text = oneTask('{ REGION: eu, API_TOKEN: { secret: api-token }, DB: { secret: db.password_2 } }');
    const yaml = serializeWorkflow(parse(text).spec);
    expect(yaml).toContain(
      '    env:\n      REGION: eu\n      API_TOKEN:\n        secret: api-token\n      DB:\n        secret: db.password_2\n',
    );
    expect(parse(yaml).spec).toEqual(parse(text).spec);
  });

  it('names each problem with its path and the fix', () => {
    expect(problems(oneTask('{ A: { secret: "-bad name" } }'))).toEqual([
      {
        path: 'tasks.call.env.A.secret',
        message:
          '"-bad name" is not a valid secret name: use letters, digits, "_", "." or "-", starting with a letter or digit (at most 100 characters)',
      },
    ]);
    expect(problems(oneTask('{ A: { secret: 12 } }'))).toEqual([
      { path: 'tasks.call.env.A.secret', message: 'must be a secret name (got a number)' },
    ]);
    expect(problems(oneTask('{ A: {} }'))).toEqual([
      {
        path: 'tasks.call.env.A.secret',
        message:
          'missing: write { secret: NAME } to take the value from the secret NAME set with "ax secrets set NAME"',
      },
    ]);
    const typo = problems(oneTask('{ A: { secrt: x } }'));
    expect(typo.map((p) => p.path)).toEqual(['tasks.call.env.A.secrt', 'tasks.call.env.A.secret']);
    expect(typo[0]!.message).toContain("did you mean 'secret'");
    // A value is never accepted in place of the name.
    expect(problems(oneTask('{ A: { secret: x, value: hunter2 } }')).map((p) => p.path)).toEqual([
      'tasks.call.env.A.value',
    ]);
  });

  it('the API accepts a reference in a spec and refuses other objects', () => {
    const spec = { name: 'w', tasks: [{ name: 'a', command: 'x', env: { A: { secret: 'api-token' }, B: 'b' } }] };
    expect(checkParams('formatWorkflow', [spec]).ok).toBe(true);
    const bad = { name: 'w', tasks: [{ name: 'a', command: 'x', env: { A: { secret: 'x', value: 'v' } } }] };
    expect(checkParams('formatWorkflow', [bad]).ok).toBe(false);
  });
});

describe('secretMasker', () => {
  it('replaces every occurrence, longest value first, and lines of a multi-line value', () => {
    const mask = secretMasker(['abcd', 'abcdefgh', 'line-one\nline-two']);
    expect(mask('x abcdefgh y abcd z abcd')).toBe(`x ${MASK} y ${MASK} z ${MASK}`);
    expect(mask('got line-two here')).toBe(`got ${MASK} here`);
    expect(mask('nothing to hide')).toBe('nothing to hide');
  });

  it('leaves values shorter than 4 characters alone, so ordinary output stays readable', () => {
    const mask = secretMasker(['yes', '']);
    expect(mask('yes, yes')).toBe('yes, yes');
  });
});

describe('environmentWarnings: secrets', () => {
  const spec = parse(oneTask('{ API_TOKEN: { secret: api-token }, DB: { secret: db-pw } }')).spec;
  const here = (names: string[]) => ({
    get: (n: string) => (names.includes(n) ? 'v' : undefined),
    howToSet: (n: string) => `run "ax secrets set ${n}"`,
  });

  it('in solo mode, names each referenced secret this machine lacks, on its env field', () => {
    expect(environmentWarnings(spec, [], 'solo', undefined, 'f.yaml', here(['api-token']))).toEqual([
      {
        file: 'f.yaml',
        path: 'tasks.call.env.DB',
        message: 'secret "db-pw" is not set on this machine: the task would fail to start; run "ax secrets set db-pw"',
      },
    ]);
    expect(environmentWarnings(spec, [], 'solo', undefined, undefined, here(['api-token', 'db-pw']))).toEqual([]);
  });

  it('says nothing without a secret source (team mode: secrets are on the workers)', () => {
    expect(environmentWarnings(spec, [], 'team')).toEqual([]);
  });
});

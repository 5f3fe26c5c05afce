// Specs that arrive through the API (UI, remote clients) pass the same checks as files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../engine/api/types.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

const task = (name: string, upstream: string[] = [], command = 'true') => ({
  name,
  command,
  env: {},
  retries: 0,
  retryBackoff: { kind: 'fixed' as const, delayMs: 10_000, maxDelayMs: 10_000 },
  labels: [],
  upstream,
});

describe('EngineApi.apply validation', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine({ start: false });
  });
  afterAll(() => t.close());

  it('refuses a cyclic spec with the cycle spelled out, and stores nothing', async () => {
    const spec: WorkflowSpec = { name: 'loop', routing: 'round_robin', tasks: [task('extract', ['clean']), task('clean', ['extract'])] };
    const err = await t.engine.apply(spec, 'test').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toContain('cycle: extract → clean → extract');
    expect(await t.engine.listWorkflows()).toEqual([]);
  });

  it('refuses an empty command and an unknown upstream', async () => {
    const spec: WorkflowSpec = { name: 'bad', routing: 'round_robin', tasks: [task('a', [], '  '), task('b', ['nope'])] };
    const err = (await t.engine.apply(spec, 'test').catch((e: unknown) => e)) as ValidationError;
    expect(err.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['tasks.a.command', 'tasks.b.upstream']));
  });

  it('accepts a valid spec and records who applied it', async () => {
    const spec: WorkflowSpec = { name: 'ok', routing: 'round_robin', tasks: [task('a'), task('b', ['a'])] };
    expect(await t.engine.apply(spec, 'alice@laptop')).toEqual({ workflow: 'ok', version: 1, changed: true });
    expect((await t.engine.listAudit(1))[0]).toMatchObject({ actor: 'alice@laptop', action: 'workflow.apply', object: 'workflow:ok' });
  });
});

// Specs that arrive through the API (UI, remote clients) pass the same checks as files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiMethod } from '../../engine/api/engine-api.ts';
import { ValidationError } from '../../engine/api/errors.ts';
import type { WorkflowSpec } from '../../engine/api/types.ts';
import { dispatchRequest } from '../../engine/server/api-dispatch.ts';
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
    const spec: WorkflowSpec = {
      name: 'loop',
      routing: 'round_robin',
      tasks: [task('extract', ['clean']), task('clean', ['extract'])],
    };
    const err = await t.engine.apply(spec, 'test').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toContain('cycle: extract → clean → extract');
    expect(await t.engine.listWorkflows()).toEqual([]);
  });

  it('refuses an empty command and an unknown upstream', async () => {
    const spec: WorkflowSpec = {
      name: 'bad',
      routing: 'round_robin',
      tasks: [task('a', [], '  '), task('b', ['nope'])],
    };
    const err = (await t.engine.apply(spec, 'test').catch((e: unknown) => e)) as ValidationError;
    expect(err.problems.map((p) => p.path)).toEqual(expect.arrayContaining(['tasks.a.command', 'tasks.b.upstream']));
  });

  it('accepts a valid spec and records who applied it', async () => {
    const spec: WorkflowSpec = { name: 'ok', routing: 'round_robin', tasks: [task('a'), task('b', ['a'])] };
    expect(await t.engine.apply(spec, 'alice@laptop')).toEqual({ workflow: 'ok', version: 1, changed: true });
    expect((await t.engine.listAudit(1))[0]).toMatchObject({
      actor: 'alice@laptop',
      action: 'workflow.apply',
      object: 'workflow:ok',
    });
  });
});

describe('specs over the wire', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine({ start: false });
  });
  afterAll(() => t.close());

  const call = (method: ApiMethod, ...params: unknown[]) => dispatchRequest(t.engine, { id: 1, method, params });

  it('a spec with only what a file needs gets the file defaults', async () => {
    const reply = await call(
      'apply',
      {
        name: 'lean',
        tasks: [
          { name: 'a', command: 'true' },
          { name: 'b', command: 'true', upstream: ['a'] },
        ],
      },
      'api',
    );
    expect(reply).toEqual({ id: 1, result: { workflow: 'lean', version: 1, changed: true } });
    const spec = await t.engine.exportWorkflow('lean');
    expect(spec.routing).toBe('round_robin');
    expect(spec.tasks[1]).toEqual({
      name: 'b',
      command: 'true',
      env: {},
      retries: 0,
      retryBackoff: { kind: 'fixed', delayMs: 10_000, maxDelayMs: 10_000 },
      labels: [],
      upstream: ['a'],
    });
    const scheduled = await call('validate', {
      spec: { name: 'cronned', schedule: { cron: '*/5 * * * *' }, tasks: [{ name: 'a', command: 'true' }] },
    });
    expect(scheduled).toMatchObject({ result: { ok: true } });
  });

  it('two tasks of one name are refused, not folded into one; nothing is stored', async () => {
    const spec = {
      name: 'twice',
      tasks: [
        { name: 'a', command: 'echo 1' },
        { name: 'a', command: 'echo 2' },
      ],
    };
    expect(await call('apply', spec, 'api')).toMatchObject({
      error: { code: 'validation', message: 'tasks.a: is used by two tasks: task names must be unique' },
    });
    expect((await t.engine.listWorkflows()).map((w) => w.name)).not.toContain('twice');
    expect(await call('validate', { spec })).toMatchObject({ result: { ok: false } });
  });

  it('a field of the wrong type is named, before the engine sees it', async () => {
    const reply = await call(
      'apply',
      {
        name: 'typed',
        tasks: [{ name: 'a', command: 'true', retryBackoff: { kind: 'linear', delayMs: 1, maxDelayMs: 1 } }],
      },
      'api',
    );
    expect(reply).toMatchObject({ error: { code: 'validation' } });
    expect((reply as { error: { message: string } }).error.message).toMatch(
      /^apply\(param 1\.tasks\.0\.retryBackoff\.kind\): /,
    );
  });
});

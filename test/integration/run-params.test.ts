// A run's params at each door of the engine in process (the API's runWorkflow, an event's payload,
// a cron fire's defaults): checked before a run is created (a refusal names the param, and no run
// row is left), recorded on the run, and seen by its tasks as AX_PARAM_<NAME>, never in the
// command's text. Also a manual run of one task with its downstream, at a logical time given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
  await t.apply(`
workflow: orders
on_event: orders-ready
params:
  region: { type: enum, choices: [eu, us], default: eu }
  day: { type: date, required: true }
  limit: { type: number, min: 1, max: 100, default: 10 }
  dry_run: { type: boolean, default: false }
  note: { type: string }
tasks:
  show:
    command: env | grep '^AX_PARAM_' | sort
`);
});

afterAll(async () => {
  await t?.close();
});

/** the AX_PARAM_ lines a run's one task printed */
async function paramLines(runId: number): Promise<string[]> {
  const { instances } = await t.waitRun(runId);
  return t.logText(instances[0]?.id ?? -1);
}

const refusal = async (p: Promise<unknown>): Promise<AxError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AxError);
  return err as AxError;
};

// POSIX shells: env, grep and sort.
describe.skipIf(process.platform === 'win32')('run params at the engine', () => {
  it('a manual run with params: checked, recorded, and in its task env as AX_PARAM_*', async () => {
    // a value with shell syntax stays a value: it reaches the env, and nothing runs it
    const note = '$(touch /tmp/ax-param-injected) `id`; "x"';
    const run = await t.engine.runWorkflow('orders', {
      params: { region: 'us', day: '2026-11-30', limit: '25', note },
      actor: 'test',
    });
    expect(run.params).toEqual({ region: 'us', day: '2026-11-30', limit: 25, dry_run: false, note });
    expect((await t.waitRun(run.id)).run.state).toBe('SUCCESS');
    expect(await paramLines(run.id)).toEqual([
      'AX_PARAM_DAY=2026-11-30',
      'AX_PARAM_DRY_RUN=false',
      'AX_PARAM_LIMIT=25',
      `AX_PARAM_NOTE=${note}`,
      'AX_PARAM_REGION=us',
    ]);
    expect((await t.engine.getRun(run.id)).run.params).toEqual(run.params);
    const audit = (await t.engine.listAudit(20)).find(
      (e) => e.action === 'run.manual' && e.detail?.startsWith(`run #${run.id}`),
    );
    expect(audit?.detail).toBe(`run #${run.id}; params region=us day=2026-11-30 limit=25 dry_run=false note=${note}`);
  });

  it('bad params are refused through the API, naming each param, and no run is created', async () => {
    const before = (await t.engine.listRuns({ workflow: 'orders', limit: 1000 })).length;
    const err = await refusal(
      t.engine.runWorkflow('orders', { params: { region: 'apac', limit: '0', x: '1' }, actor: 'test' }),
    );
    expect(err.code).toBe('validation');
    expect(err.message).toContain('params.region: "apac" is not one of eu, us');
    expect(err.message).toContain('params.day: required: give -p day=YYYY-MM-DD');
    expect(err.message).toContain('params.limit: 0 is below the minimum 1');
    expect(err.message).toContain('no param "x": this workflow takes region, day, limit, dry_run, note');
    expect(err.problems.map((p) => p.path)).toEqual(['params.x', 'params.region', 'params.day', 'params.limit']);
    expect((await t.engine.listRuns({ workflow: 'orders', limit: 1000 })).length).toBe(before);
  });

  it("an event's JSON payload gives the declared params (other fields ignored); a bad one refuses the run", async () => {
    const [run] = await t.engine.trigger(
      'orders-ready',
      JSON.stringify({ day: '2026-12-01', limit: 3, file: 'orders.csv' }),
      'test',
    );
    expect(run?.params).toEqual({ region: 'eu', day: '2026-12-01', limit: 3, dry_run: false });
    expect(await paramLines(run?.id ?? -1)).toContain('AX_PARAM_LIMIT=3');

    const before = (await t.engine.listRuns({ workflow: 'orders', limit: 1000 })).length;
    const err = await refusal(t.engine.trigger('orders-ready', JSON.stringify({ day: 'monday' }), 'test'));
    expect(err.message).toContain('params.day: "monday" is not a date as YYYY-MM-DD');
    // a payload that is not a JSON object gives no params: the required day is missing
    const text = await refusal(t.engine.trigger('orders-ready', 'plain text', 'test'));
    expect(text.message).toContain('params.day: required');
    expect((await t.engine.listRuns({ workflow: 'orders', limit: 1000 })).length).toBe(before);
  });

  it("a cron fire takes the params' defaults", async () => {
    await t.apply(`
workflow: every-second
schedule: "* * * * * *"
params:
  region: { type: enum, choices: [eu, us], default: us }
  limit: { type: number, default: 7 }
tasks:
  show: { command: "env | grep '^AX_PARAM_' | sort" }
`);
    const cron = await waitFor(
      async () => (await t.engine.listRuns({ workflow: 'every-second', limit: 5 })).find((r) => r.trigger === 'cron'),
      { message: 'no cron run of every-second' },
    );
    await t.engine.setEnabled('every-second', false, 'test');
    expect(cron.params).toEqual({ region: 'us', limit: 7 });
    expect(await paramLines(cron.id)).toEqual(['AX_PARAM_LIMIT=7', 'AX_PARAM_REGION=us']);
  });

  it('a task with its downstream, at a logical time: joins wait only for upstreams inside the run', async () => {
    await t.apply(`
workflow: chain
tasks:
  a: { command: "true" }
  b: { command: "true", upstream: [a] }
  c: { command: "true", upstream: [b] }
  other: { command: "true" }
  d: { command: "true", upstream: [c, other] }
  e: { command: "true", upstream: [a] }
`);
    const at = Date.parse('2026-11-30T02:00:00Z');
    const run = await t.engine.runWorkflow('chain', { task: 'b', downstream: true, logicalTime: at, actor: 'test' });
    expect(run).toMatchObject({ onlyTask: 'b', withDownstream: true, logicalTime: at });
    const done = await t.waitRun(run.id);
    expect(done.run.state).toBe('SUCCESS');
    expect(done.instances.map((i) => `${i.taskName}:${i.state}`).sort()).toEqual([
      'b:SUCCESS',
      'c:SUCCESS',
      'd:SUCCESS',
    ]);
    // without --downstream the task runs alone, as before
    const alone = await t.engine.runWorkflow('chain', { task: 'b', actor: 'test' });
    expect((await t.waitRun(alone.id)).instances.map((i) => i.taskName)).toEqual(['b']);
    const err = await refusal(t.engine.runWorkflow('chain', { downstream: true, actor: 'test' }));
    expect(err.message).toMatch(/needs the task it starts from/);
  });

  it('a failure in a downstream run fails its own downstream and the run', async () => {
    await t.apply(`
workflow: breaks
tasks:
  a: { command: "true" }
  b: { command: "exit 3", upstream: [a] }
  c: { command: "true", upstream: [b] }
`);
    const run = await t.engine.runWorkflow('breaks', { task: 'b', downstream: true, actor: 'test' });
    const done = await t.waitRun(run.id);
    expect(done.run.state).toBe('FAILED');
    expect(done.instances.map((i) => `${i.taskName}:${i.state}`)).toEqual(['b:FAILED', 'c:UPSTREAM_FAILED']);
  });
});

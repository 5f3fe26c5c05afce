// Trigger rules (`run_if:`) and preconditions (`when:`) through the real engine: a SQLite file,
// real processes. What ran is read from the store and from files the tasks wrote, not assumed.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiMethod } from '../../engine/api/engine-api.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { dispatchRequest } from '../../engine/server/api-dispatch.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t?.close();
});

/** Each task's latest instance, by name. */
function latest(instances: InstanceRecord[]): Record<string, InstanceRecord> {
  const out: Record<string, InstanceRecord> = {};
  for (const i of instances)
    if (!out[i.taskName] || i.attempt > (out[i.taskName] as InstanceRecord).attempt) out[i.taskName] = i;
  return out;
}

const states = (instances: InstanceRecord[]) =>
  Object.fromEntries(Object.entries(latest(instances)).map(([name, i]) => [name, i.state]));

// POSIX shell commands (sh -c, exit, echo): skipped on Windows only, where AX runs no tasks.
describe.skipIf(process.platform === 'win32')('engine: trigger rules and when:', () => {
  it('a failed extract: cleanup (all_done) and notice (one_failed) run, load UPSTREAM_FAILED, the run FAILED', async () => {
    const mark = (name: string) => join(t.dir, `ran-${name}`);
    await t.apply(`
workflow: rules-failing
tasks:
  extract: { command: "echo extracting; exit 3" }
  load: { command: "touch ${mark('load')}", upstream: [extract] }
  report: { command: "touch ${mark('report')}", upstream: [load] }
  cleanup: { command: "touch ${mark('cleanup')}", upstream: [load], run_if: all_done }
  notify: { command: "touch ${mark('notify')}", upstream: [extract], run_if: one_failed }
  celebrate: { command: "touch ${mark('celebrate')}", upstream: [extract], run_if: none_failed }
  all-bad: { command: "touch ${mark('all-bad')}", upstream: [extract], run_if: all_failed }
`);
    const { run, instances } = await t.runToEnd('rules-failing');
    expect(states(instances)).toEqual({
      extract: 'FAILED',
      load: 'UPSTREAM_FAILED',
      report: 'UPSTREAM_FAILED',
      cleanup: 'SUCCESS',
      notify: 'SUCCESS',
      celebrate: 'UPSTREAM_FAILED',
      'all-bad': 'SUCCESS',
    });
    expect(run.state).toBe('FAILED');
    for (const ran of ['cleanup', 'notify', 'all-bad']) expect(existsSync(mark(ran)), ran).toBe(true);
    for (const not of ['load', 'report', 'celebrate']) expect(existsSync(mark(not)), not).toBe(false);
    const got = latest(instances);
    // the failure further up is named as it was first, two tasks down
    expect(got.report?.reason).toBe('upstream "extract" ended FAILED');
    expect(got.cleanup?.startedAt).toBeGreaterThanOrEqual(got.extract?.finishedAt as number);
  });

  it('everything succeeds: the notices are SKIPPED with why, and the run is SUCCESS', async () => {
    await t.apply(`
workflow: rules-green
tasks:
  extract: { command: "echo ok" }
  notify: { command: "echo notice", upstream: [extract], run_if: one_failed }
  after-notify: { command: "echo after", upstream: [notify] }
  cleanup: { command: "echo cleanup", upstream: [after-notify], run_if: all_done }
`);
    const { run, instances } = await t.runToEnd('rules-green');
    expect(states(instances)).toEqual({
      extract: 'SUCCESS',
      notify: 'SKIPPED',
      'after-notify': 'SKIPPED',
      cleanup: 'SUCCESS',
    });
    const got = latest(instances);
    expect(got.notify?.reason).toBe('run_if: one_failed, and no upstream failed');
    expect(got['after-notify']?.reason).toBe('upstream "notify" ended SKIPPED (run_if: all_success)');
    expect(run.state).toBe('SUCCESS');
  });

  it('a when: command that exits 1 skips its task with its output; all_success downstream skipped, none_failed runs', async () => {
    const marker = join(t.dir, 'loaded');
    await t.apply(`
workflow: rules-when
tasks:
  extract: { command: "echo extracted" }
  load:
    command: "touch ${marker}"
    upstream: [extract]
    when: { command: "echo no new rows; exit 1" }
  index: { command: "echo indexing", upstream: [load] }
  tidy: { command: "echo tidy", upstream: [load], run_if: none_failed }
`);
    const { run, instances } = await t.runToEnd('rules-when');
    expect(states(instances)).toEqual({ extract: 'SUCCESS', load: 'SKIPPED', index: 'SKIPPED', tidy: 'SUCCESS' });
    const got = latest(instances);
    expect(got.load?.reason).toBe('when: exited 1: no new rows');
    expect(got.index?.reason).toBe('upstream "load" ended SKIPPED (run_if: all_success)');
    expect(existsSync(marker)).toBe(false);
    // the condition's output is in the task's log, with the engine's line saying why it was skipped
    const log = await t.logText(got.load?.id as number);
    expect(log).toContain('no new rows');
    expect(log.join('\n')).toContain('skipped: when: exited 1: no new rows');
    expect(run.state).toBe('SUCCESS');
  });

  it('a when: command: its long output is cut for the reason; one that hangs ends at the task timeout', async () => {
    await t.apply(`
workflow: rules-when-edges
tasks:
  chatty: { command: "echo ran", when: { command: "for i in $(seq 1 200); do echo line-$i-of-some-length; done; exit 4" } }
  hangs: { command: "echo ran", timeout: 1s, when: { command: "sleep 60" } }
  after: { command: "echo after", upstream: [hangs], run_if: all_done }
`);
    const { run, instances } = await t.runToEnd('rules-when-edges');
    const got = latest(instances);
    expect(got.chatty?.state).toBe('SKIPPED');
    const reason = got.chatty?.reason ?? '';
    expect(reason.startsWith('when: exited 4: line-1-of-some-length line-2-of-some-length')).toBe(true);
    expect(reason.length).toBeLessThanOrEqual(1024);
    expect(reason.endsWith('…')).toBe(true);
    // all 200 lines are in the log, though
    expect((await t.logText(got.chatty?.id as number)).filter((l) => l.startsWith('line-'))).toHaveLength(200);
    expect(got.hangs?.state).toBe('TIMEOUT');
    expect(got.hangs?.reason).toBe('when: its command timed out after 1s');
    expect(got.after?.state).toBe('SUCCESS');
    expect(run.state).toBe('FAILED');
  });

  it('a when: command that exits 0 lets the task run, in the task cwd and environment', async () => {
    await t.apply(`
workflow: rules-when-ok
tasks:
  check:
    command: "echo ran with $AX_TASK"
    cwd: ${t.dir}
    when: { command: 'test "$AX_TASK" = check && test "$(pwd -P)" = "$(cd ${t.dir} && pwd -P)"' }
`);
    const { run, instances } = await t.runToEnd('rules-when-ok');
    expect(run.state).toBe('SUCCESS');
    const got = latest(instances);
    expect(await t.logText(got.check?.id as number)).toContain('ran with check');
  });

  it('a when: comparison on an upstream output that is missing: skipped, the reason says it was missing', async () => {
    await t.apply(`
workflow: rules-expr
tasks:
  extract: { command: "echo done" }
  load: { command: "echo loading", upstream: [extract], when: 'outputs.extract.rows > 0' }
`);
    const { run, instances } = await t.runToEnd('rules-expr');
    const got = latest(instances);
    expect(got.load?.state).toBe('SKIPPED');
    expect(got.load?.reason).toBe(
      'when: outputs.extract.rows > 0 is false (outputs.extract.rows is missing (no AX_OUTPUT_EXTRACT_ROWS); outputs.extract.rows = "")',
    );
    expect(run.state).toBe('SUCCESS');
  });

  it('a re-run of the failed task takes the skipped and upstream-failed markers away and decides them again', async () => {
    const flag = join(t.dir, 'fixed');
    await t.apply(`
workflow: rules-rerun
tasks:
  extract: { command: "test -e ${flag}" }
  load: { command: "echo load", upstream: [extract] }
  notify: { command: "echo notice", upstream: [extract], run_if: one_failed }
  only-good: { command: "echo good", upstream: [extract], run_if: all_failed }
  publish: { command: "echo publish", upstream: [extract], run_if: all_done, when: { command: "test -e ${flag}" } }
`);
    const first = await t.runToEnd('rules-rerun');
    expect(states(first.instances)).toEqual({
      extract: 'FAILED',
      load: 'UPSTREAM_FAILED',
      notify: 'SUCCESS',
      'only-good': 'SUCCESS',
      publish: 'SKIPPED',
    });
    writeFileSync(flag, '');
    await t.engine.rerunTask(first.run.id, 'extract', 'test');
    const again = await t.waitRun(first.run.id);
    expect(states(again.instances)).toEqual({
      extract: 'SUCCESS',
      load: 'SUCCESS',
      notify: 'SUCCESS', // it ran: a re-run does not take back what ran
      'only-good': 'SUCCESS',
      publish: 'SUCCESS', // skipped by its when: the first time, judged again
    });
    expect(again.instances.filter((i) => i.taskName === 'publish')).toHaveLength(1);
    expect(again.run.state).toBe('SUCCESS');
  });

  it('run_if and when: through the API as the UI sends them: applied, exported back, a bad one named', async () => {
    const call = (method: ApiMethod, ...params: unknown[]) => dispatchRequest(t.engine, { id: 1, method, params });
    const tasks = [
      { name: 'a', command: 'true' },
      { name: 'b', command: 'true', upstream: ['a'], runIf: 'all_done', when: { expr: 'outputs.a.rows >= 1' } },
      { name: 'c', command: 'true', upstream: ['a'], runIf: 'one_failed', when: { command: 'test -e x' } },
    ];
    expect(await call('apply', { name: 'rules-api', tasks }, 'api')).toMatchObject({ result: { changed: true } });
    const spec = await t.engine.exportWorkflow('rules-api');
    expect(spec.tasks.map((x) => [x.name, x.runIf, x.when])).toEqual([
      ['a', undefined, undefined],
      ['b', 'all_done', { expr: 'outputs.a.rows >= 1' }],
      ['c', 'one_failed', { command: 'test -e x' }],
    ]);
    const bad = [tasks[0], { ...tasks[1], when: { expr: 'outputs.c.rows >= 1' } }];
    expect(await call('apply', { name: 'rules-api-bad', tasks: bad }, 'api')).toMatchObject({
      error: {
        code: 'validation',
        message: expect.stringContaining('tasks.b.when: outputs.c.rows: "c" is not an upstream of "b"'),
      },
    });
    expect(
      await call('apply', { name: 'rules-api-bad', tasks: [{ ...tasks[0], runIf: 'sometimes' }] }, 'api'),
    ).toMatchObject({
      error: { code: 'validation', message: expect.stringContaining('tasks.0.runIf') },
    });
  });
});

// Non-cron triggers through the real engine (design.md §5): events with a payload that reaches the
// task only as AX_EVENT_PAYLOAD, manual runs of one task, and re-running a failed task with its
// downstream in the same run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;
let scratch: string;

beforeAll(async () => {
  t = await startTestEngine();
  scratch = tempDir('ax-trigger-');
});

afterAll(async () => {
  await t?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

const states = (instances: InstanceRecord[]) => instances.map((i) => `${i.taskName}#${i.attempt}:${i.state}`).sort();

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: event triggers', () => {
  it('starts the on_event workflow and hands it the payload verbatim, never as shell code', async () => {
    const canary = path.join(scratch, 'pwned');
    const payload = `{"msg": "it's \\"quoted\\"", "cmd": "$(touch ${canary})", "tick": "\`touch ${canary}\`; touch ${canary}", "var": "$HOME"}`;
    await t.apply(`
workflow: on-upload
on_event: file-uploaded
tasks:
  echo-payload:
    command: printf '%s\\n' "$AX_EVENT_PAYLOAD"
`);
    const runs = await t.engine.trigger('file-uploaded', payload, 'test');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      workflowName: 'on-upload',
      trigger: 'event',
      triggeredBy: 'test',
      eventPayload: payload,
    });
    const { run, instances } = await t.waitRun(runs[0]!.id);
    expect(run.state).toBe('SUCCESS');
    expect(await t.logText(instances[0]!.id)).toEqual([payload]);
    expect(fs.existsSync(canary)).toBe(false);
    const audit = await t.engine.listAudit(5);
    expect(
      audit.some(
        (a) => a.action === 'run.event' && a.object === 'event:file-uploaded' && a.detail?.includes(`run #${run.id}`),
      ),
    ).toBe(true);
  });

  it('starts every enabled workflow listening to the event, and no disabled one', async () => {
    for (const name of ['fan-a', 'fan-b', 'fan-off']) {
      await t.apply(`
workflow: ${name}
on_event: fan-out
tasks:
  t:
    command: echo ${name}
`);
    }
    await t.engine.setEnabled('fan-off', false, 'test');
    const runs = await t.engine.trigger('fan-out', undefined, 'test');
    expect(runs.map((r) => r.workflowName).sort()).toEqual(['fan-a', 'fan-b']);
    for (const r of runs) {
      const { run, instances } = await t.waitRun(r.id);
      expect(run.state).toBe('SUCCESS');
      expect(await t.logText(instances[0]!.id)).toEqual([r.workflowName]);
    }
    expect(await t.engine.listRuns({ workflow: 'fan-off' })).toEqual([]);
  });

  it('rejects an unknown event with not_found naming the event', async () => {
    const err = await t.engine.trigger('no-such-event', 'x', 'test').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AxError);
    expect((err as AxError).code).toBe('not_found');
    expect((err as AxError).message).toContain('no-such-event');
  });
});

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: manual runs and re-runs', () => {
  const flag = () => path.join(scratch, 'c-fixed');

  beforeAll(async () => {
    await t.apply(`
workflow: diamond
tasks:
  a:
    command: echo a
  b:
    command: echo b
    upstream: [a]
  c:
    command: ${JSON.stringify(`echo "c attempt $AX_ATTEMPT"; test -e ${JSON.stringify(flag())}`)}
    upstream: [a]
  d:
    command: echo d
    upstream: [b, c]
`);
  });

  it('runs only the one task asked for', async () => {
    fs.writeFileSync(flag(), '');
    try {
      const { run, instances } = await t.runToEnd('diamond', { task: 'c' });
      expect(run).toMatchObject({ state: 'SUCCESS', onlyTask: 'c', trigger: 'manual' });
      expect(states(instances)).toEqual(['c#1:SUCCESS']);
    } finally {
      fs.rmSync(flag());
    }
  });

  it('fails a one-task run when that task fails, and touches nothing downstream', async () => {
    const { run, instances } = await t.runToEnd('diamond', { task: 'c' });
    expect(run.state).toBe('FAILED');
    expect(states(instances)).toEqual(['c#1:FAILED']);
  });

  it('rejects a one-task run of a task the workflow does not have', async () => {
    const err = await t.engine.runWorkflow('diamond', { task: 'zz', actor: 'test' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AxError);
    expect((err as AxError).code).toBe('not_found');
    expect((err as AxError).message).toContain('"zz"');
  });

  it('re-runs a failed task: a new attempt, then its downstream, and the run succeeds', async () => {
    const failed = await t.runToEnd('diamond');
    expect(failed.run.state).toBe('FAILED');
    expect(states(failed.instances)).toEqual(['a#1:SUCCESS', 'b#1:SUCCESS', 'c#1:FAILED', 'd#1:UPSTREAM_FAILED']);

    // a re-run of a task that did not fail is refused
    const refused = await t.engine.rerunTask(failed.run.id, 'b', 'test').catch((e: unknown) => e);
    expect((refused as AxError).code).toBe('conflict');

    fs.writeFileSync(flag(), '');
    const detail = await t.engine.rerunTask(failed.run.id, 'c', 'test');
    expect(detail.run.id).toBe(failed.run.id);
    const { run, instances } = await t.waitRun(failed.run.id);
    expect(run.state).toBe('SUCCESS');
    expect(states(instances)).toEqual(['a#1:SUCCESS', 'b#1:SUCCESS', 'c#1:FAILED', 'c#2:SUCCESS', 'd#1:SUCCESS']);
    const c2 = instances.find((i) => i.taskName === 'c' && i.attempt === 2) as InstanceRecord;
    const d = instances.find((i) => i.taskName === 'd') as InstanceRecord;
    expect(await t.logText(c2.id)).toEqual(['c attempt 2']);
    expect(d.startedAt).toBeGreaterThanOrEqual(c2.finishedAt as number);
    // a and b are not run again
    expect(instances.filter((i) => i.taskName === 'a' || i.taskName === 'b')).toHaveLength(2);
    // the first attempt's log is kept
    const c1 = instances.find((i) => i.taskName === 'c' && i.attempt === 1) as InstanceRecord;
    expect(await t.logText(c1.id)).toEqual(['c attempt 1']);
    expect(run.finishedAt).toBeGreaterThanOrEqual(d.finishedAt as number);
  });
});

// Sub-workflows on a real solo engine with real task processes: a call chain of three workflows
// (a → b → c) runs, each calling instance linked both ways with its child run and taking its
// state (success, a failing child, a retry that starts a new child); cancelling the top run
// cancels the whole chain and stops the grandchild's process; a call past its timeout ends
// TIMEOUT and cancels its child; a lost child fails its caller; a call of a missing workflow fails
// saying so; a cycle of calls is refused at apply.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { openDataDirStore } from '../helpers/files.ts';
import { processAlive } from '../helpers/processes.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t?.close();
});

const byTask = (d: RunDetail, name: string): InstanceRecord[] => d.instances.filter((i) => i.taskName === name);
const only = (d: RunDetail, name: string): InstanceRecord => {
  const list = byTask(d, name);
  expect(list).toHaveLength(1);
  return list[0] as InstanceRecord;
};

/** The child run a calling instance started, checked to point back at it. */
async function childOf(parent: RunDetail, inst: InstanceRecord): Promise<RunDetail> {
  expect(inst.childRunId).toBeDefined();
  const child = await t.engine.getRun(inst.childRunId as number);
  expect(child.run).toMatchObject({
    trigger: 'call',
    parentRunId: parent.run.id,
    parentInstanceId: inst.id,
    logicalTime: parent.run.logicalTime,
  });
  return child;
}

async function chain(prefix: string, leaf: string): Promise<void> {
  await t.apply(`
workflow: ${prefix}-c
tasks:
  work: { command: '${leaf}' }
`);
  await t.apply(`
workflow: ${prefix}-b
tasks:
  call-c: { call: ${prefix}-c }
  tail: { command: 'echo tail', upstream: [call-c] }
`);
  await t.apply(`
workflow: ${prefix}-a
tasks:
  prep: { command: 'echo prep' }
  call-b: { call: ${prefix}-b, upstream: [prep] }
  after: { command: 'echo after', upstream: [call-b] }
`);
}

describe('call: tasks', () => {
  it('a chain of three workflows runs, each call linked both ways and taking its child run state', async () => {
    await chain('ok', 'echo "logical $AX_LOGICAL_TIME"');
    const a = await t.runToEnd('ok-a');
    expect(a.run.state).toBe('SUCCESS');
    expect(a.instances.map((i) => `${i.taskName}:${i.state}`).sort()).toEqual([
      'after:SUCCESS',
      'call-b:SUCCESS',
      'prep:SUCCESS',
    ]);
    const callB = only(a, 'call-b');
    expect(callB.workerId).toBeUndefined();
    expect(callB.pid).toBeUndefined();
    const b = await childOf(a, callB);
    expect(b.run.workflowName).toBe('ok-b');
    expect(b.run.state).toBe('SUCCESS');
    const c = await childOf(b, only(b, 'call-c'));
    expect(c.run.workflowName).toBe('ok-c');
    expect(c.run.state).toBe('SUCCESS');
    // the grandchild ran with the top run's logical time
    const log = await t.logText(only(c, 'work').id);
    expect(log).toContain(`logical ${new Date(a.run.logicalTime).toISOString()}`);
  });

  it("logical_time: the child's logical time is the parent's moved by it", async () => {
    await t.apply(`
workflow: day-report
tasks:
  work: { command: 'echo "logical $AX_LOGICAL_TIME"' }
`);
    await t.apply(`
workflow: nightly
tasks:
  yesterday: { call: day-report, logical_time: -1d }
`);
    const at = Date.parse('2026-11-30T02:00:00Z');
    const run = await t.engine.runWorkflow('nightly', { logicalTime: at, actor: 'test' });
    const parent = await t.waitRun(run.id);
    expect(parent.run.state).toBe('SUCCESS');
    const child = await t.engine.getRun(only(parent, 'yesterday').childRunId as number);
    expect(child.run.logicalTime).toBe(at - 86_400_000);
    expect(await t.logText(only(child, 'work').id)).toContain('logical 2026-11-29T02:00:00.000Z');
  });

  it('a failing child fails its caller ("child run #N failed") up the chain, and the downstream does not run', async () => {
    await chain('bad', 'echo broken; exit 3');
    const a = await t.runToEnd('bad-a');
    expect(a.run.state).toBe('FAILED');
    const callB = only(a, 'call-b');
    expect(callB.state).toBe('FAILED');
    expect(callB.reason).toBe(`child run #${callB.childRunId} failed`);
    expect(only(a, 'after').state).toBe('UPSTREAM_FAILED');
    const b = await childOf(a, callB);
    expect(b.run.state).toBe('FAILED');
    const callC = only(b, 'call-c');
    expect(callC.reason).toBe(`child run #${callC.childRunId} failed`);
    const c = await childOf(b, callC);
    expect(only(c, 'work')).toMatchObject({ state: 'FAILED', exitCode: 3 });
  });

  it('a retry of a call starts a new child run', async () => {
    const marker = path.join(t.dir, 'second-time');
    await t.apply(`
workflow: flaky
tasks:
  work: { command: 'test -f ${marker} || { touch ${marker}; exit 1; }' }
`);
    await t.apply(`
workflow: calls-flaky
tasks:
  call: { call: flaky, retries: 1, retry_backoff: 0s }
`);
    const run = await t.runToEnd('calls-flaky');
    expect(run.run.state).toBe('SUCCESS');
    const [first, second] = byTask(run, 'call');
    expect(first).toMatchObject({ attempt: 1, state: 'FAILED' });
    expect(second).toMatchObject({ attempt: 2, state: 'SUCCESS' });
    expect(second?.childRunId).not.toBe(first?.childRunId);
    expect((await childOf(run, first as InstanceRecord)).run.state).toBe('FAILED');
    expect((await childOf(run, second as InstanceRecord)).run.state).toBe('SUCCESS');
  });

  it('cancelling the top run cancels the chain and stops the grandchild process', async () => {
    const pidFile = path.join(t.dir, 'grandchild.pid');
    await chain('long', `sleep 60 & echo $! > ${pidFile}; wait`);
    const top = await t.engine.runWorkflow('long-a', { actor: 'test' });
    const pid = await waitFor(
      () =>
        fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim()
          ? Number(fs.readFileSync(pidFile, 'utf8'))
          : undefined,
      { timeoutMs: 20_000, message: 'the grandchild task never started' },
    );
    expect(processAlive(pid)).toBe(true);
    await t.engine.cancelRun(top.id, { actor: 'anna@laptop' });
    const a = await t.waitRun(top.id);
    expect(a.run.state).toBe('CANCELLED');
    const callB = only(a, 'call-b');
    expect(callB.state).toBe('CANCELLED');
    const b = await waitFor(async () => {
      const d = await t.engine.getRun(callB.childRunId as number);
      return d.run.state === 'CANCELLED' ? d : undefined;
    });
    const callC = only(b, 'call-c');
    expect(callC.state).toBe('CANCELLED');
    const c = await t.waitRun(callC.childRunId as number);
    expect(c.run.state).toBe('CANCELLED');
    expect(only(c, 'work').state).toBe('CANCELLED');
    await waitFor(() => !processAlive(pid), { timeoutMs: 10_000, message: 'the grandchild process is still alive' });
  });

  it('a call past its timeout ends TIMEOUT and cancels its child', async () => {
    await t.apply(`
workflow: slow
tasks:
  work: { command: 'sleep 60' }
`);
    await t.apply(`
workflow: impatient
tasks:
  call: { call: slow, timeout: 1s }
`);
    const run = await t.runToEnd('impatient');
    expect(run.run.state).toBe('FAILED');
    const call = only(run, 'call');
    expect(call.state).toBe('TIMEOUT');
    expect(call.reason).toBe(`timed out after 1s: child run #${call.childRunId} is cancelled`);
    const child = await t.waitRun(call.childRunId as number);
    expect(child.run.state).toBe('CANCELLED');
  });

  it('a lost link (the child run vanished) fails the call, saying so', async () => {
    const pidFile = path.join(t.dir, 'doomed.pid');
    await t.apply(`
workflow: doomed
tasks:
  work: { command: 'echo $$ > ${pidFile}; sleep 60' }
`);
    await t.apply(`
workflow: calls-doomed
tasks:
  call: { call: doomed }
`);
    const top = await t.engine.runWorkflow('calls-doomed', { actor: 'test' });
    const pid = await waitFor(
      () =>
        fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim()
          ? Number(fs.readFileSync(pidFile, 'utf8'))
          : undefined,
      { timeoutMs: 20_000, message: 'the child task never started' },
    );
    const childRunId = only(await t.engine.getRun(top.id), 'call').childRunId;
    expect(childRunId).toBeDefined();
    // Gone below the engine (the API refuses to remove a workflow with a run in progress): a
    // hand-edited database, a restore from an older backup.
    const db = await openDataDirStore(t.dir);
    try {
      await db.db
        .deleteFrom('task_instance')
        .where('run_id', '=', childRunId as number)
        .execute();
      await db.db
        .deleteFrom('workflow_run')
        .where('id', '=', childRunId as number)
        .execute();
    } finally {
      await db.close();
    }
    const run = await t.waitRun(top.id);
    expect(run.run.state).toBe('FAILED');
    expect(only(run, 'call')).toMatchObject({
      state: 'FAILED',
      reason: `child run #${childRunId} is gone (lost link): re-run this task`,
    });
    // its task, whose instance went with it, is its worker's to stop once it finds it gone
    await waitFor(() => !processAlive(pid), { timeoutMs: 10_000, message: "the lost child's task still runs" });
  });

  it("a call's params reach the child run (checked, defaults filled in) and its tasks; params it refuses fail the call", async () => {
    await t.apply(`
workflow: report
params:
  region: { type: enum, choices: [eu, us], default: eu }
  limit: { type: number, min: 1, max: 100, default: 10 }
tasks:
  work: { command: 'echo "region=$AX_PARAM_REGION limit=$AX_PARAM_LIMIT"' }
`);
    await t.apply(`
workflow: calls-report
tasks:
  us: { call: report, params: { region: us } }
`);
    const run = await t.runToEnd('calls-report');
    expect(run.run.state).toBe('SUCCESS');
    const child = await childOf(run, only(run, 'us'));
    expect(child.run.params).toEqual({ region: 'us', limit: 10 });
    expect(await t.logText(only(child, 'work').id)).toContain('region=us limit=10');

    const applied = await t.engine.apply(
      parseWorkflowFile('workflow: calls-report-badly\ntasks:\n  asia: { call: report, params: { region: asia } }\n', {
        defaultTimezone: 'UTC',
      }).spec,
      'test',
    );
    expect(applied.warnings).toEqual([
      expect.stringMatching(
        /^tasks\.asia\.params: "report" refuses them \(params\.region: .*\): "asia" fails when it runs until they are fixed$/,
      ),
    ]);
    const bad = await t.runToEnd('calls-report-badly');
    expect(bad.run.state).toBe('FAILED');
    const asia = only(bad, 'asia');
    expect(asia.childRunId).toBeUndefined();
    expect(asia.reason).toMatch(/^calls "report" with params it refuses: params\.region: .*: fix the call's params$/);
  });

  it('a call of a workflow that does not exist is a warning at apply and fails the task saying so', async () => {
    const outcome = await t.engine.apply(
      {
        name: 'calls-nothing',
        routing: 'round_robin',
        tasks: [
          {
            name: 'call',
            command: '',
            call: { workflow: 'nowhere' },
            env: {},
            retries: 2,
            retryBackoff: { kind: 'fixed', delayMs: 0, maxDelayMs: 0 },
            labels: [],
            upstream: [],
          },
        ],
      },
      'test',
    );
    expect(outcome.warnings).toEqual([
      'tasks.call.call: no workflow "nowhere" yet: "call" fails when it runs until that workflow is applied',
    ]);
    const run = await t.runToEnd('calls-nothing');
    expect(run.run.state).toBe('FAILED');
    // for good: a retry would find it missing all the same
    expect(run.instances).toHaveLength(1);
    expect(only(run, 'call')).toMatchObject({
      state: 'FAILED',
      reason: 'calls workflow "nowhere", which does not exist: apply it, then re-run this task',
    });
  });

  it('refuses a cycle of calls at apply, spelled out, and keeps what was there', async () => {
    await t.apply('workflow: ping\ntasks:\n  to-pong: { call: pong }\n');
    await t.apply('workflow: pong\ntasks:\n  work: { command: echo }\n');
    await expect(t.apply('workflow: pong\ntasks:\n  to-ping: { call: ping }\n')).rejects.toMatchObject({
      problems: [
        {
          path: 'tasks.to-ping.call',
          message:
            'cycle of calls: pong.to-ping → ping.to-pong → pong: a workflow cannot call itself, directly or through others; remove one of these calls',
        },
      ],
    });
    expect((await t.engine.exportWorkflow('pong')).tasks.map((x) => x.name)).toEqual(['work']);
    await expect(t.apply('workflow: self\ntasks:\n  again: { call: self }\n')).rejects.toThrow(
      'cycle of calls: self.again → self',
    );
  });
});

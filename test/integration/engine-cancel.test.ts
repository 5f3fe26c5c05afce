// Cancelling through the API (the UI's run view): a running task's process group is really
// stopped, the run ends CANCELLED with who did it in the audit log, nothing is retried, and a
// cancelled run never blocks the next fire of an overlap-skip workflow.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOPPED_LINE } from '../../engine/core/execution/task-execution.ts';
import { processAlive } from '../helpers/processes.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { holdsFor, waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t?.close();
});

async function readPid(file: string): Promise<number> {
  return waitFor(
    () =>
      fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() ? Number(fs.readFileSync(file, 'utf8')) : undefined,
    { timeoutMs: 15_000, message: `no pid in ${file}` },
  );
}

describe('cancelRun', () => {
  it('stops a running task (its whole process group), ends the run CANCELLED and never starts the downstream', async () => {
    const pidFile = path.join(t.dir, 'child.pid');
    await t.apply(`
workflow: long
tasks:
  sleepy:
    command: sleep 60 & echo $! > ${pidFile}; wait
    retries: 2
  after:
    command: echo never
    upstream: [sleepy]
`);
    const run = await t.engine.runWorkflow('long', { actor: 'test' });
    const child = await readPid(pidFile);
    expect(processAlive(child)).toBe(true);
    const detail = await t.engine.cancelRun(run.id, { actor: 'anna@laptop' });
    expect(detail.run.state).toBe('CANCELLED');
    expect(detail.run.reason).toBe('cancelled by anna@laptop');
    await waitFor(() => !processAlive(child), {
      timeoutMs: 5_000,
      message: "the cancelled task's child process is still alive",
    });
    const after = await waitFor(async () => {
      const d = await t.engine.getRun(run.id);
      return d.instances.every((i) => i.finishedAt !== undefined) ? d : undefined;
    });
    expect(after.instances.map((i) => `${i.taskName}:${i.state}`)).toEqual(['sleepy:CANCELLED']);
    const audit = await t.engine.listAudit(5);
    expect(audit).toContainEqual(
      expect.objectContaining({ actor: 'anna@laptop', action: 'run.cancel', object: `run:${run.id}` }),
    );
    // nothing is retried or started later: the engine ticks every 200 ms here, so in 1 s a retry
    // or a later start would have been made
    await holdsFor(async () => (await t.engine.getRun(run.id)).instances.length === 1, 1_000, {
      message: 'one instance, no retry',
    });
    await expect(t.engine.cancelRun(run.id, { actor: 'test' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('cancelling one task fails its downstream without a retry; the run ends FAILED', async () => {
    await t.apply(`
workflow: one-task
tasks:
  a:
    command: sleep 60
    retries: 3
  b:
    command: echo b
    upstream: [a]
  c:
    command: echo c
`);
    const run = await t.engine.runWorkflow('one-task', { actor: 'test' });
    await waitFor(
      async () => (await t.engine.getRun(run.id)).instances.find((i) => i.taskName === 'a' && i.state === 'RUNNING'),
      { timeoutMs: 10_000 },
    );
    await t.engine.cancelRun(run.id, { task: 'a', actor: 'test' });
    const done = await t.waitRun(run.id);
    expect(done.run.state).toBe('FAILED');
    const states = Object.fromEntries(done.instances.map((i) => [i.taskName, i.state]));
    expect(states).toEqual({ a: 'CANCELLED', b: 'UPSTREAM_FAILED', c: 'SUCCESS' });
    expect(done.instances.filter((i) => i.taskName === 'a')).toHaveLength(1);
    await expect(t.engine.cancelRun(run.id, { task: 'nope', actor: 'test' })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('a cancelled run does not block the next fire of an overlap-skip workflow', async () => {
    await t.apply(`
workflow: every-second
schedule:
  cron: "* * * * * *"
  timezone: UTC
  overlap: skip
tasks:
  stuck:
    command: sleep 60
`);
    const first = await waitFor(
      async () => (await t.engine.listRuns({ workflow: 'every-second', states: ['RUNNING'] }))[0],
      { timeoutMs: 10_000 },
    );
    await t.engine.cancelRun(first.id, { actor: 'test' });
    const next = await waitFor(
      async () =>
        (await t.engine.listRuns({ workflow: 'every-second', states: ['RUNNING'] })).find((r) => r.id > first.id),
      {
        timeoutMs: 10_000,
        message: 'no run started after the cancel',
      },
    );
    await t.engine.setEnabled('every-second', false, 'test');
    await t.engine.cancelRun(next.id, { actor: 'test' });
    expect(next.logicalTime).toBeGreaterThan(first.logicalTime);
  });
});

// A cancel another process took (ax cancel against a team) reaches a worker as an event; a task
// heartbeat may find the instance no longer RUNNING first. CI saw that beat take the cancel for a
// take-over ("no longer owns the instance"): the process was killed, but the log never said the
// group was gone, and `ax cancel` waited out its whole bound for that line.
describe('a cancel whose event has not come yet, found by a task heartbeat', () => {
  it('is stopped as a cancel: the log says cancelled, then that no process of its group is left', async () => {
    // worker heartbeats far apart: the task heartbeat (1 s) is what finds the cancel
    const e = await startTestEngine({ config: { workerHeartbeatMs: 60_000 } });
    try {
      await e.apply(`
workflow: elsewhere
tasks:
  hold:
    command: sleep 60
`);
      const run = await e.engine.runWorkflow('elsewhere', { actor: 'test' });
      const inst = await waitFor(
        async () => (await e.engine.getRun(run.id)).instances.find((i) => i.state === 'RUNNING' && i.pid !== undefined),
        { timeoutMs: 15_000, message: 'hold running with its pid' },
      );
      // Written to the store as another process would, with no event to this engine.
      expect((await e.engine.store.cancelRun(run.id, 'cancelled by someone else', [], Date.now())).done).toBe(true);
      await waitFor(async () => (await e.logText(inst.id)).includes(STOPPED_LINE), {
        timeoutMs: 15_000,
        message: `"${STOPPED_LINE}" in the log`,
      });
      const log = await e.logText(inst.id);
      expect(log.some((l) => l.startsWith('cancelled: SIGTERM to the process group'))).toBe(true);
      expect(processAlive(inst.pid as number)).toBe(false);
      expect(e.alerts.filter((a) => a.includes('no longer owns'))).toEqual([]);
      expect((await e.engine.getRun(run.id)).instances.map((i) => i.state)).toEqual(['CANCELLED']);
    } finally {
      await e.close();
    }
  });
});

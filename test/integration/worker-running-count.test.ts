// "Running on a worker" has one source, the store's RUNNING instances per worker
// the worker listing (`ax workers`, the Workers page), the drain's answer (`ax drain`), the
// worker's own drain notice and the dashboard (the desktop tray reads it) agree while tasks really
// run. The heartbeat here is long, so its copy of the load is the one taken at start: 0.
// And the dashboard's failures are tasks, not attempts: a task that failed and then succeeded on
// a retry or a re-run is recovered, not failed.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Two tasks that run until the file `go` exists in dir. */
function gatedWorkflow(dir: string): string {
  const gate = `while [ ! -e '${path.join(dir, 'go')}' ]; do sleep 0.05; done`;
  return `
workflow: pair
tasks:
  left:
    command: "${gate}"
  right:
    command: "${gate}"
`;
}

async function bothRunning(e: TestEngine, runId: number): Promise<void> {
  await waitFor(
    async () => (await e.engine.getRun(runId)).instances.filter((i) => i.state === 'RUNNING').length === 2,
    {
      timeoutMs: 15_000,
      message: 'both tasks RUNNING',
    },
  );
}

describe('the count of tasks running on a worker', () => {
  it('listWorkers, the dashboard and the drain answer all count the RUNNING tasks, whatever the heartbeat last said', async () => {
    t = await startTestEngine({ config: { workerHeartbeatMs: 600_000 } });
    await t.apply(gatedWorkflow(t.dir));
    const run = await t.engine.runWorkflow('pair', { actor: 'test' });
    await bothRunning(t, run.id);
    const id = t.engine.worker?.id as string;

    expect(await t.engine.listWorkers()).toMatchObject([{ id, running: 2, maxConcurrency: 8 }]);
    expect((await t.engine.listWorkers({ schedulers: true })).map((w) => w.running)).toEqual([2]);
    expect((await t.engine.dashboard()).runningTasks).toBe(2);
    expect(await t.engine.drainWorker(id, 'test')).toEqual({ workerId: id, running: 2 });
    expect(await t.engine.listWorkers()).toMatchObject([{ id, status: 'draining', running: 2 }]);

    fs.writeFileSync(path.join(t.dir, 'go'), '');
    await t.waitRun(run.id);
    expect(await t.engine.listWorkers()).toMatchObject([{ id, running: 0 }]);
    expect((await t.engine.dashboard()).runningTasks).toBe(0);
  });

  it("the worker's own drain notice counts the same tasks", async () => {
    t = await startTestEngine();
    await t.apply(gatedWorkflow(t.dir));
    const run = await t.engine.runWorkflow('pair', { actor: 'test' });
    await bothRunning(t, run.id);
    const id = t.engine.worker?.id as string;
    await t.engine.drainWorker(id, 'test');
    const notice = await waitFor(() => t?.alerts.find((a) => a.includes('drain requested')), {
      message: 'the drain notice',
    });
    expect(notice).toBe(`worker ${id}: drain requested: taking nothing new, finishing 2 running task(s)`);
    fs.writeFileSync(path.join(t.dir, 'go'), '');
    await t.waitRun(run.id);
  });
});

describe("the dashboard's failures today", () => {
  it('lists a task once by its latest failed attempt, and a task that succeeded on a retry or a re-run as recovered', async () => {
    t = await startTestEngine();
    const flag = path.join(t.dir, 'fixed');
    await t.apply(`
workflow: mixed
tasks:
  flaky:
    command: '[ "$AX_ATTEMPT" -ge 2 ] || exit 3'
    retries: 1
    retry_backoff: 10ms
  broken:
    command: exit 4
    retries: 1
    retry_backoff: 10ms
  fixable:
    command: "[ -e '${flag}' ] || exit 5"
`);
    const run = await t.runToEnd('mixed');
    expect(run.run.state).toBe('FAILED');
    let d = await t.engine.dashboard();
    expect(d.today.failed).toBe(1);
    // broken failed twice: one task, its latest attempt
    expect(d.failuresToday.map((f) => [f.taskName, f.attempt]).sort()).toEqual([
      ['broken', 2],
      ['fixable', 1],
    ]);
    expect(d.recoveredToday).toEqual([
      expect.objectContaining({
        taskName: 'flaky',
        attempt: 1,
        state: 'FAILED',
        recoveredBy: expect.objectContaining({ attempt: 2 }),
      }),
    ]);

    fs.writeFileSync(flag, '');
    await t.engine.rerunTask(run.run.id, 'fixable', 'test');
    await t.waitRun(run.run.id);
    d = await t.engine.dashboard();
    expect(d.failuresToday.map((f) => f.taskName)).toEqual(['broken']);
    expect(d.recoveredToday.map((f) => f.taskName).sort()).toEqual(['fixable', 'flaky']);
    const fixed = d.recoveredToday.find((f) => f.taskName === 'fixable');
    expect((await t.engine.getInstance(fixed?.recoveredBy?.instanceId as number)).state).toBe('SUCCESS');
  });
});

// rerunFailed through a solo engine with real processes: refused while the run is active (with
// what to do), then, once it has ended FAILED, its failed task and that task's downstream run
// again in the same run while what succeeded stays; refused again once nothing failed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;
let scratch: string;

beforeAll(async () => {
  scratch = tempDir('ax-rerun-failed-');
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

// POSIX shell commands.
describe.skipIf(process.platform === 'win32')('engine: rerunFailed', () => {
  it('refused while the run is active; then re-runs the failed task and its downstream only', async () => {
    const gate = path.join(scratch, 'gate');
    const fixed = path.join(scratch, 'fixed');
    await t.apply(`
workflow: half-broken
tasks:
  slow: { command: 'while [ ! -f "${gate}" ]; do sleep 0.05; done', timeout: 60s }
  flaky: { command: 'test -f "${fixed}"' }
  after: { command: 'echo after', upstream: [flaky] }
  fine: { command: 'echo fine', upstream: [slow] }
`);
    const run = await t.engine.runWorkflow('half-broken', { actor: 'test' });
    await waitFor(
      async () =>
        (await t.engine.getRun(run.id)).instances.some((i) => i.taskName === 'after' && i.state === 'UPSTREAM_FAILED'),
      { timeoutMs: 30_000, message: 'flaky did not fail' },
    );
    await expect(t.engine.rerunFailed(run.id, 'test')).rejects.toThrow(
      `run #${run.id} is still RUNNING: its failed tasks can be re-run once it has ended (wait for it, or "ax cancel ${run.id}")`,
    );
    fs.writeFileSync(gate, '');
    expect((await t.waitRun(run.id)).run.state).toBe('FAILED');

    fs.writeFileSync(fixed, '');
    const again = await t.engine.rerunFailed(run.id, 'test');
    expect(again.run).toMatchObject({ state: 'RUNNING', reason: 're-run of the failed tasks: flaky, after' });
    const done = await t.waitRun(run.id);
    expect(done.run.state).toBe('SUCCESS');
    expect(done.instances.map((i) => `${i.taskName}#${i.attempt}:${i.state}`).sort()).toEqual([
      'after#1:SUCCESS',
      'fine#1:SUCCESS',
      'flaky#1:FAILED',
      'flaky#2:SUCCESS',
      'slow#1:SUCCESS',
    ]);
    await expect(t.engine.rerunFailed(run.id, 'test')).rejects.toThrow(
      `run #${run.id} has no failed task: nothing to re-run`,
    );
    await expect(t.engine.rerunFailed(run.id + 1000, 'test')).rejects.toThrow(`no run #${run.id + 1000}`);
  });
});

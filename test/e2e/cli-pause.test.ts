// ax pause / ax resume through the real `ax`: straight on a data dir (the pause is stored, so
// the next engine sees it), where `ax ls` and `ax run` say scheduling is paused, `ax trigger` is
// refused (exit 4) and a manual run still runs; and with `ax serve` running, whose every-second
// cron makes no run while paused and fires again once resumed.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SchedulingChange } from '../../engine/api/engine-api.ts';
import type { AuditEntry, RunRecord } from '../../engine/api/types.ts';
import { ax, axJson, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { type ServeProcess, startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-cli-pause-');

const WORKFLOWS = `workflow: nightly
schedule: { cron: "0 2 * * *", timezone: UTC }
tasks:
  a: { command: "echo nightly" }
`;
const LISTENER = 'workflow: listener\non_event: orders-ready\ntasks:\n  a: { command: "true" }\n';

describe('ax pause / ax resume', () => {
  it('straight on a data dir: stored, said by ls and run, events refused, manual runs go on, audited', async () => {
    const opts = { dataDir: path.join(box.root, 'direct'), cwd: box.root };
    writeFile(box.root, 'nightly.yaml', WORKFLOWS);
    writeFile(box.root, 'listener.yaml', LISTENER);
    expect((await ax(['apply', 'nightly.yaml'], opts)).code).toBe(0);
    expect((await ax(['apply', 'listener.yaml'], opts)).code).toBe(0);

    const paused = await ax(['pause'], opts);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toBe(
      'scheduling paused: no cron fire and no event starts a run until "ax resume"; "ax run" still does, and running tasks go on\n',
    );
    const again = await axJson<SchedulingChange>(['pause'], opts);
    expect(again).toMatchObject({ changed: false, paused: { by: expect.stringMatching(/@/) } });
    const since = again.paused?.since as number;

    const ls = await ax(['ls'], opts);
    expect(ls.code).toBe(0);
    expect(ls.stderr).toMatch(
      /^ax: scheduling paused since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d by \S+@\S+: no cron fire or event starts a run; the NEXT FIRE times wait for the resume \("ax resume" to resume\)$/m,
    );

    const trigger = await ax(['trigger', 'orders-ready'], opts);
    expect(trigger.code).toBe(4);
    expect(trigger.stderr).toMatch(
      /^ax: scheduling is paused \(since .*\): event "orders-ready" started nothing; resume with "ax resume", or start a workflow by hand with "ax run WORKFLOW"$/m,
    );

    const run = await ax(['run', 'nightly', '--wait'], opts);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('nightly');
    expect(run.stderr).toMatch(
      /^ax: scheduling paused since .*: this manual run starts all the same \("ax resume" to resume\)$/m,
    );

    const resumed = await ax(['resume'], opts);
    expect(resumed.stdout).toBe(
      "scheduling resumed: fires missed while paused follow each workflow's misfire policy\n",
    );
    expect((await ax(['resume'], opts)).stdout).toBe('scheduling was not paused\n');
    expect((await ax(['ls'], opts)).stderr).not.toContain('scheduling paused');
    expect((await ax(['trigger', 'orders-ready'], opts)).code).toBe(0);

    const audit = await axJson<AuditEntry[]>(['audit'], opts);
    const scheduling = audit.filter((a) => a.action.startsWith('scheduling.'));
    expect(scheduling.map((a) => a.action)).toEqual(['scheduling.resume', 'scheduling.pause']);
    expect(scheduling[1]?.at).toBe(since);
  });

  it('with ax serve running: its every-second cron makes no run while paused, and fires again once resumed', async () => {
    const opts = { dataDir: path.join(box.root, 'served'), cwd: box.root };
    writeFile(
      box.root,
      'tick.yaml',
      'workflow: tick\nschedule: { cron: "* * * * * *", timezone: UTC, misfire: skip, overlap: parallel }\ntasks:\n  a: { command: "true" }\n',
    );
    expect((await ax(['apply', 'tick.yaml'], opts)).code).toBe(0);
    const serve: ServeProcess = await startServe(opts);
    const cronRuns = async () =>
      (await axJson<RunRecord[]>(['runs', 'tick', '-n', '1000'], opts)).filter((r) => r.trigger === 'cron');
    await waitFor(async () => (await cronRuns()).length > 0, {
      timeoutMs: 30_000,
      message: 'a cron run before the pause',
    });

    const { paused } = await axJson<SchedulingChange>(['pause'], opts);
    const since = paused?.since as number;
    // Three of the cron's seconds go by while paused (a slower scheduler only makes this weaker, never wrong).
    await waitFor(() => Date.now() >= since + 3_000, { timeoutMs: 10_000 });
    const resumedAt = Date.now();
    expect((await ax(['resume'], opts)).code).toBe(0);
    const during = (await cronRuns()).filter((r) => r.createdAt > since && r.createdAt < resumedAt);
    expect(during).toEqual([]);
    await waitFor(async () => (await cronRuns()).some((r) => r.createdAt > resumedAt), {
      timeoutMs: 30_000,
      message: 'a cron run after the resume',
    });
    serve.kill('SIGTERM');
    await serve.result(40_000);
  });
});

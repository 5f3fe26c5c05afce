// `ax backfill` with the real command and a real `ax serve`: a dry run lists the logical times
// (and which exist); over 1,000 runs is refused without --force, saying how many; a workflow
// without a schedule needs --every; `ax backfills` and `ax backfill show|cancel` show and stop it;
// and a backfill survives `ax serve` killed with SIGKILL midway: the next engine goes on where
// it stopped, with exactly one run per logical time.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BackfillPlan, BackfillRecord } from '../../engine/api/backfill.ts';
import { ax, axJson, cliSandbox, perTestDataDir } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-cli-backfill-');
// each test its own ROOT under the sandbox: no pid file or data dir left by the one before
const t = perTestDataDir(box);

const opts = () => t.opts();

// POSIX shell commands (sh -c, exit, echo): skipped on Windows only, where AX runs no tasks.
describe.skipIf(process.platform === 'win32')('ax backfill', () => {
  it('dry run, refusals that say how, --every for an unscheduled workflow, list, show and cancel', async () => {
    writeFile(
      t.root,
      'wf.yaml',
      `workflow: daily\nschedule: { cron: "0 2 * * *", timezone: Europe/Berlin }\ntasks:\n  work: { command: "sleep 30" }\n`,
    );
    writeFile(
      t.root,
      'free.yaml',
      `workflow: free\nparams:\n  region: { type: enum, choices: [eu, us] }\ntasks:\n  work: { command: "sleep 30" }\n`,
    );
    writeFile(
      t.root,
      'minutely.yaml',
      `workflow: minutely\nschedule: { cron: "* * * * *", timezone: UTC }\ntasks:\n  work: { command: "true" }\n`,
    );
    for (const f of ['wf.yaml', 'free.yaml', 'minutely.yaml']) expect((await ax(['apply', f], opts())).code).toBe(0);

    // a date is the whole day in the schedule's zone: --to 2026-11-03 includes the 3rd's fire
    const dry = await ax(['backfill', 'daily', '--from', '2026-11-01', '--to', '2026-11-03', '--dry-run'], opts());
    expect(dry.code).toBe(0);
    expect(dry.stdout.trimEnd().split('\n')).toEqual([
      'LOGICAL TIME (Europe/Berlin)    WHAT',
      '2026-11-01 02:00 Europe/Berlin  will run',
      '2026-11-02 02:00 Europe/Berlin  will run',
      '2026-11-03 02:00 Europe/Berlin  will run',
      'dry run: 3 run(s) of daily; nothing created',
    ]);

    const many = await ax(['backfill', 'minutely', '--from', '2026-11-01', '--to', '2026-11-01'], opts());
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/would create 1440 runs, over the limit of 1000: .*--force/);
    const forced = await axJson<BackfillPlan>(
      ['backfill', 'minutely', '--from', '2026-11-01', '--to', '2026-11-01', '--force', '--dry-run'],
      opts(),
    );
    expect(forced.total).toBe(1440);

    const noStep = await ax(['backfill', 'free', '--from', '2026-11-01', '--to', '2026-11-03'], opts());
    expect(noStep.code).toBe(2);
    expect(noStep.stderr).toMatch(/has no schedule, so a backfill needs a step: give --every/);
    const badDate = await ax(['backfill', 'daily', '--from', '2026-11-31', '--to', '2026-12-01'], opts());
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toMatch(/--from: "2026-11-31" is not a date or time: write 2026-11-01/);

    // with an engine: the runs start, one at a time, and the backfill is cancelled as a whole
    const serve = await startServe(opts());
    const made = await axJson<BackfillPlan>(
      ['backfill', 'free', '--from', '2026-11-01', '--to', '2026-11-05', '--every', '1d', '-p', 'region=eu'],
      opts(),
    );
    const id = made.backfill?.id as number;
    expect(made.total).toBe(5);
    expect(made.backfill?.params).toEqual({ region: 'eu' });
    const store = await t.openStore();
    await waitFor(async () => (await store.getBackfill(id))?.running === 1, {
      timeoutMs: 20_000,
      message: 'the first run of the backfill to start',
    });
    const list = await ax(['backfills'], opts());
    expect(list.stdout).toMatch(new RegExp(`^${id} +free +▶ RUNNING +0/5 done, 0 failed, 1 running `, 'm'));
    const shown = await ax(['backfill', 'show', String(id)], opts());
    expect(shown.stdout).toMatch(/^backfill #\d+ of free: RUNNING, 0\/5 done, 0 failed, 1 running/);
    expect(shown.stdout).toMatch(/2026-11-02 00:00 UTC +- +not started/);
    const cancelled = await ax(['backfill', 'cancel', String(id)], opts());
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(/: CANCELLED, 1\/5 done, 0 failed, 0 running/);
    const json = await axJson<BackfillRecord[]>(['backfills', 'free'], opts());
    expect(json.map((b) => [b.id, b.state])).toEqual([[id, 'CANCELLED']]);
    serve.kill('SIGTERM');
    await serve.exited;
  }, 180_000);

  it('survives ax serve killed with SIGKILL midway: resumes, exactly one run per logical time', async () => {
    const live = path.join(t.root, 'live');
    fs.mkdirSync(live);
    // an interrupted attempt is retried by the next engine, so every run can succeed
    writeFile(
      t.root,
      'hourly.yaml',
      `workflow: hourly
schedule: { cron: "0 * * * *", timezone: UTC, overlap: parallel }
tasks:
  work:
    command: sleep 0.4
    retries: 1
    retry_backoff: 200ms
`,
    );
    expect((await ax(['apply', 'hourly.yaml'], opts())).code).toBe(0);
    const first = await startServe(opts());
    // 30 hourly fires
    const plan = await axJson<BackfillPlan>(
      ['backfill', 'hourly', '--from', '2026-11-01T00:00', '--to', '2026-11-02T05:59', '--max-parallel', '3'],
      opts(),
    );
    expect(plan.total).toBe(30);
    const id = plan.backfill?.id as number;
    const store = await t.openStore();
    await waitFor(async () => ((await store.getBackfill(id))?.done ?? 0) >= 6, {
      timeoutMs: 30_000,
      message: 'six runs of the backfill to end',
    });
    first.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const before = await store.backfillRuns(id);
    expect(before.length).toBeLessThan(30);
    const killedAt = Date.now();

    const second = await startServe(opts());
    const done = await waitFor(
      async () => {
        const b = await store.getBackfill(id);
        return b && b.state !== 'RUNNING' ? b : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'the backfill did not end after the restart' },
    );
    expect(done).toMatchObject({ state: 'SUCCESS', total: 30, done: 30, failed: 0, running: 0 });
    const runs = await store.listRuns({ workflowName: 'hourly', limit: 1000 });
    expect(runs).toHaveLength(30);
    expect(new Set(runs.map((r) => r.logicalTime)).size).toBe(30);
    expect(runs.every((r) => r.backfillId === id && r.trigger === 'backfill' && r.state === 'SUCCESS')).toBe(true);
    expect(runs.map((r) => r.logicalTime).sort((a, b) => a - b)).toEqual(plan.logicalTimes);
    // the next engine made the rest
    expect(runs.filter((r) => r.createdAt >= killedAt).length).toBe(30 - before.length);
    second.kill('SIGTERM');
    await second.exited;
  }, 180_000);
});

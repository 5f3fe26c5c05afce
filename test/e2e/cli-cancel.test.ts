// `ax cancel RUN [TASK]` in solo mode, real processes: straight on a data dir while an `ax run`
// process runs the work (and after that process died), and through one `ax serve`. A stopped
// task's process group is gone when the command returns, the run ends CANCELLED with who did it,
// nothing is retried, and an overlap-skip schedule fires again right after.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { AuditEntry, RunRecord } from '../../engine/api/types.ts';
import { ax, axJson, axStart, cliSandbox, killAllAx } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { groupMembers, killWithLaunchers, readPidFile } from '../helpers/processes.ts';
import { type ServeProcess, startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

// one ROOT for the file: the served describe keeps its `ax serve` between tests, so each describe
// kills its own `ax` processes after a test
const box = cliSandbox('ax-cli-cancel-', { keepBetweenTests: true });

/** A workflow of two parallel tasks that record their process group and sleep; retries would show. */
function sleepers(dir: string, name: string): string {
  return writeFile(
    dir,
    `${name}.yaml`,
    `workflow: ${name}
tasks:
  first:
    command: 'echo $$ > "${dir}/${name}-first.pid"; sleep 60'
    retries: 2
  second:
    command: 'echo $$ > "${dir}/${name}-second.pid"; sleep 60'
    retries: 2
`,
  );
}

describe('ax cancel without a server', () => {
  let dataDir: string;
  const opts = () => ({ dataDir, cwd: box.root });

  beforeAll(() => {
    dataDir = path.join(box.root, 'direct');
  });
  afterEach(async () => {
    await killAllAx();
  });

  it('stops the task an `ax run` process runs and cancels the waiting one; the run ends CANCELLED, nothing retried', async () => {
    const file = sleepers(box.root, 'pair');
    // One slot: "first" or "second" runs, the other waits.
    const run = axStart(['run', file, '--wait', '--concurrency', '1'], opts());
    await run.waitForLine(/RUNNING/, 30_000, 'stdout');
    const runId = Number(/^run #(\d+)/m.exec(run.stdout)?.[1]);
    const pidFile = [`${box.root}/pair-first.pid`, `${box.root}/pair-second.pid`];
    const pgid = await waitFor(
      () => pidFile.filter((f) => fs.existsSync(f)).map((f) => Number(fs.readFileSync(f, 'utf8')))[0],
      { timeoutMs: 15_000 },
    );
    expect(groupMembers(pgid).length).toBeGreaterThan(0);

    const r = await ax(['cancel', String(runId)], opts());
    expect(r.stderr).not.toMatch(/has not said/);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`cancelled run #${runId}: 1 task stopped, 1 waiting cancelled`);
    // "stopped" means stopped: the group is gone when the command returns
    expect(groupMembers(pgid)).toEqual([]);

    const done = await run.result(30_000);
    expect(done.code).toBe(1);
    expect(done.stdout).toMatch(new RegExp(`^run #${runId} CANCELLED .*— cancelled by `, 'm'));
    const detail = await axJson<RunDetail>(['runs', String(runId)], opts());
    expect(detail.run.state).toBe('CANCELLED');
    expect(detail.instances.map((i) => i.state)).toEqual(['CANCELLED', 'CANCELLED']);
    const audit = await axJson<AuditEntry[]>(['audit'], opts());
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'run.cancel', object: `run:${runId}`, actor: expect.stringMatching(/@/) }),
    );

    // a finished run is a conflict (4) that says so; an unknown one is not found (3)
    const again = await ax(['cancel', String(runId)], opts());
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(new RegExp(`run #${runId} is CANCELLED`));
    const missing = await ax(['cancel', '999'], opts());
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no run #999/);
  });

  it('stops, here, a task whose `ax run` process died (kill -9), so nothing of it runs on', async () => {
    const file = sleepers(box.root, 'orphan');
    const run = axStart(['run', file, '--wait'], opts());
    const pids = await Promise.all(['first', 'second'].map((t) => readPidFile(`${box.root}/orphan-${t}.pid`, 30_000)));
    const runId = Number(/^run #(\d+)/m.exec(run.stdout)?.[1]);
    // What ax cancel finds the groups by: the pids the engine recorded (a task may write its pid
    // file before the engine has stored it).
    await waitFor(
      async () => {
        const recorded = (await axJson<RunDetail>(['runs', String(runId)], opts())).instances.map((i) => i.pid);
        return pids.every((p) => recorded.includes(p));
      },
      { timeoutMs: 15_000, message: 'the engine did not record both pids' },
    );
    // Everything at once, launchers included (otherwise they would stop the tasks themselves):
    // the tasks live on in their own groups, re-parented
    await killWithLaunchers(run);
    expect(pids.every((p) => groupMembers(p).length > 0)).toBe(true);

    const r = await ax(['cancel', String(runId)], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`cancelled run #${runId}: 2 tasks stopped (their engine was gone: stopped here)`);
    expect(pids.flatMap((p) => groupMembers(p))).toEqual([]);
    expect((await axJson<RunDetail>(['runs', String(runId)], opts())).run.state).toBe('CANCELLED');
  });
});

describe('ax cancel through ax serve', () => {
  let dataDir: string;
  let serve: ServeProcess;
  const opts = () => ({ dataDir, cwd: box.root });

  beforeAll(async () => {
    dataDir = path.join(box.root, 'served');
    serve = await startServe({ dataDir, cwd: box.root });
  });
  afterEach(async () => {
    await killAllAx([serve]);
  });
  afterAll(async () => {
    serve?.kill('SIGKILL');
    await serve?.exited;
  });

  it('cancels one task: it stops, its downstream does not run, the run fails', async () => {
    const file = writeFile(
      box.root,
      'one.yaml',
      `workflow: one
tasks:
  slow:
    command: 'echo $$ > "${box.root}/one.pid"; sleep 60'
    retries: 3
  after:
    command: echo never
    upstream: [slow]
`,
    );
    expect((await ax(['apply', file], opts())).code).toBe(0);
    const started = await ax(['run', 'one'], opts());
    const runId = Number(/started run #(\d+)/.exec(started.stdout)?.[1]);
    const pgid = await readPidFile(`${box.root}/one.pid`);
    const r = await ax(['cancel', String(runId), 'slow'], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`cancelled task slow of run #${runId}: 1 task stopped`);
    expect(groupMembers(pgid)).toEqual([]);
    const detail = await waitFor(async () => {
      const d = await axJson<RunDetail>(['runs', String(runId)], opts());
      return d.run.state === 'FAILED' ? d : undefined;
    });
    expect(detail.instances.map((i) => `${i.taskName}:${i.state}`)).toEqual([
      'slow:CANCELLED',
      'after:UPSTREAM_FAILED',
    ]);
  });

  it('Ctrl-C on ax run --wait stops waiting only: the run goes on in ax serve, and the hint stops it', async () => {
    const file = writeFile(
      box.root,
      'long.yaml',
      `workflow: long\ntasks:\n  nap:\n    command: 'echo $$ > "${box.root}/long.pid"; sleep 60'\n`,
    );
    const run = axStart(['run', file, '--wait'], opts());
    const pgid = await readPidFile(`${box.root}/long.pid`, 30_000);
    await run.waitForLine(/nap RUNNING/, 15_000, 'stdout');
    const runId = Number(/^run #(\d+)/m.exec(run.stdout)?.[1]);
    run.kill('SIGINT');
    const r = await run.result(10_000);
    expect(r.code).toBe(130);
    expect(r.stderr.trim()).toBe(
      `ax: stopped waiting; run #${runId} goes on in ax serve — "ax cancel ${runId}" stops it`,
    );
    expect(groupMembers(pgid).length).toBeGreaterThan(0);
    const c = await ax(['cancel', String(runId)], opts());
    expect(c.stdout.trim()).toBe(`cancelled run #${runId}: 1 task stopped`);
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('a cancelled run of an overlap-skip schedule no longer blocks it: the next fire runs', async () => {
    const file = writeFile(
      box.root,
      'tick.yaml',
      `workflow: tick
schedule:
  cron: "* * * * * *"
  timezone: UTC
  overlap: skip
tasks:
  stuck:
    command: 'echo $$ >> "${box.root}/tick.pids"; sleep 60'
`,
    );
    expect((await ax(['apply', file], opts())).code).toBe(0);
    const running = async () =>
      (await axJson<RunRecord[]>(['runs', 'tick'], opts())).filter((x) => x.state === 'RUNNING');
    const first = await waitFor(async () => (await running())[0], {
      timeoutMs: 15_000,
      message: 'the schedule did not fire',
    });
    // the overlap policy holds while it runs: the fires meanwhile are skipped
    await waitFor(
      async () => (await axJson<RunRecord[]>(['runs', 'tick'], opts())).some((x) => x.state === 'SKIPPED'),
      { timeoutMs: 10_000 },
    );
    const pgid = Number(fs.readFileSync(`${box.root}/tick.pids`, 'utf8').split('\n')[0]);

    const r = await ax(['cancel', String(first.id)], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`cancelled run #${first.id}: 1 task stopped`);
    expect(groupMembers(pgid)).toEqual([]);
    const next = await waitFor(async () => (await running()).find((x) => x.id > first.id), {
      timeoutMs: 10_000,
      message: 'no run after the cancel',
    });
    expect(next.logicalTime).toBeGreaterThan(first.logicalTime);
    expect((await ax(['disable', 'tick'], opts())).code).toBe(0);
    expect((await ax(['cancel', String(next.id)], opts())).code).toBe(0);
  });
});

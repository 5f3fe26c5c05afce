// Ctrl-C on `ax run FILE --wait` with no server (the run is this process's): the first SIGINT
// says at once what it stops, cancels the run (no retry queued) and the command exits 130 once
// the task's process group is gone; a second SIGINT SIGKILLs a group that ignores SIGTERM. And
// `ax rerun --wait` with no server runs the re-run here. Real processes on a temp data dir.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ax, axStart, cliSandbox } from '../helpers/ax.ts';
import { openDataDirStore, readLockFile, writeFile } from '../helpers/files.ts';
import { groupMembers, readPidFile } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-cli-interrupt-');

async function instancesOf(runId: number) {
  const db = await openDataDirStore(box.dataDir);
  try {
    return { run: await db.getRun(runId), instances: await db.listInstances(runId) };
  } finally {
    await db.close();
  }
}

describe('Ctrl-C on ax run --wait without a server', () => {
  it('once: says so at once, stops the task, records the run CANCELLED with no retry, exits 130', async () => {
    const pidFile = path.join(box.root, 'once.pid');
    const file = writeFile(
      box.root,
      'once.yaml',
      `workflow: once\ntasks:\n  nap:\n    command: 'echo $$ > "${pidFile}"; sleep 60'\n    retries: 2\n`,
    );
    const run = axStart(['run', file, '--wait'], box.opts());
    const pgid = await readPidFile(pidFile, 30_000);
    await run.waitForLine(/nap RUNNING/, 15_000, 'stdout');
    const runId = Number(/^run #(\d+)/m.exec(run.stdout)?.[1]);

    const sentAt = Date.now();
    run.kill('SIGINT');
    const said = await run.waitForLine(/^ax: stopping/, 5_000, 'stderr');
    expect(said.text).toBe(`ax: stopping run #${runId}: 1 task running — Ctrl-C again to stop immediately`);
    expect(said.at - sentAt).toBeLessThan(2_000);
    const r = await run.result(30_000);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toMatch(new RegExp(`^run #${runId} CANCELLED`, 'm'));
    // no process outlives the command
    expect(groupMembers(pgid)).toEqual([]);
    expect(readLockFile(box.dataDir)).toBeUndefined();
    const { run: stored, instances } = await instancesOf(runId);
    expect(stored?.state).toBe('CANCELLED');
    expect(instances.map((i) => `${i.taskName}:${i.attempt}:${i.state}`)).toEqual(['nap:1:CANCELLED']);
  });

  it('twice: the second SIGKILLs a task that ignores SIGTERM, without waiting out the grace', async () => {
    const pidFile = path.join(box.root, 'stubborn.pid');
    const file = writeFile(
      box.root,
      'stubborn.yaml',
      `workflow: stubborn\ntasks:\n  hard:\n    command: 'trap "" TERM; echo $$ > "${pidFile}"; sleep 60'\n    retries: 1\n`,
    );
    const run = axStart(['run', file, '--wait'], box.opts());
    const pgid = await readPidFile(pidFile, 30_000);
    await run.waitForLine(/hard RUNNING/, 15_000, 'stdout');
    const runId = Number(/^run #(\d+)/m.exec(run.stdout)?.[1]);

    run.kill('SIGINT');
    await run.waitForLine(/^ax: stopping run/, 5_000, 'stderr');
    // SIGTERM is ignored: the group lives on through the grace (10 s)
    expect(groupMembers(pgid).length).toBeGreaterThan(0);
    const secondAt = Date.now();
    run.kill('SIGINT');
    const r = await run.result(30_000);
    expect(Date.now() - secondAt).toBeLessThan(5_000);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/^ax: killing 1 task now \(SIGKILL to its process group\)$/m);
    expect(groupMembers(pgid)).toEqual([]);
    const { run: stored, instances } = await instancesOf(runId);
    expect(stored?.state).toBe('CANCELLED');
    expect(instances.map((i) => i.state)).toEqual(['CANCELLED']);
  });
});

describe('kill -9 of ax run --wait without a server', () => {
  it('its task groups die with it, one that ignores SIGTERM included (the task launcher is the watchdog)', async () => {
    const pids = { plain: path.join(box.root, 'plain.pid'), stubborn: path.join(box.root, 'stubborn9.pid') };
    const file = writeFile(
      box.root,
      'killed.yaml',
      `workflow: killed\ntasks:\n  plain:\n    command: 'echo $$ > "${pids.plain}"; sleep 60 & sleep 60'\n  stubborn:\n    command: 'trap "" TERM; echo $$ > "${pids.stubborn}"; sleep 60'\n`,
    );
    const run = axStart(['run', file, '--wait'], box.opts());
    const groups = [await readPidFile(pids.plain, 30_000), await readPidFile(pids.stubborn, 30_000)];
    for (const g of groups) expect(groupMembers(g).length).toBeGreaterThan(0);
    run.kill('SIGKILL');
    expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Aimed at 2 s (SIGKILL 1.5 s after the SIGTERM, not after the 10 s kill grace); the deadline
    // is loose for a loaded machine.
    await waitFor(() => groups.every((g) => groupMembers(g).length === 0), {
      timeoutMs: 6_000,
      message: 'the tasks outlived ax run',
    });
    // Nothing runs the data dir now: following the task's log says so instead of waiting forever.
    const [killed] = JSON.parse((await ax(['--json', 'runs', 'killed'], box.opts())).stdout) as { id: number }[];
    const runId = killed?.id as number;
    const followed = await ax(['logs', String(runId), 'plain', '--follow'], { ...box.opts(), timeoutMs: 20_000 });
    expect(followed.code).toBe(5);
    expect(followed.stderr).toBe(
      `ax: task "plain" of run #${runId} is RUNNING, but no engine runs this data dir (an "ax run" may have been killed): "ax serve" recovers and finishes it, "ax cancel ${runId}" ends the run\n`,
    );
  });
});

describe('ax rerun without a server', () => {
  it('runs the re-run in this process and --wait ends with its outcome', async () => {
    const flag = path.join(box.root, 'fixed');
    const file = writeFile(
      box.root,
      'flaky.yaml',
      `workflow: flaky\ntasks:\n  check:\n    command: 'test -f "${flag}"'\n  report:\n    command: echo reported\n    upstream: [check]\n`,
    );
    const failed = await ax(['run', file, '--wait'], box.opts());
    expect(failed.code).toBe(1);
    const runId = Number(/^run #(\d+)/m.exec(failed.stdout)?.[1]);
    fs.writeFileSync(flag, '');
    const r = await ax(['rerun', String(runId), 'check', '--wait'], { ...box.opts(), timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/✓ check \(attempt 2\) SUCCESS/);
    expect(r.stdout).toMatch(/✓ report SUCCESS/);
    expect(r.stdout).toMatch(new RegExp(`^run #${runId} SUCCESS`, 'm'));
    expect(readLockFile(box.dataDir)).toBeUndefined();
  });
});

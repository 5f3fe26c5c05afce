// Crash recovery with real processes: `ax serve` is killed with SIGKILL mid-run. Its task
// launcher kills the tasks' process groups within about 2 s (a task that ignores SIGTERM too);
// when the launcher dies with it (everything killed at once), the tasks live on as orphans and
// the next `ax serve` kills those groups. Either way the next engine fails the instances with
// "engine restarted", retries what has retries left, and finishes the run with no task
// succeeding twice and no run left RUNNING.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { ax, cliSandbox, perTestDataDir } from '../helpers/ax.ts';
import { readLockFile, writeFile } from '../helpers/files.ts';
import { groupMembers, killWithLaunchers, launchersOf, processAlive, readPidFile } from '../helpers/processes.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

// after each test the sandbox kills every `ax` and the tasks orphaned by the SIGKILL, if the test
// stopped before the restart killed them
const box = cliSandbox('ax-cli-recovery-');
// each test its own ROOT under the sandbox: no pid file or data dir left by the one before
const t = perTestDataDir(box);

describe('ax serve killed with SIGKILL mid-run, then started again', () => {
  it.each([
    ['alone: its launcher kills the task groups within 2 s', false],
    ['with its launcher (everything at once): the next engine kills the leftover groups', true],
  ])('%s; the lost attempts fail, are retried, and the run finishes', async (_, withLauncher) => {
    const opts = t.opts();
    const sleeperPid = path.join(t.root, 'sleeper.pid');
    const siblingPid = path.join(t.root, 'sibling.pid');
    writeFile(
      t.root,
      'crash.yaml',
      `workflow: crash
tasks:
  quick:
    command: echo quick done
  sleeper:
    command: 'echo $$ > "${sleeperPid}"; sleep 300'
  sibling:
    command: 'if [ "$AX_ATTEMPT" = 1 ]; then echo $$ > "${siblingPid}"; sleep 300; fi; echo "attempt $AX_ATTEMPT done"'
    retries: 1
    retry_backoff: 200ms
  after:
    command: echo after sibling
    upstream: [sibling]
`,
    );

    const first = await startServe(opts);
    const started = await ax(['run', './crash.yaml'], opts);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^started run #1 of crash/);
    const pids = { sleeper: await readPidFile(sleeperPid), sibling: await readPidFile(siblingPid) };
    const store = await t.openStore();
    // Crash only once the engine has recorded both pids (recovery finds leftovers by them) and
    // "quick" is done (it must not run again).
    const byTask = async () => new Map((await store.listInstances(1)).map((i) => [`${i.taskName}#${i.attempt}`, i]));
    await waitFor(
      async () => {
        const m = await byTask();
        return (
          m.get('sleeper#1')?.pid === pids.sleeper &&
          m.get('sibling#1')?.pid === pids.sibling &&
          m.get('quick#1')?.state === 'SUCCESS'
        );
      },
      { timeoutMs: 20_000, message: 'the tasks did not all start' },
    );
    // each task leads its own process group; serve is not in it
    for (const pid of Object.values(pids)) {
      expect(groupMembers(pid)).toContain(pid);
      expect(groupMembers(pid)).not.toContain(first.pid);
    }

    const launchers = launchersOf(first.pid);
    expect(launchers.length).toBeGreaterThan(0);
    if (withLauncher) await killWithLaunchers(first);
    else first.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    if (withLauncher) {
      // Nothing is left to stop them: the tasks outlive their engine.
      expect(processAlive(pids.sleeper)).toBe(true);
      expect(processAlive(pids.sibling)).toBe(true);
    } else {
      // The launcher stops them: SIGTERM, then SIGKILL for the sleeper, which ignores SIGTERM,
      // 1.5 s later, not after the 10 s kill grace. The deadline is loose for a loaded machine.
      await waitFor(() => groupMembers(pids.sleeper).length === 0 && groupMembers(pids.sibling).length === 0, {
        timeoutMs: 6_000,
        message: 'the tasks outlived their engine',
      });
      await waitFor(() => launchers.every((l) => !processAlive(l)), { message: 'the launcher outlived its engine' });
    }
    // The database still says RUNNING; the lock names a dead pid.
    const orphaned = await byTask();
    expect([orphaned.get('sleeper#1')?.state, orphaned.get('sibling#1')?.state]).toEqual(['RUNNING', 'RUNNING']);
    expect(readLockFile(t.dataDir)?.pid).toBe(first.pid);

    const second = await startServe(opts);
    // Recovery runs before the API opens: by now the leftover groups are gone.
    expect(groupMembers(pids.sleeper)).toEqual([]);
    expect(groupMembers(pids.sibling)).toEqual([]);
    expect(processAlive(pids.sleeper)).toBe(false);

    const run = await waitFor(
      async () => {
        const r = await store.getRun(1);
        return r && r.state !== 'RUNNING' ? r : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, message: 'run #1 did not end after the restart' },
    );
    expect(run.state).toBe('FAILED'); // "sleeper" had no retries left

    const instances = await store.listInstances(1);
    const summary = instances.map((i: InstanceRecord) => [i.taskName, i.attempt, i.state]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ['quick', 1, 'SUCCESS'],
        ['sleeper', 1, 'FAILED'],
        ['sibling', 1, 'FAILED'],
        ['sibling', 2, 'SUCCESS'],
        ['after', 1, 'SUCCESS'],
      ]),
    );
    expect(instances).toHaveLength(5);
    const get = (task: string, attempt: number) =>
      instances.find((i) => i.taskName === task && i.attempt === attempt) as InstanceRecord;
    const restarted = withLauncher ? 'engine restarted; its leftover process group was killed' : 'engine restarted';
    expect(get('sleeper', 1).reason).toBe(restarted);
    expect(get('sibling', 1).reason).toBe(restarted);
    // attempt 2 ran in the new engine, quickly
    expect(get('sibling', 2).pid).not.toBe(pids.sibling);
    expect((await store.readLogs(get('sibling', 2).id, 0, 100)).map((l) => l.line)).toContain('attempt 2 done');
    // no task succeeded twice; nothing is left RUNNING
    const successes = instances.filter((i) => i.state === 'SUCCESS').map((i) => i.taskName);
    expect(new Set(successes).size).toBe(successes.length);
    expect(await store.listRuns({ states: ['RUNNING'], limit: 10 })).toEqual([]);
    expect(await store.instancesInStates(['WAITING', 'DISPATCHED', 'RUNNING'])).toEqual([]);

    // what a user sees
    const shown = await ax(['runs', '1'], opts);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^run #1 of crash: FAILED \(manual by /);
    const row = (task: string, attempt: number) => lines.find((l) => new RegExp(`^\\d+ +${task} +${attempt} `).test(l));
    expect(row('quick', 1)).toMatch(/✓ SUCCESS/);
    expect(row('sleeper', 1)?.endsWith(restarted)).toBe(true);
    expect(row('sibling', 1)).toMatch(/✗ FAILED .*engine restarted/);
    expect(row('sibling', 2)).toMatch(/✓ SUCCESS/);
    expect(row('after', 1)).toMatch(/✓ SUCCESS/);

    second.kill('SIGTERM');
    expect((await second.result(30_000)).code).toBe(0);
    expect(readLockFile(t.dataDir)).toBeUndefined();
  });
});

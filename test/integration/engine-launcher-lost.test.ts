// A task launcher killed on its own under a running solo engine: the tasks it ran
// are lost, not failed, so they fail over without spending a retry; their groups are gone before
// the re-run starts; a new launcher runs the re-runs and later tasks. Real processes; Linux.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LauncherProcessRunner } from '../../engine/adapters/process/launcher-process-runner.ts';
import { tempDir } from '../helpers/files.ts';
import { groupMembers, killGroup } from '../helpers/processes.ts';
import { FAST_CONFIG, startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;
let runner: LauncherProcessRunner;
let scratch: string;
const pids: number[] = [];
const launcherAlerts: string[] = [];

beforeAll(async () => {
  runner = new LauncherProcessRunner({
    killGraceMs: FAST_CONFIG.killGraceMs as number,
    onAlert: (m) => launcherAlerts.push(m),
  });
  t = await startTestEngine({ runner });
  scratch = tempDir('ax-launcher-lost-');
});

afterAll(async () => {
  for (const pid of pids) killGroup(pid);
  await t?.close();
  runner?.dispose();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

// Linux only: the launcher finds a lost task's processes, and this test checks them, in /proc.
describe.skipIf(process.platform !== 'linux')('a task launcher killed on its own', () => {
  it('fails its running instances over without spending a retry; the re-runs and later tasks run', async () => {
    // The first attempt of each task sleeps; a later one finishes at once.
    const marker = (name: string) => path.join(scratch, name);
    const command = (name: string) =>
      `if [ -e '${marker(name)}' ]; then echo "second $AX_ATTEMPT"; else touch '${marker(name)}'; echo first; sleep 300; fi`;
    await t.apply(`workflow: lost
tasks:
  a:
    command: ${JSON.stringify(command('a'))}
  b:
    command: ${JSON.stringify(command('b'))}
  after:
    command: echo after
    upstream: [a, b]
`);
    const run = await t.engine.runWorkflow('lost', { actor: 'test' });
    const running = await waitFor(
      async () => {
        const list = (await t.engine.getRun(run.id)).instances.filter(
          (i) => i.state === 'RUNNING' && i.pid !== undefined,
        );
        if (list.length < 2) return undefined;
        // Output still on its way from the launcher would be lost with it: wait until it is in.
        const logs = await Promise.all(list.map((i) => t.logText(i.id)));
        return logs.every((l) => l.includes('first')) ? list : undefined;
      },
      { timeoutMs: 15_000, message: 'both tasks did not start' },
    );
    const groups = running.map((i) => i.pid as number);
    pids.push(...groups);
    const launchers = runner.launcherPids();
    expect(launchers.length).toBeGreaterThan(0);

    for (const launcher of launchers) process.kill(launcher, 'SIGKILL');
    const detail = await t.waitRun(run.id, 30_000);
    expect(detail.run.state).toBe('SUCCESS');
    for (const g of groups) expect(groupMembers(g)).toEqual([]);

    const byKey = new Map(detail.instances.map((i) => [`${i.taskName}#${i.attempt}`, i]));
    expect([...byKey.keys()].sort()).toEqual(['a#1', 'a#2', 'after#1', 'b#1', 'b#2']);
    for (const task of ['a', 'b']) {
      const lost = byKey.get(`${task}#1`);
      expect(lost?.state).toBe('FAILED');
      expect(lost?.failedOver).toBe(true);
      expect(lost?.reason).toMatch(/^failed over: its task launcher \(pid \d+\) was killed by SIGKILL$/);
      // The tasks have no retries: a second attempt exists only because the first one was free.
      const rerun = byKey.get(`${task}#2`);
      expect(rerun?.state).toBe('SUCCESS');
      expect(rerun?.failovers).toBe(1);
      expect(await t.logText(rerun?.id as number)).toContain('second 2');
      expect(await t.logText(lost?.id as number)).toEqual(['first', lost?.reason]);
    }
    expect(
      launcherAlerts.some((a) =>
        /^task launcher \(pid \d+\) was killed by SIGKILL: \d running task\(s\) lost with it fail over/.test(a),
      ),
    ).toBe(true);
    expect(runner.launcherPids().some((p) => launchers.includes(p))).toBe(false);

    // Later runs go through the new launcher(s).
    const again = await t.runToEnd('lost');
    expect(again.run.state).toBe('SUCCESS');
  });
});

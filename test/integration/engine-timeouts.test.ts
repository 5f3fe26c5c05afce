// Timeouts through the real engine (design.md §6, §7): SIGTERM to the whole process group, SIGKILL
// after the grace, TIMEOUT recorded, and nothing of the group left alive; a retry never starts
// while the previous attempt's group lives. Unix only: process groups and /proc.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { tempDir } from '../helpers/files.ts';
import { FAST_CONFIG, startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;
let scratch: string;
const GRACE = FAST_CONFIG.killGraceMs as number;

beforeAll(async () => {
  t = await startTestEngine();
  scratch = tempDir('ax-timeout-');
});

afterAll(async () => {
  // Should a test fail half-way, leave no sleeper behind.
  for (const pid of leaderPids) for (const member of liveMembers(pid)) killQuietly(member);
  await t?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

const leaderPids: number[] = [];

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/**
 * Live processes of group pgid, read from /proc independently of the runner's own scan. Zombies
 * are left out: where init does not reap orphans (containers) they stay listed, dead.
 */
function liveMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(entry));
  }
  return members;
}

/** Starts the workflow and waits until its first instance runs with a pid. */
async function startAndWaitRunning(workflow: string): Promise<{ runId: number; inst: InstanceRecord }> {
  const run = await t.engine.runWorkflow(workflow, { actor: 'test' });
  const inst = await waitFor(
    async () => (await t.engine.getRun(run.id)).instances.find((i) => i.state === 'RUNNING' && i.pid !== undefined),
    { timeoutMs: 10_000, message: `${workflow}: an instance running with a pid` },
  );
  leaderPids.push(inst.pid as number);
  return { runId: run.id, inst };
}

// Reads /proc to check process groups: Linux only.
describe.skipIf(process.platform !== 'linux')('engine: timeouts', () => {
  it('times out a command and kills its whole process group, background children included', async () => {
    await t.apply(`
workflow: timeout-group
tasks:
  sleepy:
    command: sh -c 'sleep 300 & sleep 300'
    timeout: 2s
`);
    const { runId, inst } = await startAndWaitRunning('timeout-group');
    // the group really has several members before the timeout: the shells and both sleeps
    await waitFor(() => liveMembers(inst.pid as number).length >= 3, { message: 'shell and two sleeps running' });
    const { run, instances } = await t.waitRun(runId, 20_000);
    expect(run.state).toBe('FAILED');
    const done = instances[0] as InstanceRecord;
    expect(done.state).toBe('TIMEOUT');
    expect(done.reason).toContain('timed out after 2s');
    expect((done.finishedAt as number) - (done.startedAt as number)).toBeGreaterThanOrEqual(2_000);
    expect(liveMembers(inst.pid as number)).toEqual([]);
    const log = await t.engine.readLogs(done.id, 0, 100);
    expect(log.some((l) => l.stream === 'system' && l.line.includes('timed out after 2s'))).toBe(true);
  });

  it('escalates to SIGKILL after the grace when the task ignores SIGTERM', async () => {
    await t.apply(`
workflow: timeout-trap
tasks:
  stubborn:
    command: trap "" TERM; sleep 300 & sleep 300
    timeout: 1s
`);
    const { runId, inst } = await startAndWaitRunning('timeout-trap');
    await waitFor(() => liveMembers(inst.pid as number).length >= 2, { message: 'shell and sleeps running' });
    const { instances } = await t.waitRun(runId, 20_000);
    const done = instances[0] as InstanceRecord;
    expect(done.state).toBe('TIMEOUT');
    // SIGTERM was ignored: only SIGKILL after the grace ended it
    expect((done.finishedAt as number) - (done.startedAt as number)).toBeGreaterThanOrEqual(1_000 + GRACE);
    expect(liveMembers(inst.pid as number)).toEqual([]);
  });

  it('starts the retry of a timed-out attempt only after its process group is gone', async () => {
    // Attempt 1 ignores SIGTERM and leaves a background sleeper; attempt 2 looks, from inside, for
    // any live process of attempt 1's group at the moment it starts.
    const pidFile = path.join(scratch, 'attempt1.pid');
    const checker = path.join(scratch, 'check-group.mjs');
    fs.writeFileSync(
      checker,
      `import fs from 'node:fs';
const pgid = Number(fs.readFileSync(process.argv[2], 'utf8').trim());
let alive = 0;
for (const e of fs.readdirSync('/proc')) {
  if (!/^\\d+$/.test(e)) continue;
  try {
    const s = fs.readFileSync('/proc/' + e + '/stat', 'latin1');
    const [state, , pgrp] = s.slice(s.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') alive++;
  } catch {}
}
console.log('pgid=' + pgid + ' alive=' + alive);
`,
    );
    const command = [
      `if [ "$AX_ATTEMPT" = 1 ]; then echo $$ > ${JSON.stringify(pidFile)}; trap "" TERM; sleep 300 & sleep 300;`,
      `else ${JSON.stringify(process.execPath)} ${JSON.stringify(checker)} ${JSON.stringify(pidFile)}; fi`,
    ].join(' ');
    await t.apply(`
workflow: timeout-retry
tasks:
  once-stuck:
    command: ${JSON.stringify(command)}
    timeout: 1s
    retries: 1
    retry_backoff: 0s
`);
    const { runId, inst } = await startAndWaitRunning('timeout-retry');
    await waitFor(() => liveMembers(inst.pid as number).length >= 2, { message: 'attempt 1 running' });
    const { run, instances } = await t.waitRun(runId, 20_000);
    expect(run.state).toBe('SUCCESS');
    const [first, second] = [...instances].sort((a, b) => a.attempt - b.attempt) as [InstanceRecord, InstanceRecord];
    expect(first).toMatchObject({ attempt: 1, state: 'TIMEOUT', pid: inst.pid });
    expect(second).toMatchObject({ attempt: 2, state: 'SUCCESS' });
    expect(Number(fs.readFileSync(pidFile, 'utf8'))).toBe(inst.pid);
    expect(await t.logText(second.id)).toEqual([`pgid=${inst.pid} alive=0`]);
    expect(second.startedAt).toBeGreaterThanOrEqual(first.finishedAt as number);
    expect(liveMembers(inst.pid as number)).toEqual([]);
  });
});

// Cron fires and the overlap policy through the real engine (design.md §5, §8): an every-second cron
// on a task that takes 2.5 s. `skip` records each overlapping fire as a SKIPPED run naming the
// run that was going; `queue` holds them and runs them one after the other. Every fire makes
// exactly one run, at a whole second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../engine/api/types.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { letTimePass, waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t?.close();
});

function workflow(name: string, overlap: 'skip' | 'queue'): string {
  return `
workflow: ${name}
schedule:
  cron: "* * * * * *"
  timezone: UTC
  overlap: ${overlap}
tasks:
  slow:
    command: echo "$AX_LOGICAL_TIME"; sleep 2.5
`;
}

async function runsOf(name: string): Promise<RunRecord[]> {
  return (await t.engine.listRuns({ workflow: name, limit: 1000 })).sort((a, b) => a.id - b.id);
}

/** Disables the workflow, then waits until none of its runs is queued or running. */
async function disableAndSettle(name: string): Promise<number> {
  await t.engine.setEnabled(name, false, 'test');
  const disabledAt = Date.now();
  await waitFor(async () => (await runsOf(name)).every((r) => r.state !== 'RUNNING' && r.state !== 'QUEUED'), {
    timeoutMs: 30_000,
    intervalMs: 100,
    message: `${name}: queued and running runs to end`,
  });
  return disabledAt;
}

/** Fires are whole seconds, one run each, none lost: consecutive seconds. */
function expectOneRunPerSecond(runs: RunRecord[]): void {
  const times = runs.map((r) => r.logicalTime).sort((a, b) => a - b);
  expect(times.every((ms) => ms % 1000 === 0)).toBe(true);
  expect(new Set(times).size).toBe(times.length);
  expect(times.map((ms, i) => (i === 0 ? 1000 : ms - (times[i - 1] as number)))).toEqual(times.map(() => 1000));
  expect(runs.every((r) => r.trigger === 'cron' && r.scheduleId !== undefined)).toBe(true);
}

/** Executed runs never overlap: each starts after the previous one finished. */
function expectOneAtATime(executed: RunRecord[]): void {
  const sorted = [...executed].sort((a, b) => (a.startedAt as number) - (b.startedAt as number));
  for (let i = 1; i < sorted.length; i++) {
    expect(
      sorted[i]?.startedAt,
      `run #${sorted[i]?.id} started after #${sorted[i - 1]?.id} finished`,
    ).toBeGreaterThanOrEqual(sorted[i - 1]?.finishedAt as number);
  }
}

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: disabling a cron workflow', () => {
  it('starts no run once setEnabled(false) has returned, even for a fire due a moment later; re-enabling resumes from now', async () => {
    await t.apply(`
workflow: disable-race
schedule:
  cron: "* * * * * *"
  timezone: UTC
  overlap: parallel
tasks:
  quick:
    command: "true"
`);
    await waitFor(async () => (await runsOf('disable-race')).length >= 1, {
      timeoutMs: 5_000,
      message: 'a first fire',
    });
    // Disable 40 ms before a whole second: the timer for that fire is already set.
    await letTimePass(1000 - (Date.now() % 1000) + 960);
    await t.engine.setEnabled('disable-race', false, 'test');
    const disabledAt = Date.now();
    const nextFire = Math.ceil(disabledAt / 1000) * 1000;
    // A negative can only be watched for a while: two more seconds of fires that must not happen.
    await waitFor(() => Date.now() > nextFire + 2_000, { timeoutMs: 5_000 });
    const runs = await runsOf('disable-race');
    expect(runs.filter((r) => r.createdAt > disabledAt).map((r) => new Date(r.logicalTime).toISOString())).toEqual([]);
    expect(Math.max(...runs.map((r) => r.logicalTime))).toBeLessThan(nextFire);

    await t.engine.setEnabled('disable-race', true, 'test');
    const enabledAt = Date.now();
    const resumed = await waitFor(async () => (await runsOf('disable-race')).find((r) => r.createdAt >= enabledAt), {
      timeoutMs: 5_000,
      message: 'a fire after re-enabling',
    });
    // the seconds that passed while disabled are not caught up
    expect(resumed.logicalTime).toBeGreaterThan(enabledAt - 1000);
    await disableAndSettle('disable-race');
  });
});

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: cron overlap policy', () => {
  it('skip: overlapping fires are recorded as SKIPPED runs naming the run still going', async () => {
    await t.apply(workflow('overlap-skip', 'skip'));
    await waitFor(
      async () => {
        const runs = await runsOf('overlap-skip');
        return (
          runs.filter((r) => r.state === 'SKIPPED').length >= 3 && runs.filter((r) => r.state === 'SUCCESS').length >= 1
        );
      },
      { timeoutMs: 20_000, intervalMs: 100, message: 'three skipped fires and a finished run' },
    );
    const disabledAt = await disableAndSettle('overlap-skip');
    const runs = await runsOf('overlap-skip');
    expect(
      runs.every((r) => r.createdAt <= disabledAt),
      'no fire after the workflow was disabled',
    ).toBe(true);
    expectOneRunPerSecond(runs);

    const executed = runs.filter((r) => r.state !== 'SKIPPED');
    expect(executed.every((r) => r.state === 'SUCCESS')).toBe(true);
    expectOneAtATime(executed);
    const skipped = runs.filter((r) => r.state === 'SKIPPED');
    for (const s of skipped) {
      const named = /^run #(\d+) was still running \(overlap policy: skip\)$/.exec(s.reason ?? '');
      expect(named, `reason of skipped run #${s.id}: ${s.reason}`).not.toBeNull();
      const blocker = executed.find((r) => r.id === Number(named?.[1]));
      expect(blocker, `run #${named?.[1]} named by #${s.id}`).toBeDefined();
      expect(blocker?.logicalTime).toBeLessThan(s.logicalTime);
      expect(blocker?.finishedAt).toBeGreaterThanOrEqual(s.createdAt);
      expect((await t.engine.getRun(s.id)).instances).toEqual([]);
    }
  });

  it('queue: overlapping fires wait as QUEUED and then run one after the other, in order', async () => {
    await t.apply(workflow('overlap-queue', 'queue'));
    let maxRunning = 0;
    let sawQueued = 0;
    const watch = setInterval(() => {
      void runsOf('overlap-queue').then((runs) => {
        maxRunning = Math.max(maxRunning, runs.filter((r) => r.state === 'RUNNING').length);
        sawQueued = Math.max(sawQueued, runs.filter((r) => r.state === 'QUEUED').length);
      });
    }, 50);
    let runs: RunRecord[];
    let disabledAt: number;
    try {
      await waitFor(async () => (await runsOf('overlap-queue')).filter((r) => r.state === 'QUEUED').length >= 2, {
        timeoutMs: 15_000,
        intervalMs: 50,
        message: 'two queued runs',
      });
      disabledAt = await disableAndSettle('overlap-queue');
      runs = await runsOf('overlap-queue');
    } finally {
      clearInterval(watch);
    }
    expect(sawQueued).toBeGreaterThanOrEqual(2);
    expect(maxRunning).toBe(1);
    expect(
      runs.every((r) => r.createdAt <= disabledAt),
      'no fire after the workflow was disabled',
    ).toBe(true);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expectOneRunPerSecond(runs);
    // every fire ran, none was skipped, and they ran in firing order without overlapping
    expect(runs.map((r) => r.state)).toEqual(runs.map(() => 'SUCCESS'));
    expectOneAtATime(runs);
    const byStart = [...runs].sort((a, b) => (a.startedAt as number) - (b.startedAt as number));
    expect(byStart.map((r) => r.logicalTime)).toEqual(runs.map((r) => r.logicalTime).sort((a, b) => a - b));
    for (const r of runs.slice(1))
      expect(r.reason).toMatch(/^run #\d+ was still (running|queued) \(overlap policy: queue\)$/);
    // a queued run's task still sees the fire time it was created for
    for (const r of runs) {
      const { instances } = await t.engine.getRun(r.id);
      expect(instances).toHaveLength(1);
      expect(await t.logText(instances[0]!.id)).toEqual([new Date(r.logicalTime).toISOString()]);
    }
  });
});

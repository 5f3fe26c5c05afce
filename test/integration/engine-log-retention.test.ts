// Log retention through the real engine: the scheduler's purge (on its first tick, then hourly)
// deletes log lines older than logRetentionMs and keeps newer ones; runs and instances stay.
// Engines are restarted on the same data dir, as after an app restart.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

const dir = tempDir('ax-retention-');
const open: TestEngine[] = [];

afterAll(async () => {
  for (const t of open) {
    await t.engine.stop(5_000).catch(() => undefined);
    await t.engine.store.close().catch(() => undefined);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

async function startOn(config: Parameters<typeof startTestEngine>[0] = {}): Promise<TestEngine> {
  const t = await startTestEngine({ ...config, dir });
  open.push(t);
  return t;
}

/** Stops the engine but keeps its data dir (TestEngine.close would delete it). */
async function stopKeepingData(t: TestEngine): Promise<void> {
  await t.engine.stop(5_000);
  await t.engine.store.close();
  open.splice(open.indexOf(t), 1);
}

async function onlyInstance(t: TestEngine, workflow: string): Promise<InstanceRecord> {
  const { run, instances } = await t.runToEnd(workflow);
  expect(run.state).toBe('SUCCESS');
  expect(instances).toHaveLength(1);
  return instances[0] as InstanceRecord;
}

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: log retention', () => {
  it('purges lines older than the retention on start, keeps newer ones and the instances', async () => {
    const first = await startOn();
    await first.apply(`
workflow: old-job
tasks:
  t:
    command: echo old-1; echo old-2 >&2
`);
    // The second job's output comes at least 2 s after the first one's: room for the cut-off.
    await first.apply(`
workflow: new-job
tasks:
  t:
    command: sleep 2; echo new-1
`);
    const oldInst = await onlyInstance(first, 'old-job');
    const newInst = await onlyInstance(first, 'new-job');
    const oldLogs = await first.engine.readLogs(oldInst.id, 0, 100);
    const newLogs = await first.engine.readLogs(newInst.id, 0, 100);
    expect(oldLogs.map((l) => l.line)).toEqual(['old-1', 'old-2']);
    expect(newLogs.map((l) => l.line)).toEqual(['new-1']);
    const oldestKept = Math.min(...newLogs.map((l) => l.ts));
    const newestPurged = Math.max(...oldLogs.map((l) => l.ts));
    expect(oldestKept - newestPurged).toBeGreaterThanOrEqual(2_000);
    await stopKeepingData(first);

    // The cut-off (start time − retention) lands just after the old lines; the new ones are 2 s
    // later, which is how long the restart may take before its first tick.
    const retention = Date.now() - (newestPurged + 1);
    const second = await startOn({ config: { logRetentionMs: retention } });
    expect(await second.engine.readLogs(oldInst.id, 0, 100)).toEqual([]);
    expect(await second.engine.readLogs(newInst.id, 0, 100)).toEqual(newLogs);
    // only logs go: the instance and its run are history and stay
    expect(await second.engine.getInstance(oldInst.id)).toMatchObject({ state: 'SUCCESS', taskName: 't' });
    expect((await second.engine.getRun(oldInst.runId)).run.state).toBe('SUCCESS');
    await stopKeepingData(second);
  });

  it('with a retention of 1 ms, a restart purges everything', async () => {
    const third = await startOn({ config: { logRetentionMs: 1 } });
    const runs = await third.engine.listRuns({ limit: 10 });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const r of runs) {
      for (const inst of (await third.engine.getRun(r.id)).instances)
        expect(await third.engine.readLogs(inst.id, 0, 100)).toEqual([]);
    }
    // logs written after the purge are kept: it runs on the first tick, then only hourly
    const fresh = await onlyInstance(third, 'old-job');
    expect(await third.logText(fresh.id)).toEqual(['old-1', 'old-2']);
    await stopKeepingData(third);
  });
});

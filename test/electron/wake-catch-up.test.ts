// Waking from sleep: powerMonitor 'resume' makes the engine look at every schedule at once. A
// real engine on a fake clock stands for the machine: the clock jumps three hours with no timer
// run (asleep), and on 'resume' the missed fires are dealt with by the misfire policy at once —
// ticks are an hour apart here, so nothing else could have fired them.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { catchUpOnWake } from '../../electron/wake-catch-up.ts';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { CatchUpReport } from '../../engine/api/engine-api.ts';
import { Engine } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { FakePowerMonitor } from '../helpers/fake-electron.ts';
import { tempDir } from '../helpers/files.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';

const HOUR = 3_600_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sleepingEngine() {
  const dir = tempDir('ax-wake-');
  const clock = new FakeClock(Date.parse('2026-03-01T00:30:00Z'));
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  const engine = new Engine({
    ...nodeHostDefaults(),
    store,
    coordinator: new MemoryCoordinator({ now: () => clock.now() }),
    runner: new NodeProcessRunner(),
    clock,
    nodeId: 'desk',
    config: { tickMs: HOUR },
  });
  cleanups.push(async () => {
    await engine.stop(0);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { spec } = parseWorkflowFile(
    'workflow: hourly\nschedule: { cron: "0 * * * *", timezone: UTC, misfire: run_once }\ntasks:\n  a: { command: "true" }\n',
    { defaultTimezone: 'UTC' },
  );
  await engine.apply(spec, 'test');
  await engine.start();
  return { clock, store, engine };
}

describe('catch-up on wake (powerMonitor resume)', () => {
  it("'resume' asks the engine to catch up: the missed fire runs at once by its misfire policy", async () => {
    const { clock, store, engine } = await sleepingEngine();
    const power = new FakePowerMonitor();
    const outcomes: (CatchUpReport | Error)[] = [];
    catchUpOnWake(
      power,
      () => engine,
      (o) => outcomes.push(o),
    );
    clock.jump(3 * HOUR); // asleep: no timer ran
    expect(await store.listRuns({})).toEqual([]);
    power.emit('resume');
    await waitFor(() => outcomes.length === 1);
    expect(outcomes).toEqual([{ scanned: true, paused: false, fired: 1, dropped: 2 }]);
    expect((await store.listRuns({})).map((r) => [new Date(r.logicalTime).toISOString(), r.trigger])).toEqual([
      ['2026-03-01T03:00:00.000Z', 'cron'],
    ]);
  });

  it('with no engine up, asks nothing; a failed call is reported, not thrown', async () => {
    const power = new FakePowerMonitor();
    const outcomes: (CatchUpReport | Error)[] = [];
    const current: { engine?: { catchUpSchedules(): Promise<CatchUpReport> } } = {};
    catchUpOnWake(
      power,
      () => current.engine,
      (o) => outcomes.push(o),
    );
    power.emit('resume');
    expect(power.count('resume')).toBe(1);
    current.engine = { catchUpSchedules: () => Promise.reject(new Error('the engine host is gone')) };
    power.emit('resume');
    await waitFor(() => outcomes.length === 1);
    expect(outcomes).toEqual([new Error('the engine host is gone')]);
  });
});

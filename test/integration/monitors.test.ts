// Monitors under a fake clock with a real SQLite store (design.md §13): their schedule starts no
// run; pings record external runs; a fire with no run by its grace is missed once (a FAILED run and
// one monitor_missed alert), also across a restart and with two schedulers; a start with no end
// fails when the next run is due; a run far longer than its history raises run_duration_anomaly.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { Engine } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';

const T0 = Date.parse('2026-03-01T00:00:30Z');
const MINUTE = 60_000;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  file = 'workflow: backup\nschedule: { cron: "*/10 * * * *", timezone: UTC }\nmonitor: { grace: 2m }\n',
) {
  const dir = tempDir();
  const clock = new FakeClock(T0);
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  const engines: Engine[] = [];
  const newEngine = (id: string) => {
    const engine = new Engine({
      ...nodeHostDefaults(),
      store,
      coordinator: new MemoryCoordinator({ now: () => clock.now() }),
      runner: new NodeProcessRunner(),
      clock,
      nodeId: id,
      config: { tickMs: 5_000 },
    });
    engines.push(engine);
    return engine;
  };
  cleanups.push(async () => {
    for (const e of engines) await e.stop(0);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { spec } = parseWorkflowFile(file, { defaultTimezone: 'UTC' });
  await newEngine('setup').apply(spec, 'test');
  return { clock, store, newEngine };
}

const runsOf = (store: SqlStore) => store.listRuns({ workflowName: 'backup', limit: 1000 });
const missedAlerts = async (store: SqlStore) =>
  (await store.listAlerts({ limit: 1000 })).filter((a) => a.rule === 'monitor_missed');

describe('monitors', () => {
  it('its schedule starts no run; a start and an end ping make one external run with its duration and log', async () => {
    const { clock, store, newEngine } = await setup();
    const engine = newEngine('s1');
    await engine.start();
    await clock.advance(9 * MINUTE + 30_000); // 00:10:00, the first fire
    expect(await runsOf(store)).toEqual([]);
    const started = await engine.ping('backup', { what: 'start', from: 'ax ping on db1' });
    expect(started.run).toMatchObject({ state: 'RUNNING', trigger: 'external', triggeredBy: 'ax ping on db1' });
    await clock.advance(45_000);
    const ended = await engine.ping('backup', { what: 'exit', exitCode: 0, log: 'dumped 3 tables\nok\n', from: 'x' });
    expect(ended.run.id).toBe(started.run.id);
    expect(ended.run).toMatchObject({
      state: 'SUCCESS',
      startedAt: T0 + 9.5 * MINUTE,
      finishedAt: T0 + 10.25 * MINUTE,
    });
    const detail = await engine.getRun(started.run.id);
    expect(detail.instances).toMatchObject([{ taskName: 'backup', state: 'SUCCESS', exitCode: 0 }]);
    expect((await engine.readLogs(ended.instanceId, 0, 100)).map((l) => l.line)).toEqual(['dumped 3 tables', 'ok']);
    // past the grace: the fire was met, nothing is missed
    await clock.advance(5 * MINUTE);
    expect((await runsOf(store)).map((r) => r.id)).toEqual([started.run.id]);
  });

  it('an end without a start is a run that started and ended at once; a code other than 0 fails it with the code', async () => {
    const { newEngine } = await setup();
    const engine = newEngine('s1');
    const answer = await engine.ping('backup', { what: 'exit', exitCode: 3, log: 'disk full', from: 'ax ping on db1' });
    expect(answer.run).toMatchObject({ state: 'FAILED', startedAt: T0, finishedAt: T0 });
    const [inst] = (await engine.getRun(answer.run.id)).instances;
    expect(inst).toMatchObject({ state: 'FAILED', exitCode: 3, reason: 'exit code 3 (reported by ax ping on db1)' });
    await engine.alertsIdle();
    expect((await engine.listAlerts({})).map((a) => a.rule)).toContain('run_failed');
  });

  it('refuses a ping for a workflow that is no monitor, and a manual run of a monitor, saying what to do', async () => {
    const { newEngine } = await setup();
    const engine = newEngine('s1');
    await engine.apply(
      parseWorkflowFile('workflow: etl\ntasks:\n  a: { command: "true" }\n', { defaultTimezone: 'UTC' }).spec,
      'test',
    );
    await expect(engine.ping('etl', { what: 'success', from: 'x' })).rejects.toThrow(/"etl" is not a monitor/);
    await expect(engine.ping('nope', { what: 'success', from: 'x' })).rejects.toThrow(/no workflow "nope"/);
    await expect(engine.runWorkflow('backup', { actor: 'test' })).rejects.toThrow(/is a monitor.*ax ping backup/);
  });

  it('a fire with no run is missed only after its grace, once: a FAILED run and one monitor_missed alert', async () => {
    const { clock, store, newEngine } = await setup();
    const engine = newEngine('s1');
    await engine.start();
    await clock.advance(9 * MINUTE + 30_000 + 2 * MINUTE - 5_000); // 00:11:55, before 00:10 + 2m
    expect(await runsOf(store)).toEqual([]);
    await clock.advance(10_000); // 00:12:05
    const [missed] = await runsOf(store);
    expect(missed).toMatchObject({
      state: 'FAILED',
      trigger: 'external',
      logicalTime: Date.parse('2026-03-01T00:10:00Z'),
    });
    const [inst] = (await engine.getRun(missed?.id as number)).instances;
    expect([missed?.reason, inst?.reason]).toEqual(Array(2).fill('missed: no ping by 00:12 (due at 00:10, grace 2m)'));
    await clock.advance(MINUTE);
    await engine.alertsIdle();
    expect(await runsOf(store)).toHaveLength(1);
    const alerts = await missedAlerts(store);
    expect(alerts.map((a) => a.runId)).toEqual([missed?.id]);
    // a missed fire is told by monitor_missed, not also by run_failed
    expect((await store.listAlerts({ limit: 100 })).filter((a) => a.rule === 'run_failed')).toEqual([]);
  });

  it('fires missed while the engine was down are raised once on its return; a second scheduler adds none', async () => {
    const { clock, store, newEngine } = await setup();
    const first = newEngine('s1');
    await first.start();
    await first.stop(0);
    clock.jump(35 * MINUTE); // 00:35:30: the fires of 00:10, 00:20 and 00:30 passed their grace unseen
    const again = newEngine('s2');
    await again.start();
    await again.alertsIdle();
    const times = (await runsOf(store)).map((r) => new Date(r.logicalTime).toISOString().slice(11, 16)).sort();
    expect(times).toEqual(['00:10', '00:20', '00:30']);
    expect(await missedAlerts(store)).toHaveLength(3);
    await again.stop(0);
    // another scheduler, starting over from a schedule whose last check it did not see: the
    // store's (schedule, fire) key keeps each miss one run and one alert
    await store.setScheduleLastFire((await store.listSchedules())[0]?.id as number, T0 - 1);
    const third = newEngine('s3');
    await third.start();
    await third.alertsIdle();
    expect(await runsOf(store)).toHaveLength(3);
    expect(await missedAlerts(store)).toHaveLength(3);
  });

  it('a start with no end fails once the next run is due past its grace: "no end reported"', async () => {
    const { clock, store, newEngine } = await setup();
    const engine = newEngine('s1');
    await engine.start();
    await clock.advance(9 * MINUTE + 30_000); // 00:10
    const started = await engine.ping('backup', { what: 'start', from: 'x' });
    await clock.advance(11 * MINUTE); // 00:21: the 00:20 run is due, its grace not passed
    expect((await engine.getRun(started.run.id)).run.state).toBe('RUNNING');
    await clock.advance(MINUTE + 10_000); // 00:22:10
    const { run, instances } = await engine.getRun(started.run.id);
    expect(run.state).toBe('FAILED');
    expect(instances[0]?.reason).toMatch(
      /^no end reported: started at 00:10, still running when the next run was due \(00:22/,
    );
    // and the 00:20 fire, which no run met, is missed
    expect((await runsOf(store)).map((r) => r.state)).toEqual(['FAILED', 'FAILED']);
  });

  it('a run far longer than the median of its history raises run_duration_anomaly, one within it does not', async () => {
    const { clock, store, newEngine } = await setup('workflow: backup\nschedule: "0 3 * * *"\nmonitor: {}\n');
    const engine = newEngine('s1');
    const runFor = async (ms: number) => {
      const { run } = await engine.ping('backup', { what: 'start', from: 'x' });
      await clock.advance(ms);
      await engine.ping('backup', { what: 'success', runId: run.id, from: 'x' });
      await engine.alertsIdle();
    };
    for (const s of [10, 12, 9, 10, 10]) await runFor(s * 1000);
    await runFor(25_000); // within 3× the median (10 s)
    expect((await store.listAlerts({ limit: 100 })).filter((a) => a.rule === 'run_duration_anomaly')).toEqual([]);
    await runFor(40_000);
    const [alert] = (await store.listAlerts({ limit: 100 })).filter((a) => a.rule === 'run_duration_anomaly');
    expect(alert?.title).toMatch(/took 40s, far longer than usual \(median 10s\)/);
  });
});

// The scheduler under a fake clock with a real SQLite store: fires happen at their exact time
// (look-ahead timers, not the next scan), misfire policies after a 3-hour downtime, and one run
// per fire even with two schedulers.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { MisfirePolicy } from '../../engine/api/types.ts';
import type { EngineConfig } from '../../engine/core/model/config.ts';
import { DEFAULT_ALERT_SETTINGS } from '../../engine/core/alerts/alert-settings.ts';
import { Engine, type EngineDeps } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';

const T0 = Date.parse('2026-03-01T00:30:00Z');
const HOUR = 3_600_000;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  cron: string,
  misfire: MisfirePolicy = 'run_once',
  overlap = 'parallel',
  o: { timezone?: string; t0?: number; config?: Partial<EngineConfig>; alerts?: EngineDeps['alerts'] } = {},
) {
  const dir = tempDir();
  const clock = new FakeClock(o.t0 ?? T0);
  const alerts: string[] = [];
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
      // Scans every 5 s (the look-ahead of 10 s still plans every fire): fewer scans per fake hour.
      config: { tickMs: 5_000, ...o.config },
      onAlert: (m) => alerts.push(m),
      alerts: o.alerts,
      // Scheduler only: instances stay WAITING, which is all these tests look at.
    });
    engines.push(engine);
    return engine;
  };
  cleanups.push(async () => {
    for (const e of engines) await e.stop(0);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const { spec } = parseWorkflowFile(
    `workflow: hourly\nschedule: { cron: "${cron}", timezone: ${o.timezone ?? 'UTC'}, misfire: ${misfire}, overlap: ${overlap} }\ntasks:\n  a: { command: "true" }\n`,
    { defaultTimezone: 'UTC' },
  );
  await newEngine('setup').apply(spec, 'test');
  return { clock, store, newEngine, alerts };
}

const logicalTimes = async (store: SqlStore) =>
  (await store.listRuns({ limit: 1000 })).map((r) => new Date(r.logicalTime).toISOString()).sort();

describe('scheduler with a fake clock', () => {
  it('fires at the exact fire time, within the look-ahead window, not at the next scan', async () => {
    const { clock, store, newEngine } = await setup('*/5 * * * * *'); // every 5 s
    const engine = newEngine('s1');
    await engine.start();
    await clock.advance(4_000); // 00:30:04 — nothing yet
    expect(await store.listRuns({})).toHaveLength(0);
    await clock.advance(1_000); // 00:30:05
    const runs = await store.listRuns({});
    expect(runs).toHaveLength(1);
    expect(runs[0]?.logicalTime).toBe(T0 + 5_000);
    expect(runs[0]?.createdAt).toBe(T0 + 5_000); // created on time, not up to a tick later
    expect(runs[0]?.trigger).toBe('cron');
  });

  it.each([
    ['run_once', ['2026-03-01T03:00:00.000Z']],
    ['skip', []],
    ['all', ['2026-03-01T01:00:00.000Z', '2026-03-01T02:00:00.000Z', '2026-03-01T03:00:00.000Z']],
  ] as const)('after a 3-hour downtime, misfire %s catches up %j', async (policy, expected) => {
    const { clock, store, newEngine } = await setup('0 * * * *', policy);
    await clock.advance(3 * HOUR); // the engine is down: nothing runs
    expect(await store.listRuns({})).toHaveLength(0);
    await newEngine('s1').start();
    expect(await logicalTimes(store)).toEqual(expected);
    if (policy === 'skip') {
      const audit = await store.listAudit(10);
      expect(audit.find((a) => a.action === 'misfire.skip')?.detail).toMatch(
        /^3 missed fire\(s\) up to 2026-03-01T03:00:00.000Z not run/,
      );
    }
    // After catching up, the schedule carries on normally at 04:00.
    await clock.advance(HOUR);
    expect((await logicalTimes(store)).at(-1)).toBe('2026-03-01T04:00:00.000Z');
    expect(await logicalTimes(store)).toHaveLength(expected.length + 1);
  });

  it('fires a skip policy dropped raise misfire_skipped once, recorded (unsent: no channel here)', async () => {
    const { clock, store, newEngine } = await setup('0 * * * *', 'skip', 'parallel', {
      alerts: {
        settings: { ...DEFAULT_ALERT_SETTINGS, workflows: { channels: [], rules: ['misfire_skipped'] } },
        channels: [],
      },
    });
    await clock.advance(3 * HOUR);
    const engine = newEngine('s1');
    await engine.start();
    await clock.advance(HOUR);
    await engine.alertsIdle();
    expect((await store.listAlerts({})).map((a) => [a.rule, a.workflow, a.state, a.title])).toEqual([
      [
        'misfire_skipped',
        'hourly',
        'unsent',
        'hourly: 3 missed fire(s) up to 2026-03-01T03:00:00.000Z not run (misfire policy skip)',
      ],
    ]);
  });

  it.each(['skip', 'run_once'] as const)(
    'misfire %s: a second leader deciding on a stale view of the schedule is refused (one decision, no second audit)',
    async (policy) => {
      const { clock, store, newEngine } = await setup('0 * * * *', policy);
      await clock.advance(3 * HOUR); // the engines are down: the fires of 01:00, 02:00, 03:00 are missed
      // What a leader read before another took over (its pass outlived its lease): the schedule
      // as it was before the new leader decided on its missed fires.
      const stale = await store.listSchedules();
      await newEngine('s1').start();
      const audits = async () => (await store.listAudit(100)).filter((a) => a.action === 'misfire.skip');
      expect(await audits()).toHaveLength(1);
      const runs = await logicalTimes(store);
      // The deposed leader's scan, with its own coordinator (it still believes it leads).
      const deposed = new Proxy(store, {
        get(target, key, receiver) {
          if (key === 'listSchedules') return () => Promise.resolve(stale);
          const value: unknown = Reflect.get(target, key, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const engine = new Engine({
        ...nodeHostDefaults(),
        store: deposed,
        coordinator: new MemoryCoordinator({ now: () => clock.now() }),
        runner: new NodeProcessRunner(),
        clock,
        nodeId: 's2',
        config: { tickMs: 5_000 },
      });
      cleanups.unshift(() => engine.stop(0));
      await engine.start();
      expect(await audits()).toHaveLength(1);
      expect(await logicalTimes(store)).toEqual(runs);
    },
  );

  it('two schedulers on one store create exactly one run per fire', async () => {
    const { clock, store, newEngine } = await setup('* * * * * *'); // every second
    // Separate coordinators: both believe they lead (a split brain); the DB key must hold.
    await newEngine('s1').start();
    await newEngine('s2').start();
    await clock.advance(30_000);
    const times = await logicalTimes(store);
    expect(times).toHaveLength(30);
    expect(new Set(times).size).toBe(30);
  });

  it('a disabled workflow does not fire; re-enabled it resumes from now without a catch-up', async () => {
    const { clock, store, newEngine } = await setup('0 * * * *', 'all');
    const engine = newEngine('s1');
    await engine.start();
    await engine.setEnabled('hourly', false, 'test');
    await clock.advance(3 * HOUR);
    expect(await store.listRuns({})).toHaveLength(0);
    await engine.setEnabled('hourly', true, 'test');
    await clock.advance(HOUR);
    expect(await logicalTimes(store)).toEqual(['2026-03-01T04:00:00.000Z']);
  });

  it('a daily schedule in a zone with a 30-minute DST shift keeps firing across the change (Australia/Lord_Howe)', async () => {
    // Scans every hour with a two-hour look-ahead: every fire still gets its exact timer, in few scans.
    const { clock, store, newEngine, alerts } = await setup('10 22 * * *', 'run_once', 'parallel', {
      timezone: 'Australia/Lord_Howe',
      t0: Date.parse('2028-03-31T00:00:00Z'),
      config: { tickMs: HOUR, lookAheadMs: 2 * HOUR },
    });
    await newEngine('s1').start();
    await clock.advance(4 * 24 * HOUR);
    expect(await logicalTimes(store)).toEqual([
      '2028-03-31T11:10:00.000Z',
      '2028-04-01T11:10:00.000Z',
      '2028-04-02T11:40:00.000Z', // summer time ended on 2 April: +11 → +10:30
      '2028-04-03T11:40:00.000Z',
    ]);
    expect(alerts).toEqual([]);
  });

  it('a schedule that cannot fire is an alert (once) and a visible state; the other schedules fire on', async () => {
    const { clock, store, newEngine, alerts } = await setup('0 * * * *');
    const engine = newEngine('s1');
    // Created after "hourly": an every-minute workflow, which must keep firing whatever "hourly" does.
    const { spec } = parseWorkflowFile(
      'workflow: minutely\nschedule: { cron: "* * * * *", timezone: UTC }\ntasks:\n  a: { command: "true" }\n',
      { defaultTimezone: 'UTC' },
    );
    await engine.apply(spec, 'test');
    // A zone this runtime does not know (written by another version, or dropped from the tz database).
    await store.db
      .updateTable('schedule_plan')
      .set({ timezone: 'Mars/Olympus_Mons' })
      .where('cron', '=', '0 * * * *')
      .execute();
    await engine.start();
    await clock.advance(3 * 60_000);
    const runs = await store.listRuns({ limit: 100 });
    expect(runs.map((r) => r.workflowName)).toEqual(['minutely', 'minutely', 'minutely']);
    const broken = alerts.filter((a) => a.startsWith('workflow hourly: '));
    expect(broken).toEqual([
      'workflow hourly: its schedule "0 * * * *" (Mars/Olympus_Mons) cannot fire: unknown time zone "Mars/Olympus_Mons": use an IANA name such as "Europe/Berlin" or "UTC"',
    ]);
    const listed = await engine.listWorkflows();
    const hourly = listed.find((w) => w.name === 'hourly');
    expect(hourly?.scheduleError).toBe(broken[0]?.slice('workflow hourly: '.length));
    expect(hourly?.nextFireAt).toBeUndefined();
    expect(listed.find((w) => w.name === 'minutely')?.scheduleError).toBeUndefined();
    // Fixed (a new apply), it fires again and the state clears.
    const { spec: fixed } = parseWorkflowFile(
      'workflow: hourly\nschedule: { cron: "0 * * * *", timezone: UTC }\ntasks:\n  a: { command: "true" }\n',
      { defaultTimezone: 'UTC' },
    );
    await engine.apply(fixed, 'test');
    await clock.advance(HOUR);
    expect((await engine.listWorkflows()).find((w) => w.name === 'hourly')?.scheduleError).toBeUndefined();
    expect(
      (await store.listRuns({ workflowName: 'hourly' })).map((r) => new Date(r.logicalTime).toISOString()),
    ).toEqual(['2026-03-01T01:00:00.000Z']);
  });
});

// Backfills through the real engine (a solo engine on a SQLite file, real processes): one run per
// fire of the schedule in the window, oldest first, never more than maxParallel live (watched at
// every run's start from the runs topic and by the tasks themselves); a dry run lists the times
// and the existing ones; refusals say why and how; cancel stops it as a whole; a re-run runs only
// its failed runs; a backfill's runs wait for their upstreams in other workflows by logical date.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackfillDetail } from '../../engine/api/backfill.ts';
import { AxError } from '../../engine/api/errors.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t?.close();
});

const HOUR = 3_600_000;
const FROM = Date.UTC(2026, 10, 1, 0, 0, 0);

async function ended(id: number, timeoutMs = 60_000): Promise<BackfillDetail> {
  await waitFor(async () => (await t.engine.getBackfill(id)).backfill.state !== 'RUNNING', {
    timeoutMs,
    intervalMs: 50,
    message: `backfill #${id} did not end`,
  });
  return t.engine.getBackfill(id);
}

async function refusal(p: Promise<unknown>): Promise<AxError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AxError);
  return err as AxError;
}

// POSIX shell commands (sh -c, exit, echo): skipped on Windows only, where AX runs no tasks.
describe.skipIf(process.platform === 'win32')('engine: backfills', () => {
  it('30 hourly fires with maxParallel 3: one run each, oldest first, never more than 3 live', async () => {
    const dir = path.join(t.dir, 'live');
    fs.mkdirSync(dir);
    // Each task counts the tasks live beside it (a file each while it runs) and records the count.
    await t.apply(`
workflow: hourly
schedule: { cron: "0 * * * *", timezone: UTC, overlap: parallel }
tasks:
  work:
    command: touch ${dir}/$AX_RUN_ID; ls ${dir} | grep -v seen | wc -l >> ${dir}/seen; sleep 0.3; rm ${dir}/$AX_RUN_ID
`);
    // the store's live count at each run's start, as the runs topic tells it
    const liveAtStart: number[] = [];
    const told: string[] = [];
    let backfillId = 0;
    const stop = await t.engine.subscribe(['runs'], (e: EngineEvent) => {
      if (e.type === 'backfill' && e.backfillId === backfillId) told.push(e.state);
      if (e.type === 'instance' && e.state === 'RUNNING' && backfillId)
        void t.engine.getBackfill(backfillId).then((d) => liveAtStart.push(d.backfill.running));
    });
    const plan = await t.engine.backfill(
      { workflow: 'hourly', from: FROM, to: FROM + 29 * HOUR + 59 * 60_000, maxParallel: 3 },
      'test',
    );
    backfillId = plan.backfill?.id as number;
    expect(plan.total).toBe(30);
    expect(plan.logicalTimes).toEqual(Array.from({ length: 30 }, (_, i) => FROM + i * HOUR));
    const detail = await ended(backfillId);
    stop();
    expect(detail.backfill).toMatchObject({ state: 'SUCCESS', total: 30, done: 30, failed: 0, running: 0 });
    expect(detail.runs).toHaveLength(30);
    // the runs topic told of its progress and its end, so a page can refresh
    expect(told.at(-1)).toBe('SUCCESS');
    expect(told.filter((s) => s === 'RUNNING').length).toBeGreaterThan(1);
    expect(detail.runs.every((r) => r.trigger === 'backfill' && r.backfillId === backfillId)).toBe(true);
    // oldest first: the runs were created in logical-time order
    const byId = [...detail.runs].sort((a, b) => a.id - b.id).map((r) => r.logicalTime);
    expect(byId).toEqual(plan.logicalTimes);
    expect(new Set(detail.runs.map((r) => r.logicalTime)).size).toBe(30);
    const seen = fs.readFileSync(path.join(dir, 'seen'), 'utf8').trim().split('\n').map(Number);
    expect(seen).toHaveLength(30);
    expect(Math.max(...seen)).toBeLessThanOrEqual(3);
    expect(liveAtStart.length).toBeGreaterThan(0);
    expect(Math.max(...liveAtStart)).toBeLessThanOrEqual(3);
    // with 3 allowed, some did run side by side
    expect(Math.max(...liveAtStart)).toBeGreaterThan(1);
    const audit = await t.engine.listAudit(50);
    expect(audit.find((a) => a.action === 'backfill.create' && a.object === `backfill:${backfillId}`)?.detail).toMatch(
      /30 run\(s\) from 2026-11-01T00:00:00.000Z to 2026-11-02T05:00:00.000Z, at most 3 at once/,
    );
  });

  it('a dry run lists the times and which exist; existing times are skipped unless rerunExisting', async () => {
    await t.apply(`
workflow: daily
schedule: { cron: "0 2 * * *", timezone: UTC }
tasks:
  work: { command: "true" }
`);
    const first = await t.engine.backfill({ workflow: 'daily', from: FROM, to: FROM + 2 * 86_400_000 - 1 }, 'test');
    await ended(first.backfill?.id as number);
    const dry = await t.engine.backfill(
      { workflow: 'daily', from: FROM, to: FROM + 4 * 86_400_000 - 1, dryRun: true },
      'test',
    );
    const day = (n: number) => FROM + n * 86_400_000 + 2 * HOUR;
    expect(dry).toEqual({ logicalTimes: [day(2), day(3)], skippedExisting: [day(0), day(1)], total: 2 });
    expect(dry.backfill).toBeUndefined();
    const again = await t.engine.backfill(
      { workflow: 'daily', from: FROM, to: FROM + 4 * 86_400_000 - 1, dryRun: true, rerunExisting: true },
      'test',
    );
    expect(again.logicalTimes).toEqual([day(0), day(1), day(2), day(3)]);
    // what a running backfill of the workflow will make is not made twice (held meanwhile: disabled)
    await t.engine.setEnabled('daily', false, 'test');
    const busy = await t.engine.backfill(
      { workflow: 'daily', from: FROM + 2 * 86_400_000, to: FROM + 3 * 86_400_000 - 1 },
      'test',
    );
    const overlapping = await t.engine.backfill(
      { workflow: 'daily', from: FROM, to: FROM + 4 * 86_400_000 - 1, dryRun: true },
      'test',
    );
    expect(overlapping.logicalTimes).toEqual([day(3)]);
    expect(overlapping.notes).toEqual([
      `1 logical time(s) left to running backfill #${busy.backfill?.id}, which will run them`,
    ]);
    await t.engine.setEnabled('daily', true, 'test');
    await ended(busy.backfill?.id as number);
    // a dry run creates nothing
    expect((await t.engine.listBackfills({ workflow: 'daily' })).map((b) => b.id)).toEqual([
      busy.backfill?.id,
      first.backfill?.id,
    ]);
  });

  it('refuses what cannot be: over 1,000 runs without force (saying how many), no step, parallel against overlap', async () => {
    await t.apply(`
workflow: minutely
schedule: { cron: "* * * * *", timezone: UTC, overlap: skip }
tasks:
  work: { command: "true" }
`);
    await t.apply(`workflow: unscheduled\ntasks:\n  work: { command: "true" }\n`);
    const many = await refusal(
      t.engine.backfill({ workflow: 'minutely', from: FROM, to: FROM + 1440 * 60_000 - 1 }, 'test'),
    );
    expect(many.message).toMatch(/would create 1440 runs, over the limit of 1000: .*--force/);
    // each refusal names its field, so a form can show it there
    expect(many.problems).toEqual([{ path: 'force', message: many.message }]);
    const forced = await t.engine.backfill(
      { workflow: 'minutely', from: FROM, to: FROM + 1440 * 60_000 - 1, force: true, dryRun: true },
      'test',
    );
    expect(forced.total).toBe(1440);
    expect(
      (await refusal(t.engine.backfill({ workflow: 'unscheduled', from: FROM, to: FROM + HOUR }, 'test'))).message,
    ).toMatch(/^every: workflow "unscheduled" has no schedule.*--every 1d/);
    expect(
      (await refusal(t.engine.backfill({ workflow: 'minutely', from: FROM, to: FROM + HOUR, maxParallel: 2 }, 'test')))
        .message,
    ).toMatch(/overlap: skip, so its runs must not overlap/);
    expect(
      (await refusal(t.engine.backfill({ workflow: 'unscheduled', from: FROM, to: FROM + HOUR, every: '1x' }, 'test')))
        .message,
    ).toMatch(/^every: "1x" is not a duration/);
    expect(
      (await refusal(t.engine.backfill({ workflow: 'minutely', from: FROM + HOUR, to: FROM }, 'test'))).message,
    ).toMatch(/is before from/);
    const every = await t.engine.backfill(
      { workflow: 'unscheduled', from: FROM, to: FROM + 3 * HOUR, every: '1h', dryRun: true },
      'test',
    );
    expect(every.logicalTimes).toEqual([FROM, FROM + HOUR, FROM + 2 * HOUR, FROM + 3 * HOUR]);
  });

  it('cancels as a whole: its live runs end CANCELLED and no more are created; one run cancelled alone does not', async () => {
    await t.apply(`
workflow: slowdays
tasks:
  work: { command: "sleep 30" }
`);
    const plan = await t.engine.backfill(
      { workflow: 'slowdays', from: FROM, to: FROM + 9 * 86_400_000, every: '1d', maxParallel: 2 },
      'test',
    );
    const id = plan.backfill?.id as number;
    await waitFor(async () => (await t.engine.getBackfill(id)).runs.filter((r) => r.state === 'RUNNING').length === 2, {
      timeoutMs: 20_000,
      message: 'two runs of the backfill running',
    });
    // one run cancelled alone: the backfill goes on with the next day
    const [firstRun] = (await t.engine.getBackfill(id)).runs;
    await t.engine.cancelRun(firstRun?.id as number, { actor: 'test' });
    await waitFor(async () => (await t.engine.getBackfill(id)).runs.length === 3, {
      timeoutMs: 20_000,
      message: 'the backfill to create its third run',
    });
    expect((await t.engine.getBackfill(id)).backfill.state).toBe('RUNNING');
    const cancelled = await t.engine.cancelBackfill(id, 'test');
    expect(cancelled.backfill.state).toBe('CANCELLED');
    expect(cancelled.runs.map((r) => r.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
    expect((await refusal(t.engine.cancelBackfill(id, 'test'))).message).toMatch(
      /is CANCELLED: only a running backfill/,
    );
    // ticks go by: still three runs (a tick is 200 ms; a few of them would have made more)
    await t.engine.catchUpSchedules();
    await t.engine.catchUpSchedules();
    expect((await t.engine.getBackfill(id)).runs).toHaveLength(3);
    expect(
      (await t.engine.listAudit(20)).some((a) => a.action === 'backfill.cancel' && a.object === `backfill:${id}`),
    ).toBe(true);
  });

  it('re-runs only its failed runs, in place, and ends by what they did', async () => {
    const flag = path.join(t.dir, 'fixed');
    // fails on the second day until the flag exists
    await t.apply(`
workflow: flaky
tasks:
  work: { command: 'if [ "$AX_LOGICAL_TIME" = "2026-11-02T00:00:00.000Z" ] && [ ! -e ${flag} ]; then exit 3; fi' }
`);
    const plan = await t.engine.backfill(
      { workflow: 'flaky', from: FROM, to: FROM + 2 * 86_400_000, every: '1d' },
      'test',
    );
    const id = plan.backfill?.id as number;
    const first = await ended(id);
    expect(first.backfill).toMatchObject({ state: 'FAILED', done: 3, failed: 1 });
    const failedRun = first.runs.find((r) => r.state === 'FAILED');
    expect(new Date(failedRun?.logicalTime as number).toISOString()).toBe('2026-11-02T00:00:00.000Z');
    fs.writeFileSync(flag, '');
    await t.engine.rerunBackfillFailed(id, 'test');
    const second = await ended(id);
    expect(second.backfill).toMatchObject({ state: 'SUCCESS', done: 3, failed: 0 });
    // the same three runs: the failed one ran again in place, the others were left alone
    expect(second.runs.map((r) => r.id)).toEqual(first.runs.map((r) => r.id));
    const again = (await t.engine.getRun(failedRun?.id as number)).instances;
    expect(again.map((i) => [i.attempt, i.state])).toEqual([
      [1, 'FAILED'],
      [2, 'SUCCESS'],
    ]);
    for (const r of second.runs.filter((r) => r.id !== failedRun?.id))
      expect((await t.engine.getRun(r.id)).instances).toHaveLength(1);
    expect((await refusal(t.engine.rerunBackfillFailed(id, 'test'))).message).toMatch(/has no failed run/);
    expect((await t.engine.listAudit(20)).find((a) => a.action === 'backfill.rerun')?.detail).toBe(
      '1 failed run(s) of flaky',
    );
  });

  it('passes its params to every run (checked first: a wrong one refuses the backfill, naming it)', async () => {
    const out = path.join(t.dir, 'regions');
    await t.apply(`
workflow: regional
params:
  region: { type: enum, choices: [eu, us], default: eu }
  limit: { type: number, min: 1, max: 100, default: 10 }
tasks:
  work: { command: 'echo "$AX_LOGICAL_TIME $AX_PARAM_REGION $AX_PARAM_LIMIT" >> ${out}' }
`);
    const bad = await refusal(
      t.engine.backfill(
        { workflow: 'regional', from: FROM, to: FROM + HOUR, every: '1h', params: { region: 'apac' } },
        'test',
      ),
    );
    expect(bad.code).toBe('validation');
    expect(bad.message).toMatch(
      /^backfill of "regional" refused: a param is wrong:\n.*params\.region: "apac" is not one of eu, us/,
    );
    const plan = await t.engine.backfill(
      { workflow: 'regional', from: FROM, to: FROM + HOUR, every: '1h', params: { region: 'us', limit: '25' } },
      'test',
    );
    expect(plan.backfill?.params).toEqual({ region: 'us', limit: 25 });
    const detail = await ended(plan.backfill?.id as number);
    expect(detail.runs.map((r) => r.params)).toEqual([
      { region: 'us', limit: 25 },
      { region: 'us', limit: 25 },
    ]);
    expect(fs.readFileSync(out, 'utf8').trim().split('\n').sort()).toEqual([
      '2026-11-01T00:00:00.000Z us 25',
      '2026-11-01T01:00:00.000Z us 25',
    ]);
  });

  it('a run it cannot create (its params no longer fit the workflow) is said once, not every tick; cancel ends it', async () => {
    await t.apply(`workflow: reshaped\nparams:\n  region: { type: string }\ntasks:\n  work: { command: "true" }\n`);
    await t.engine.setEnabled('reshaped', false, 'test');
    const plan = await t.engine.backfill(
      { workflow: 'reshaped', from: FROM, to: FROM, every: '1h', params: { region: 'eu' } },
      'test',
    );
    const id = plan.backfill?.id as number;
    // the workflow loses its param: the stored value is refused at each run's creation
    await t.apply(`workflow: reshaped\ntasks:\n  work: { command: "true" }\n`);
    await t.engine.setEnabled('reshaped', true, 'test');
    const said = () => t.alerts.filter((a) => a.startsWith(`backfill #${id}: `));
    await waitFor(() => said().length > 0, { timeoutMs: 10_000, message: 'the alert' });
    await t.engine.catchUpSchedules();
    await t.engine.catchUpSchedules();
    expect(said()).toHaveLength(1);
    expect(said()[0]).toMatch(/region/);
    expect((await t.engine.cancelBackfill(id, 'test')).backfill.state).toBe('CANCELLED');
  });

  it('holds while its workflow is disabled, goes on when enabled; a removed workflow ends it CANCELLED', async () => {
    await t.apply(`workflow: held\ntasks:\n  work: { command: "true" }\n`);
    await t.engine.setEnabled('held', false, 'test');
    const plan = await t.engine.backfill({ workflow: 'held', from: FROM, to: FROM + 2 * HOUR, every: '1h' }, 'test');
    const id = plan.backfill?.id as number;
    // two ticks of the leader's own: nothing created while disabled
    await t.engine.catchUpSchedules();
    await t.engine.catchUpSchedules();
    expect((await t.engine.getBackfill(id)).runs).toEqual([]);
    await t.engine.setEnabled('held', true, 'test');
    expect((await ended(id)).backfill).toMatchObject({ state: 'SUCCESS', done: 3 });

    await t.apply(`workflow: gone\ntasks:\n  work: { command: "true" }\n`);
    await t.engine.setEnabled('gone', false, 'test');
    const doomed = await t.engine.backfill({ workflow: 'gone', from: FROM, to: FROM, every: '1h' }, 'test');
    await t.engine.removeWorkflow('gone', 'test');
    await t.engine.catchUpSchedules();
    expect((await t.engine.listBackfills({ workflow: 'gone' })).map((b) => [b.id, b.state])).toEqual([
      [doomed.backfill?.id, 'CANCELLED'],
    ]);
  });

  it("a backfill's runs wait for their upstreams in other workflows by logical date", async () => {
    await t.apply(`
workflow: upstreamwf
schedule: { cron: "0 1 * * *", timezone: UTC, overlap: parallel }
tasks:
  extract: { command: "true" }
`);
    await t.apply(`
workflow: downstreamwf
schedule: { cron: "0 5 * * *", timezone: UTC, overlap: parallel }
tasks:
  load: { command: "true", upstream: [upstreamwf.extract] }
`);
    const window = { from: FROM, to: FROM + 3 * 86_400_000 - 1 };
    const down = await t.engine.backfill({ workflow: 'downstreamwf', ...window, maxParallel: 3 }, 'test');
    const downId = down.backfill?.id as number;
    // each waits for its own day's extract
    await waitFor(
      async () => {
        const { runs } = await t.engine.getBackfill(downId);
        if (runs.length !== 3) return false;
        const loads = await Promise.all(runs.map(async (r) => (await t.engine.getRun(r.id)).instances[0]));
        return loads.every(
          (i) => i?.state === 'WAITING' && /^waiting for upstreamwf\.extract of 2026-11-0[123]$/.test(i.reason ?? ''),
        );
      },
      { timeoutMs: 20_000, message: 'the three downstream runs to wait for their days' },
    );
    // only the second day's upstream: only the second day's load goes
    const up = await t.engine.backfill(
      { workflow: 'upstreamwf', from: FROM + 86_400_000, to: FROM + 2 * 86_400_000 - 1 },
      'test',
    );
    await ended(up.backfill?.id as number);
    await waitFor(
      async () =>
        (await t.engine.getBackfill(downId)).runs.find((r) => r.logicalTime === FROM + 86_400_000 + 5 * HOUR)?.state ===
        'SUCCESS',
      { timeoutMs: 20_000, message: "the second day's load to run" },
    );
    const states = (await t.engine.getBackfill(downId)).runs.map((r) => r.state);
    expect(states).toEqual(['RUNNING', 'SUCCESS', 'RUNNING']);
    await t.engine.cancelBackfill(downId, 'test');
  });
});

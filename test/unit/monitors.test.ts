// Monitors' pure parts (design.md §13): the `monitor:` of a workflow file (its grace, what it
// refuses, its round trip), the duration rule, a reported log's cut and what `ax ping` accepts.
import { describe, expect, it } from 'vitest';
import { MAX_PING_LOG_BYTES } from '../../engine/api/monitors.ts';
import { durationAnomaly, median } from '../../engine/core/model/duration-anomaly.ts';
import { cutLog } from '../../engine/core/runs/external-runs.ts';
import { clockTime, meetsFire } from '../../engine/core/scheduling/monitor-check.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { parsePingWhat } from '../../engine/hosts/cli/commands-monitors.ts';
import { parse, problems } from '../helpers/workflow-text.ts';

describe('the monitor: of a workflow file', () => {
  it('reads the grace, 5m when it is left out; a monitor has no tasks', () => {
    const { spec } = parse('workflow: backup\nschedule: "0 2 * * *"\nmonitor: { grace: 10m }\n');
    expect(spec).toMatchObject({ name: 'backup', monitor: { graceMs: 600_000 }, tasks: [] });
    expect(parse('workflow: b\nschedule: "0 2 * * *"\nmonitor: {}\n').spec.monitor).toEqual({ graceMs: 300_000 });
    expect(parse('workflow: b\nschedule: "0 2 * * *"\nmonitor:\n').spec.monitor).toEqual({ graceMs: 300_000 });
  });

  it('refuses a monitor without a schedule, with tasks, with on_event or on, or a bad grace', () => {
    expect(problems('workflow: b\nmonitor: { grace: 1m }\n')).toEqual([
      {
        path: 'schedule',
        message:
          'missing: a monitor needs the schedule its job runs on (e.g. schedule: "0 2 * * *"), to know when a run is due',
      },
    ]);
    expect(problems('workflow: b\nschedule: "0 2 * * *"\nmonitor: {}\ntasks:\n  a: { command: x }\n')).toEqual([
      {
        path: 'tasks',
        message:
          'a monitor runs nothing itself (its runs are reported by "ax ping" or "ax wrap"): remove "tasks", or remove "monitor" to run them here',
      },
    ]);
    expect(problems('workflow: b\nschedule: "0 2 * * *"\non_event: e\nmonitor: {}\n').map((p) => p.path)).toEqual([
      'on_event',
    ]);
    expect(problems('workflow: b\nschedule: "0 2 * * *"\non: engine_start\nmonitor: {}\n').map((p) => p.path)).toEqual([
      'on',
    ]);
    expect(problems('workflow: b\nschedule: "0 2 * * *"\nmonitor: { grace: soon }\n').map((p) => p.path)).toEqual([
      'monitor.grace',
    ]);
    expect(problems('workflow: b\nschedule: "0 2 * * *"\nmonitor: { grase: 1m }\n')[0]?.message).toContain(
      "did you mean 'grace'?",
    );
    expect(problems('workflow: b\nschedule: "0 2 * * *"\nmonitor: 10m\n')[0]).toMatchObject({ path: 'monitor' });
  });

  it('takes the misfire and overlap an import of a crontab writes (they start nothing)', () => {
    const { spec } = parse(
      'workflow: b\nschedule: { cron: "0 2 * * *", misfire: skip, overlap: parallel }\nmonitor: {}\n',
    );
    expect(spec.schedule).toMatchObject({ misfire: 'skip', overlap: 'parallel' });
  });

  it('round-trips: written back with its grace and no tasks, read again the same', () => {
    const { spec } = parse('workflow: backup\nschedule: "0 2 * * *"\nmonitor: { grace: 90s }\n');
    const text = serializeWorkflow(spec);
    expect(text).toBe(
      'workflow: backup\nschedule:\n  cron: 0 2 * * *\n  timezone: Europe/Berlin\nmonitor:\n  grace: 1m30s\n',
    );
    expect(parse(text).spec).toEqual(spec);
  });
});

describe('the duration rule', () => {
  it('judges a run outside [median / 3, median × 3] of the last 20, with at least 5', () => {
    const history = [10, 11, 9, 10, 12].map((s) => s * 1000);
    expect(durationAnomaly(31_000, history)).toEqual({ kind: 'longer', medianMs: 10_000, runs: 5 });
    expect(durationAnomaly(3_000, history)).toEqual({ kind: 'shorter', medianMs: 10_000, runs: 5 });
    expect(durationAnomaly(30_000, history)).toBeUndefined();
    expect(durationAnomaly(3_400, history)).toBeUndefined();
    expect(durationAnomaly(1_000_000, history.slice(0, 4))).toBeUndefined();
    // only the newest 20 count
    expect(durationAnomaly(100_000, [...Array(20).fill(50_000), ...Array(30).fill(1_000)])).toBeUndefined();
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('a reported log', () => {
  it('keeps its last MAX_PING_LOG_BYTES from a line start, and says how much was cut', () => {
    expect(cutLog('short')).toBeUndefined();
    const text = `${'a'.repeat(100)}\n${'b'.repeat(MAX_PING_LOG_BYTES - 10)}\nend\n`;
    const cut = cutLog(text);
    // the last MAX_PING_LOG_BYTES begin inside the a's: kept from the next line start
    expect(cut?.kept).toBe(`${'b'.repeat(MAX_PING_LOG_BYTES - 10)}\nend\n`);
    expect(cut?.cutBytes).toBe(101);
    // a multi-byte character is never split
    const wide = cutLog('é'.repeat(10), 5);
    expect(wide?.kept).toBe('éé');
  });
});

describe('which fire a reported run meets', () => {
  const run = (startedAt: number, extra: Partial<RunRecord> = {}) =>
    ({ trigger: 'external', startedAt, createdAt: startedAt, ...extra }) as RunRecord;
  it('from a minute before the fire (at most half the gap to the one before) to fire + grace', () => {
    const fire = 3_600_000;
    expect(meetsFire(run(fire - 60_000), fire, fire - 3_600_000, 300_000)).toBe(true);
    expect(meetsFire(run(fire - 61_000), fire, fire - 3_600_000, 300_000)).toBe(false);
    expect(meetsFire(run(fire + 300_000), fire, fire - 3_600_000, 300_000)).toBe(true);
    expect(meetsFire(run(fire + 300_001), fire, fire - 3_600_000, 300_000)).toBe(false);
    // fires a minute apart: 30 s early at most
    expect(meetsFire(run(fire - 31_000), fire, fire - 60_000, 10_000)).toBe(false);
    // a miss's own record meets nothing
    expect(meetsFire(run(fire, { scheduleId: 1 }), fire, undefined, 300_000)).toBe(false);
    expect(clockTime(Date.parse('2026-03-01T02:10:30Z'), 'Asia/Shanghai')).toBe('10:10:30');
  });
});

describe('what ax ping says', () => {
  it('start, success (the default), fail or an exit code 0-255', () => {
    expect(parsePingWhat(undefined)).toEqual({ what: 'success' });
    expect(parsePingWhat('start')).toEqual({ what: 'start' });
    expect(parsePingWhat('fail')).toEqual({ what: 'fail' });
    expect(parsePingWhat('0')).toEqual({ what: 'exit', exitCode: 0 });
    expect(parsePingWhat('127')).toEqual({ what: 'exit', exitCode: 127 });
    expect(() => parsePingWhat('256')).toThrow(/"256" is not something a ping says/);
    expect(() => parsePingWhat('ok')).toThrow(/use start, success, fail or an exit code from 0 to 255/);
  });
});

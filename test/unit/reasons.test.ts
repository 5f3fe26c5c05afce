// The reasons catalogue (engine/api/reasons.ts): the English the engine writes is built from the
// code, so the CLI's text and the UI's translation key can never disagree. These are the texts the
// engine wrote before reasons had codes: built from codes, they must read the same.
import { describe, expect, it } from 'vitest';
import {
  REASONS,
  because,
  decodeReasonCode,
  encodeReasonCode,
  placeholders,
  reasonText,
} from '../../engine/api/reasons.ts';
import { taskOutcome } from '../../engine/core/execution/task-launch.ts';
import { outputReason, WHEN_REASON_MAX } from '../../engine/core/execution/task-precondition.ts';
import { decideTrigger } from '../../engine/core/model/trigger-rule.ts';
import { childFailedReason } from '../../engine/core/runs/calls.ts';

describe('reasonText: the English of each code, as the engine wrote it before codes', () => {
  it.each([
    [because('timeout', { timeout: 5_400_000 }), 'timed out after 1h30m'],
    [because('exit', { code: 3 }), 'exit code 3'],
    [because('signal', { signal: 'SIGKILL' }), 'killed by SIGKILL'],
    [
      because('failover_worker_lost', { worker: 'w1', silent: 16_000 }),
      'failed over: worker w1 lost (no heartbeat for 16s)',
    ],
    [
      because('redispatched', { worker: 'w1', after: 30_000 }),
      'worker w1 did not pick the task up within 30s: dispatched again',
    ],
    [because('waiting_upstream', { labels: 'orders.load of 2026-11-30' }), 'waiting for orders.load of 2026-11-30'],
    [
      because('wait_timeout', { limit: 3_600_000, label: 'orders.load of 2026-11-30' }),
      'wait_timeout: waited 1h for orders.load of 2026-11-30, which did not succeed in time',
    ],
    [
      because('overlap', { run: 7, state: 'running', policy: 'skip' }),
      'run #7 was still running (overlap policy: skip)',
    ],
    [because('cancelled_by', { actor: 'alice' }), 'cancelled by alice'],
    [
      because('monitor_missed', {
        due: Date.UTC(2026, 0, 1, 2, 10),
        fire: Date.UTC(2026, 0, 1, 2, 0),
        grace: 600_000,
        zone: 'Europe/Paris',
      }),
      'missed: no ping by 03:10 (due at 03:00, grace 10m)',
    ],
    [because('engine_restarted_killed'), 'engine restarted; its leftover process group was killed'],
    [
      because('failover_worker_restarted_killed', { worker: 'w1' }),
      'failed over: worker w1 restarted; its leftover process group was killed',
    ],
    [because('worker_restarted_before_start', { worker: 'w1' }), 'worker w1 restarted before it started the task'],
    [
      because('call_no_workflow', { workflow: 'nowhere' }),
      'calls workflow "nowhere", which does not exist: apply it, then re-run this task',
    ],
    [because('stop_ctrl_c'), 'killed: Ctrl-C twice'],
    [because('stop_not_owned'), 'this worker no longer owns the instance (taken over after it was judged lost)'],
    [because('worker_refused', { worker: 'w1' }), 'worker w1 does not accept this task'],
  ])('%o reads "%s"', (why, text) => {
    expect(why.reason).toBe(text);
    expect(reasonText(why.reasonCode)).toBe(text);
  });

  it('a code the catalogue does not know reads as its name, never as nothing', () => {
    expect(reasonText({ code: 'from_a_newer_engine', args: { x: 1 } })).toBe('from_a_newer_engine');
  });

  it('every template names each placeholder once, with a known format', () => {
    for (const [code, template] of Object.entries(REASONS)) {
      const names = placeholders(template);
      expect(new Set(names).size, code).toBe(names.length);
      for (const m of template.matchAll(/\{\{\s*\w+\s*,\s*(\w+)\s*\}\}/g))
        expect(['duration', 'seconds', 'clock', 'iso'], code).toContain(m[1]);
    }
  });

  it('a stored code reads back; an unreadable one is no code (the English still stands)', () => {
    const code = { code: 'exit', args: { code: 2 } };
    expect(decodeReasonCode(encodeReasonCode(code))).toEqual(code);
    expect(encodeReasonCode(undefined)).toBeNull();
    expect(decodeReasonCode('not json')).toBeUndefined();
    expect(decodeReasonCode(null)).toBeUndefined();
  });
});

describe('engine sites give a code with the same English as before', () => {
  it('a process that ended: exit code, signal, timeout, lost', () => {
    const exit = { code: 2, signal: null } as Parameters<typeof taskOutcome>[1];
    expect(taskOutcome({ timedOut: false }, exit, undefined)).toEqual({
      state: 'FAILED',
      reason: 'exit code 2',
      reasonCode: { code: 'exit', args: { code: 2 } },
    });
    expect(taskOutcome({ timedOut: true }, exit, 90_000)).toMatchObject({
      state: 'TIMEOUT',
      reason: 'timed out after 1m30s',
      reasonCode: { code: 'timeout', args: { timeout: 90_000 } },
    });
    const killed = { code: null, signal: 'SIGTERM' } as unknown as Parameters<typeof taskOutcome>[1];
    expect(taskOutcome({ timedOut: false }, killed, undefined)).toMatchObject({
      reason: 'killed by SIGTERM',
      reasonCode: { code: 'signal', args: { signal: 'SIGTERM' } },
    });
    // a stop the worker decided (a drain that ran out, Ctrl-C twice) is the outcome, with its code
    const drained = because('stop_drain_timeout', { timeout: 30_000 });
    expect(taskOutcome({ timedOut: false, stopReason: drained }, exit, undefined)).toEqual({
      state: 'FAILED',
      reason: 'stopped: the engine shut down and the drain timeout (30s) ran out',
      reasonCode: { code: 'stop_drain_timeout', args: { timeout: 30_000 } },
    });
  });

  it('run_if: the upstream and the rule as arguments; a repeated failure keeps the code it was written with', () => {
    const first = decideTrigger('none_failed', [{ name: 'extract', state: 'FAILED' }]);
    expect(first).toEqual({
      kind: 'upstream_failed',
      reason: 'upstream "extract" ended FAILED (run_if: none_failed)',
      reasonCode: { code: 'upstream_ended_rule', args: { task: 'extract', state: 'FAILED', rule: 'none_failed' } },
    });
    const marker = decideTrigger('all_success', [{ name: 'extract', state: 'FAILED' }]);
    const repeated = decideTrigger('all_success', [
      { name: 'load', state: 'UPSTREAM_FAILED', ...(marker.kind === 'upstream_failed' && marker) },
    ]);
    expect(repeated).toMatchObject({
      reason: 'upstream "extract" ended FAILED',
      reasonCode: { code: 'upstream_ended', args: { task: 'extract', state: 'FAILED' } },
    });
    // an older marker, stored without a code: its text goes on, without a code
    expect(decideTrigger('none_failed', [{ name: 'load', state: 'UPSTREAM_FAILED', reason: 'old text' }])).toEqual({
      kind: 'upstream_failed',
      reason: 'old text (run_if: none_failed)',
    });
  });

  it("a call: task's child run that failed or was cancelled", () => {
    expect(childFailedReason({ id: 4, state: 'FAILED' })).toMatchObject({ reason: 'child run #4 failed' });
    expect(childFailedReason({ id: 4, state: 'CANCELLED', reason: 'cancelled by bob' })).toEqual({
      reason: 'child run #4 failed: it was cancelled (cancelled by bob)',
      reasonCode: { code: 'child_cancelled_because', args: { child: 4, reason: 'cancelled by bob' } },
    });
  });
});

describe('alerts built from codes read as the engine wrote them before codes', () => {
  const at = Date.UTC(2026, 2, 1, 3, 0);
  it.each([
    [
      { code: 'alert_queue_long', args: { worker: 'hung', length: 5, threshold: 2 } },
      'queue of worker hung is 5 long (threshold 2): workers cannot keep up',
    ],
    [{ code: 'alert_queue_long_body' }, 'add workers or concurrency, or look for a stuck worker ("ax workers")'],
    [
      { code: 'alert_misfire_skipped', args: { workflow: 'hourly', skipped: 3, latest: at, policy: 'skip' } },
      'hourly: 3 missed fire(s) up to 2026-03-01T03:00:00.000Z not run (misfire policy skip)',
    ],
    [{ code: 'alert_misfire_skipped_body' }, 'the engine was down, asleep or paused when they were due'],
    [
      { code: 'alert_run_overdue', args: { workflow: 'slow', run: 4, expected: 1000 } },
      'slow: run #4 still running past its expected 1s',
    ],
    [{ code: 'alert_run_overdue_body', args: { started: at } }, 'started at 2026-03-01T03:00:00.000Z'],
    [
      { code: 'alert_recovered', args: { workflow: 'reports', run: 2, previous: 1 } },
      'reports: recovered, run #2 succeeded after failed run #1',
    ],
    [
      { code: 'alert_run_ended_success', args: { run: 2, trigger: 'manual', logical: at, finished: '?' } },
      'run #2 (manual, logical time 2026-03-01T03:00:00.000Z) ended SUCCESS at ?',
    ],
    [
      { code: 'alert_clock_step', args: { node: 'n1', back: 3_600_000, count: 2 } },
      'the clock of n1 stepped back by about 1h: 2 schedule(s) re-planned from now',
    ],
    [
      { code: 'alert_clock_step_body_more', args: { at, schedules: 'a, b', more: 3 } },
      "their last fires lay ahead of the clock (2026-03-01T03:00:00.000Z), which had gone ahead and was set back (NTP, a restored snapshot); without this they would not fire until the clock caught up. Re-planned: a, b and 3 more. Check the machine's time sync.",
    ],
    [
      { code: 'alert_duration_longer', args: { workflow: 'm', run: 9, took: 40_000, median: 10_000 } },
      'm: run #9 took 40s, far longer than usual (median 10s)',
    ],
    [
      { code: 'alert_duration_anomaly_body', args: { factor: 3, runs: 5, state: 'SUCCESS' } },
      'outside 3× either way of the median of its last 5 successful runs; it ended SUCCESS',
    ],
  ])('%o reads "%s"', (code, text) => {
    expect(reasonText(code)).toBe(text);
  });
});

describe("`when:` said no: the code's English is the text it always was", () => {
  /** the English as the engine built it before codes */
  const before = (head: string, lines: string[]) => {
    const text = lines.join(' ').replace(/\s+/g, ' ').trim();
    const full = text === '' ? head : `${head}: ${text}`;
    return full.length <= WHEN_REASON_MAX ? full : `${full.slice(0, WHEN_REASON_MAX - 1)}…`;
  };

  it.each([
    [[], 'when: exited 1'],
    [['no new rows'], 'when: exited 1: no new rows'],
    [['x'.repeat(1010)], before('when: exited 1', ['x'.repeat(1010)])],
    [['y'.repeat(2000), 'z'], before('when: exited 1', ['y'.repeat(2000), 'z'])],
  ])('exit 1 with %#', (lines, text) => {
    const why = outputReason('when_exited', 'when_exited_output', { code: 1 }, lines);
    expect(why.reason).toBe(text);
    expect(why.reason.length).toBeLessThanOrEqual(WHEN_REASON_MAX);
    expect(reasonText(why.reasonCode)).toBe(text);
  });

  it('the output is an argument (the UI translates the rest); a kill names its signal', () => {
    expect(outputReason('when_killed', 'when_killed_output', { signal: 'SIGTERM' }, ['half', 'done'])).toEqual({
      reason: 'when: killed by SIGTERM: half done',
      reasonCode: { code: 'when_killed_output', args: { signal: 'SIGTERM', output: 'half done' } },
    });
    expect(because('when_unreadable', { expr: 'a <', error: 'no right side' }).reason).toBe('when: a <: no right side');
  });
});

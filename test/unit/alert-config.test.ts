// Alert configuration: a workflow file's `alerts:` (channels, rules, expected
// duration) read, refused with its path and fix, and written back by `ax export` so that export
// then apply changes nothing; settings.json's `alerts` object checked with what to fix; the keys
// that decide grouping and the one sender.
import { describe, expect, it } from 'vitest';
import { ValidationError, type ValidationProblem } from '../../engine/api/errors.ts';
import { checkParams } from '../../engine/api/schemas.ts';
import { alertKeys, summaryKey } from '../../engine/core/alerts/alert-keys.ts';
import { DEFAULT_ALERT_SETTINGS, parseAlertSettings } from '../../engine/core/alerts/alert-settings.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';

const parse = (text: string) => parseWorkflowFile(text, { defaultTimezone: 'UTC' });
const withAlerts = (alerts: string) => `workflow: w\nalerts:\n${alerts}\ntasks:\n  t:\n    command: ./t.sh\n`;

function problems(text: string): ValidationProblem[] {
  try {
    parse(text);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).problems;
  }
  throw new Error('expected a ValidationError');
}

describe('workflow file: alerts', () => {
  it('reads channels, rules and the expected duration; rules default to run_failed and recovered', () => {
    expect(parse(withAlerts('  channels: [ops-slack, oncall-mail]')).spec.alerts).toEqual({
      channels: ['ops-slack', 'oncall-mail'],
      rules: ['run_failed', 'recovered'],
    });
    expect(
      parse(
        withAlerts('  channels: [ops]\n  rules: [task_failed, run_overdue, misfire_skipped]\n  expected_duration: 45m'),
      ).spec.alerts,
    ).toEqual({
      channels: ['ops'],
      rules: ['task_failed', 'run_overdue', 'misfire_skipped'],
      expectedDurationMs: 2_700_000,
    });
  });

  it('refuses unknown keys, rules that are not about a workflow, and a zero duration, naming the field', () => {
    expect(problems(withAlerts('  channels: [ops]\n  chanels: [x]')).map((p) => p.path)).toContain('alerts.chanels');
    expect(problems(withAlerts('  channels: [ops]\n  rules: [run_failed, worker_lost]'))).toEqual([
      {
        path: 'alerts.rules',
        message: expect.stringContaining(
          '"worker_lost" is not a workflow alert rule: use task_failed, run_failed, recovered, run_overdue, misfire_skipped, monitor_missed, run_duration_anomaly',
        ),
      },
    ]);
    expect(problems(withAlerts('  channels: [ops]\n  expected_duration: 0s'))[0]?.path).toBe(
      'alerts.expected_duration',
    );
    expect(problems('workflow: w\nalerts: ops\ntasks:\n  t:\n    command: x\n')[0]?.path).toBe('alerts');
  });

  it('export writes alerts back as written (defaults left out), and applying the export changes nothing', () => {
    for (const alerts of [
      '  channels: [ops]',
      '  channels: [ops, mail]\n  rules: [task_failed]\n  expected_duration: 1h30m',
    ]) {
      const spec = parse(withAlerts(alerts)).spec;
      const text = serializeWorkflow(spec);
      expect(text).toContain(`alerts:\n${alerts}\ntasks:`);
      expect(parse(text).spec).toEqual(spec);
      expect(serializeWorkflow(parse(text).spec)).toBe(text);
    }
  });

  it('the API takes a spec with alerts, and refuses a rule it does not know', () => {
    const spec = { name: 'w', tasks: [{ name: 't', command: 'x' }], alerts: { channels: ['ops'] } };
    const ok = checkParams('apply', [spec, 'me']);
    expect(ok.ok && (ok.params[0] as { alerts: unknown }).alerts).toEqual({
      channels: ['ops'],
      rules: ['run_failed', 'recovered'],
    });
    expect(checkParams('apply', [{ ...spec, alerts: { channels: [], rules: ['nope'] } }, 'me']).ok).toBe(false);
  });
});

describe('settings.json alerts', () => {
  const where = '/data/settings.json';

  it('no alerts object: the defaults (no channel, run_failed and recovered, 10-minute groups)', () => {
    expect(parseAlertSettings(undefined, where)).toEqual(DEFAULT_ALERT_SETTINGS);
    expect(DEFAULT_ALERT_SETTINGS.workflows.rules).toEqual(['run_failed', 'recovered']);
    expect(DEFAULT_ALERT_SETTINGS.groupWindowMs).toBe(600_000);
  });

  it('reads webhook and e-mail channels with their defaults, secrets as references, and the routes', () => {
    const s = parseAlertSettings(
      {
        channels: {
          'ops-slack': { type: 'webhook', url: { secret: 'slack-url' }, template: 'slack', timeout: '5s', retries: 1 },
          mail: {
            type: 'email',
            host: 'smtp.example.com',
            user: 'ax',
            password: { secret: 'smtp-pw' },
            from: 'ax@example.com',
            to: 'oncall@example.com',
          },
        },
        workflows: { channels: ['ops-slack'] },
        engine: { channels: ['mail'], rules: ['worker_lost'] },
        groupWindow: '5m',
      },
      where,
    );
    expect(s.channels['ops-slack']).toEqual({
      type: 'webhook',
      url: { secret: 'slack-url' },
      template: 'slack',
      headers: {},
      timeoutMs: 5000,
      retries: 1,
    });
    expect(s.channels.mail).toEqual({
      type: 'email',
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      starttls: true,
      user: 'ax',
      password: { secret: 'smtp-pw' },
      from: 'ax@example.com',
      to: ['oncall@example.com'],
    });
    expect(s.workflows).toEqual({ channels: ['ops-slack'], rules: ['run_failed', 'recovered'] });
    expect(s.engine).toEqual({ channels: ['mail'], rules: ['worker_lost'] });
    expect(s.groupWindowMs).toBe(300_000);
  });

  it('says what to fix: the file, the field, and why', () => {
    const bad = (v: unknown) => () => parseAlertSettings(v, where);
    expect(bad({ channels: { x: { type: 'pager' } } })).toThrow(/^\/data\/settings\.json: alerts\.channels\.x\.type/);
    expect(bad({ channels: { x: { type: 'webhook', url: 'ftp://x' } } })).toThrow(
      'alerts.channels.x.url must start with http:// or https://',
    );
    expect(bad({ channels: {}, workflows: { channels: ['ops'] } })).toThrow(
      'alerts.workflows.channels names "ops", not defined in alerts.channels (defined: none)',
    );
    expect(bad({ engine: { rules: ['run_failed'] } })).toThrow(/alerts\.engine\.rules\.0/);
    expect(bad({ groupWindow: 'soon' })).toThrow(/alerts\.groupWindow: "soon" is not a duration/);
    expect(bad({ chanels: {} })).toThrow(/unrecognized key.*chanels/i);
  });

  it('a channel the host adds (the desktop app) may be routed to without a definition', () => {
    expect(parseAlertSettings({ workflows: { channels: ['desktop'] } }, where, ['desktop']).workflows.channels).toEqual(
      ['desktop'],
    );
  });
});

describe('alert keys', () => {
  const W = 600_000;
  const T = Date.parse('2026-12-01T03:00:00Z');

  it('groups by rule, subject and time bucket; an event of its own is its own key, else the group is', () => {
    const a = alertKeys('run_failed', 'workflow:etl', T + 1_000, W, 'run:1');
    const b = alertKeys('run_failed', 'workflow:etl', T + 599_000, W, 'run:2');
    expect(a.groupKey).toBe(b.groupKey);
    expect(a.key).not.toBe(b.key);
    expect(a.groupEndsAt).toBe(T + W);
    expect(alertKeys('run_failed', 'workflow:etl', T + W, W, 'run:3').groupKey).not.toBe(a.groupKey);
    expect(alertKeys('queue_long', 'queue', T, W).key).toBe(alertKeys('queue_long', 'queue', T + 5, W).key);
  });

  it('keeps long keys within the column: still unique, and their summary key too', () => {
    const long = 'x'.repeat(300);
    const one = alertKeys('task_failed', `workflow:${long}a`, T, W, 'instance:1');
    const two = alertKeys('task_failed', `workflow:${long}b`, T, W, 'instance:1');
    expect(one.key.length).toBeLessThanOrEqual(191);
    expect(one.key).not.toBe(two.key);
    expect(one.groupKey).not.toBe(two.groupKey);
    expect(summaryKey(one.key).length).toBeLessThanOrEqual(191);
    expect(summaryKey(one.key)).not.toBe(one.key);
  });
});

// Alerts reaching real receivers started here: an HTTP server that records webhook
// posts, and an SMTP server. A solo engine with the channels in its settings.json; each test
// waits until the alerts of what it did are settled (the run's event, then the engine's alerts
// idle: an alert is raised before its run's event goes out) and counts what arrived.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertRecord } from '../../engine/api/alerts.ts';
import { SecretsFile } from '../../engine/hosts/node/secrets-file.ts';
import {
  type SmtpReceiver,
  startSmtpReceiver,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/alert-receivers.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let te: TestEngine | undefined;
let hook: WebhookReceiver | undefined;
let smtp: SmtpReceiver | undefined;

afterEach(async () => {
  await te?.close();
  await hook?.close();
  await smtp?.close();
  te = hook = smtp = undefined;
});

/** A solo engine whose settings.json has these alert settings. */
async function engineWith(alerts: object, prepare?: (dir: string) => void): Promise<TestEngine> {
  const dir = tempDir('ax-alerts-');
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ alerts }), { mode: 0o600 });
  prepare?.(dir);
  te = await startTestEngine({ dir, config: { alertSweepMs: 200 } });
  return te;
}

/** Runs a workflow to its end, then waits until every alert it raised is recorded and delivered or failed. */
async function runSettled(t: TestEngine, workflow: string): Promise<string> {
  return (await t.runSettled(workflow)).run.state;
}

const failing = (name: string, command = 'echo "disk full" >&2; exit 3', alerts = 'hook') => `workflow: ${name}
alerts:
  channels: [${alerts}]
tasks:
  load:
    command: '${command}'
    retries: 2
    retry_backoff: 50ms
`;

const text = (body: unknown) => (body as { text: string }).text;

describe('alerts through a webhook', () => {
  it('a final failure after 2 retries posts exactly one alert, naming the task and why; the record says it was sent', async () => {
    hook = await startWebhookReceiver();
    const t = await engineWith({
      channels: { hook: { type: 'webhook', url: hook.url, template: 'slack' } },
      retryDelay: '50ms',
    });
    await t.apply(failing('nightly-etl'));
    expect(await runSettled(t, 'nightly-etl')).toBe('FAILED');
    expect((await t.engine.getRun(1)).instances.map((i) => i.state)).toEqual(['FAILED', 'FAILED', 'FAILED']);
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]?.path).toBe('/hooks/T000/B000/secret-token');
    expect(text(hook.posts[0]?.body)).toMatch(
      /^\[FAILED\] nightly-etl: run #1 failed: task "load" failed after 3 attempt\(s\)\n/,
    );
    expect(text(hook.posts[0]?.body)).toContain('load: FAILED: exit code 3');
    const [alert] = await t.engine.listAlerts({});
    expect(alert).toMatchObject({
      rule: 'run_failed',
      workflow: 'nightly-etl',
      runId: 1,
      kind: 'immediate',
      state: 'sent',
    });
    expect(alert?.deliveries).toEqual([
      { channel: 'hook', kind: 'webhook', state: 'sent', attempts: 1, at: expect.any(Number) },
    ]);
  });

  it('recovery posts one alert; a success after a success posts nothing', async () => {
    hook = await startWebhookReceiver();
    const t = await engineWith({ channels: { hook: { type: 'webhook', url: hook.url, template: 'feishu' } } });
    const flag = path.join(t.dir, 'fixed');
    await t.apply(failing('reports', `test -f ${flag}`).replace('retries: 2', 'retries: 0'));
    expect(await runSettled(t, 'reports')).toBe('FAILED');
    fs.writeFileSync(flag, '');
    expect(await runSettled(t, 'reports')).toBe('SUCCESS');
    expect(await runSettled(t, 'reports')).toBe('SUCCESS');
    const texts = hook.posts.map(
      (p) => (p.body as { msg_type: string; content: { text: string } }).content.text.split('\n')[0],
    );
    expect(texts).toEqual([
      '[FAILED] reports: run #1 failed: task "load" failed after 1 attempt(s)',
      '[OK] reports: recovered, run #2 succeeded after failed run #1',
    ]);
    expect((await t.engine.listAlerts({ rule: 'recovered' })).map((a) => [a.runId, a.state])).toEqual([[2, 'sent']]);
  });

  it('a receiver that answers 500 twice, then 200, gets the alert on the third try', async () => {
    hook = await startWebhookReceiver((n) => (n <= 2 ? 500 : 200));
    const t = await engineWith({
      channels: { hook: { type: 'webhook', url: hook.url, retries: 2 } },
      retryDelay: '50ms',
    });
    await t.apply(failing('sync'));
    await runSettled(t, 'sync');
    expect(hook.posts).toHaveLength(3);
    // The json template: the record itself, for any receiver.
    expect(hook.posts[2]?.body).toMatchObject({
      alert: { rule: 'run_failed', workflow: 'sync', runId: 1 },
      text: expect.stringContaining('sync: run #1 failed'),
    });
    const [alert] = await t.engine.listAlerts({});
    expect(alert?.state).toBe('sent');
    expect(alert?.deliveries).toEqual([
      {
        channel: 'hook',
        kind: 'webhook',
        state: 'sent',
        attempts: 3,
        error: expect.stringContaining('HTTP 500'),
        at: expect.any(Number),
      },
    ]);
    // One delivery, counted once for /metrics (not once per attempt).
    expect((await t.engine.metrics.exposition?.())?.text).toContain(
      'ax_alerts_total{channel="hook",outcome="sent"} 1\n',
    );
  });

  it('a 200 whose body carries an error code (DingTalk, WeCom, Feishu) is a failed attempt, with their message', async () => {
    hook = await startWebhookReceiver((n) =>
      n === 1
        ? { status: 200, body: '{"errcode":310000,"errmsg":"keywords not in content"}' }
        : { status: 200, body: '{"errcode":0,"errmsg":"ok"}' },
    );
    const t = await engineWith({
      channels: { hook: { type: 'webhook', url: hook.url, template: 'wecom', retries: 1 } },
      retryDelay: '50ms',
    });
    const rec = await t.engine.testAlertChannel('hook', 'tester');
    expect(rec.state).toBe('sent');
    expect(rec.deliveries[0]).toMatchObject({
      state: 'sent',
      attempts: 2,
      error: expect.stringMatching(/refused: errcode 310000: keywords not in content$/),
    });
    expect(hook.posts).toHaveLength(2);
  });

  it('a receiver that never answers is recorded as failed after its retries; the engine runs on meanwhile', async () => {
    hook = await startWebhookReceiver(() => 'hang');
    const t = await engineWith({
      channels: { hook: { type: 'webhook', url: hook.url, timeout: '1s', retries: 1 } },
      retryDelay: '50ms',
    });
    await t.apply(failing('crawler').replace('retries: 2', 'retries: 0'));
    await t.apply('workflow: other\ntasks:\n  ok:\n    command: "true"\n');
    const failed = await t.runToEnd('crawler');
    expect(failed.run.state).toBe('FAILED');
    // While its alert waits on a receiver that never answers, other work starts and ends.
    expect((await t.runToEnd('other')).run.state).toBe('SUCCESS');
    const alert = await waitFor(
      async () => (await t.engine.listAlerts({ workflow: 'crawler' })).find((a) => a.state === 'failed'),
      { timeoutMs: 15_000, message: 'the alert to be recorded failed' },
    );
    expect(alert.deliveries).toEqual([
      {
        channel: 'hook',
        kind: 'webhook',
        state: 'failed',
        attempts: 2,
        error: 'no answer within 1s',
        at: expect.any(Number),
      },
    ]);
    expect(hook.posts).toHaveLength(2);
    expect((await t.engine.metrics.exposition?.())?.text).toContain(
      'ax_alerts_total{channel="hook",outcome="failed"} 1\n',
    );
  });

  it('lists its channels with the webhook token masked; a test alert goes through one channel and is recorded', async () => {
    hook = await startWebhookReceiver();
    const t = await engineWith({ channels: { hook: { type: 'webhook', url: hook.url, template: 'dingtalk' } } });
    const channels = await t.engine.listAlertChannels();
    expect(channels).toEqual([
      { name: 'hook', kind: 'webhook', target: `${new URL(hook.url).origin}/***`, template: 'dingtalk' },
    ]);
    expect(JSON.stringify(channels)).not.toContain('secret-token');
    const rec: AlertRecord = await t.engine.testAlertChannel('hook', 'tester');
    expect(rec).toMatchObject({ rule: 'test', kind: 'test', state: 'sent', subject: 'channel:hook' });
    expect(hook.posts.map((p) => p.body)).toEqual([
      { msgtype: 'text', text: { content: expect.stringMatching(/^\[TEST\] Test alert from AX Scheduler/) } },
    ]);
    await expect(t.engine.testAlertChannel('nope', 'tester')).rejects.toThrow(
      /no alert channel "nope".*channels are hook/,
    );
  });

  it('validate warns of a channel this machine does not have (apply refuses it without --force)', async () => {
    hook = await startWebhookReceiver();
    const t = await engineWith({ channels: { hook: { type: 'webhook', url: hook.url } } });
    const report = await t.engine.validate({ text: failing('w', 'true', 'hook, pager') });
    expect(report.ok).toBe(true);
    expect(report.warnings).toEqual([
      {
        path: 'alerts.channels',
        message:
          '"pager" is not an alert channel on this machine (channels: hook): its alerts would be recorded as failed; define it in settings.json "alerts.channels"',
      },
    ]);
  });

  it('a workflow without alerts: uses the settings default route; a rule the route leaves out records nothing', async () => {
    hook = await startWebhookReceiver();
    const t = await engineWith({
      channels: { hook: { type: 'webhook', url: hook.url } },
      workflows: { channels: ['hook'], rules: ['task_failed'] },
    });
    await t.apply('workflow: plain\ntasks:\n  a:\n    command: "exit 1"\n');
    await runSettled(t, 'plain');
    expect((await t.engine.listAlerts({})).map((a) => [a.rule, a.state])).toEqual([['task_failed', 'sent']]);
    expect(hook.posts).toHaveLength(1);
  });
});

describe('a run past its expected duration', () => {
  it('raises run_overdue once while it still runs (expected_duration asks for it), and the run goes on', async () => {
    hook = await startWebhookReceiver();
    const t = await engineWith({ channels: { hook: { type: 'webhook', url: hook.url, template: 'wecom' } } });
    const gate = path.join(t.dir, 'gate');
    await t.apply(
      `workflow: slow\nalerts:\n  channels: [hook]\n  expected_duration: 1s\ntasks:\n  wait:\n    command: 'while [ ! -f ${gate} ]; do sleep 0.1; done'\n`,
    );
    const run = await t.engine.runWorkflow('slow', { actor: 'test' });
    const alert = await waitFor(
      async () => (await t.engine.listAlerts({ rule: 'run_overdue' })).find((a) => a.state === 'sent'),
      { timeoutMs: 15_000, message: 'the run_overdue alert' },
    );
    expect(alert).toMatchObject({
      workflow: 'slow',
      runId: run.id,
      title: `slow: run #${run.id} still running past its expected 1s`,
    });
    expect((await t.engine.getRun(run.id)).run.state).toBe('RUNNING');
    fs.writeFileSync(gate, '');
    expect((await t.waitRun(run.id)).run.state).toBe('SUCCESS');
    await t.engine.alertsIdle();
    // Many sweeps saw it overdue: one alert, one post.
    expect(hook.posts.map((p) => (p.body as { text: { content: string } }).text.content.split('\n')[0])).toEqual([
      `[WARNING] slow: run #${run.id} still running past its expected 1s`,
    ]);
  });
});

describe('alerts by e-mail', () => {
  it('an SMTP server gets the alert over STARTTLS, with its subject and body; the password comes from a secret', async () => {
    smtp = await startSmtpReceiver();
    const port = smtp.port;
    const t = await engineWith(
      {
        channels: {
          mail: {
            type: 'email',
            host: '127.0.0.1',
            port,
            tlsInsecure: true,
            user: 'ax',
            password: { secret: 'SMTP_PASSWORD' },
            from: 'ax@example.test',
            to: ['oncall@example.test'],
          },
        },
      },
      (dir) => new SecretsFile(dir).set('SMTP_PASSWORD', 'right', 'test'),
    );
    await t.apply(failing('billing', 'exit 4', 'mail').replace('retries: 2', 'retries: 0'));
    await runSettled(t, 'billing');
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0];
    expect(mail).toMatchObject({ from: 'ax@example.test', to: ['oncall@example.test'], secure: true, user: 'ax' });
    expect(mail?.subject).toBe('[FAILED] billing: run #1 failed: task "load" failed after 1 attempt(s)');
    expect(mail?.raw).toContain('load: FAILED: exit code 4');
    const test = await t.engine.testAlertChannel('mail', 'tester');
    expect(test.state).toBe('sent');
    expect(smtp.mails[1]?.subject).toMatch(/^\[TEST\] Test alert from AX Scheduler/);
  });

  it('a wrong password is a failed delivery saying so', async () => {
    smtp = await startSmtpReceiver();
    const t = await engineWith({
      channels: {
        mail: {
          type: 'email',
          host: '127.0.0.1',
          port: smtp.port,
          tlsInsecure: true,
          user: 'ax',
          password: 'wrong',
          from: 'ax@example.test',
          to: 'oncall@example.test',
          retries: 0,
        },
      },
    });
    const rec = await t.engine.testAlertChannel('mail', 'tester');
    expect(rec.state).toBe('failed');
    expect(rec.deliveries[0]?.error).toMatch(/^SMTP 127\.0\.0\.1:\d+: .*(auth|credentials|wrong password)/i);
    expect(smtp.mails).toHaveLength(0);
  });
});

// Desktop notifications from the engine's `desktop` alert channel, on a real engine
// whose desktop channel hands each alert to the notifier as the engine host does: a run that
// fails for good raises one notice naming its task (a timeout says so), another workflow has its
// own, the first success after failures says the workflow recovered, a success after a success
// says nothing; an alert about no run (a summary, a lost worker) says what the engine said.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesktopAlert } from '../../engine/api/host-protocol.ts';
import { desktopChannel } from '../../engine/hosts/port/desktop-channel.ts';
import { type DesktopNotice, FailureNotifier } from '../../electron/failure-notifier.ts';
import { SHELL_TEXTS } from '../../electron/shell-texts.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;
const notices: DesktopNotice[] = [];
const notifier = new FailureNotifier({ notify: (n) => notices.push(n) });

beforeAll(async () => {
  t = await startTestEngine({
    alerts: {
      extra: [desktopChannel((alert) => void notifier.onAlert(t.engine, alert))],
      defaultChannels: ['desktop'],
    },
  });
});

afterAll(async () => {
  await t.close();
});

const settled = (name: string) => t.runSettled(name);

describe('failure notifications', () => {
  it('a failed run names its task, a timeout says so, a recovery is noticed once', async () => {
    const flag = path.join(t.dir, 'ok-flag');
    await t.apply(`workflow: nightly\ntasks:\n  extract:\n    command: test -f ${flag}\n`);
    await t.apply('workflow: slowpoke\ntasks:\n  wait:\n    command: sleep 5\n    timeout: 1s\n');

    const first = await settled('nightly');
    expect(first.run.state).toBe('FAILED');
    const extract = first.instances.find((i) => i.taskName === 'extract')!;
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ title: 'nightly failed', path: `/instances/${extract.id}` });
    expect(notices[0]!.body).toMatch(new RegExp(`^Run #${first.run.id}: task extract failed`));

    const timedOut = await settled('slowpoke');
    expect(notices).toHaveLength(2);
    expect(notices[1]).toMatchObject({ title: 'slowpoke failed', path: `/instances/${timedOut.instances[0]!.id}` });
    expect(notices[1]!.body).toContain('task wait timed out');

    fs.writeFileSync(flag, '');
    const fixed = await settled('nightly');
    expect(fixed.run.state).toBe('SUCCESS');
    expect(notices).toHaveLength(3);
    expect(notices[2]).toEqual({
      title: 'nightly recovered',
      body: `Run #${fixed.run.id} succeeded.`,
      path: `/runs/${fixed.run.id}`,
    });

    await settled('nightly');
    expect(notices).toHaveLength(3);
    // Each was recorded as sent through the desktop channel.
    const sent = await t.engine.listAlerts({});
    expect(sent.map((a) => [a.rule, a.state, a.deliveries.map((d) => d.channel)])).toEqual([
      ['recovered', 'sent', ['desktop']],
      ['run_failed', 'sent', ['desktop']],
      ['run_failed', 'sent', ['desktop']],
    ]);
  });

  it('a summary or an alert about no run says what the engine said, in the language of the shell for runs', async () => {
    const got: DesktopNotice[] = [];
    const zh = new FailureNotifier({ notify: (n) => got.push(n), texts: () => SHELL_TEXTS['zh-CN'] });
    const base: DesktopAlert = {
      id: 1,
      rule: 'run_failed',
      severity: 'critical',
      title: '',
      message: '',
      kind: 'immediate',
    };
    await zh.onAlert(undefined, {
      ...base,
      kind: 'summary',
      workflow: 'etl',
      runId: 9,
      repeats: 4,
      title: '4 more failed runs of etl in 10m',
      message: 'The first one…',
    });
    await zh.onAlert(undefined, {
      ...base,
      rule: 'worker_lost',
      title: 'worker w2 (host) lost: no heartbeat for 20s',
      message: 'last heartbeat at …\nits running tasks fail over',
    });
    await zh.onAlert(undefined, { ...base, workflow: 'etl', runId: 10 });
    expect(got).toEqual([
      { title: '4 more failed runs of etl in 10m', body: 'The first one…', path: '/runs/9' },
      {
        title: 'worker w2 (host) lost: no heartbeat for 20s',
        body: 'last heartbeat at …\nits running tasks fail over',
        path: '/',
      },
      { title: 'etl 失败', body: '运行 #10 失败。', path: '/runs/10' },
    ]);
  });
});

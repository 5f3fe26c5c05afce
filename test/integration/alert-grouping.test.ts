// Grouping and the one-sender rule of the alerts, on a fake clock: two nodes (two AlertCenters, each
// with its own store connection to one database) raise the same burst of 50 task failures in one
// minute; the receiver (a real HTTP server) gets one immediate alert, and at the window's end one
// summary of the other 49, never two of either. Every failure is recorded once.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookChannel } from '../../engine/adapters/alerts/webhook-channel.ts';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { AlertCenter } from '../../engine/core/alerts/alert-center.ts';
import { DEFAULT_ALERT_SETTINGS } from '../../engine/core/alerts/alert-settings.ts';
import type { Store } from '../../engine/ports/store.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/alert-receivers.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';

const WINDOW = 600_000;
// At the start of a window, so the minute's burst falls in one.
const T0 = Date.parse('2026-12-01T03:00:00Z');

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function node(name: string, store: Store, clock: FakeClock, hook: WebhookReceiver): Promise<AlertCenter> {
  return new AlertCenter({
    random: Math.random,
    store,
    coordinator: new MemoryCoordinator(),
    clock,
    node: name,
    channels: [
      new WebhookChannel({
        name: 'hook',
        url: () => hook.url,
        shownUrl: 'hook',
        template: 'slack',
        headers: () => ({}),
      }),
    ],
    settings: { ...DEFAULT_ALERT_SETTINGS, groupWindowMs: WINDOW },
    workflowAlerts: async () => ({ channels: ['hook'], rules: ['task_failed'] }),
    sweepMs: 30_000,
  });
}

describe('a burst of failures', () => {
  it('50 failures in one minute, raised by two nodes: one immediate alert and one grouped summary', async () => {
    const hook = await startWebhookReceiver();
    const dir = tempDir('ax-alert-group-');
    const [storeA, storeB] = [
      await openSqliteStore(path.join(dir, 'ax.db')),
      await openSqliteStore(path.join(dir, 'ax.db')),
    ];
    cleanup.push(async () => {
      await hook.close();
      await storeA.close();
      await storeB.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const clock = new FakeClock(T0);
    const a = await node('node-a', storeA, clock, hook);
    const b = await node('node-b', storeB, clock, hook);
    for (let i = 1; i <= 50; i++) {
      clock.jump(1_000);
      for (const center of [a, b]) {
        center.raise({
          rule: 'task_failed',
          subject: 'workflow:nightly-etl',
          event: `instance:${i}`,
          workflow: 'nightly-etl',
          instanceId: i,
          severity: 'critical',
          title: `nightly-etl: task "t${i}" failed`,
          message: 'exit code 1',
        });
      }
    }
    await Promise.all([a.idle(), b.idle()]);
    expect(hook.posts.map((p) => (p.body as { text: string }).text.split('\n')[0])).toEqual([
      '[FAILED] nightly-etl: task "t1" failed',
    ]);
    const recorded = await storeA.listAlerts({ limit: 1000 });
    expect(recorded).toHaveLength(50);
    expect(recorded.filter((r) => r.kind === 'grouped')).toHaveLength(49);

    // The window ends: the opener's node has a timer for it, and the other sweeps as well.
    await clock.advance(WINDOW);
    await Promise.all([b.sweep(), a.idle(), b.idle()]);
    await Promise.all([a.idle(), b.idle()]);
    expect(hook.posts).toHaveLength(2);
    expect((hook.posts[1]?.body as { text: string }).text.split('\n')[0]).toBe(
      '[FAILED] 49 more task failures of nightly-etl in 10m',
    );
    const [summary] = await storeA.listAlerts({ limit: 1 });
    expect(summary).toMatchObject({ kind: 'summary', repeats: 49, state: 'sent', workflow: 'nightly-etl' });
    // Nothing more is due: another sweep sends nothing.
    await a.sweep();
    await a.idle();
    expect(hook.posts).toHaveLength(2);
  });

  it('a group with no repeats sends no summary; the next window opens a new group', async () => {
    const hook = await startWebhookReceiver();
    const dir = tempDir('ax-alert-group-');
    const store = await openSqliteStore(path.join(dir, 'ax.db'));
    cleanup.push(async () => {
      await hook.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const clock = new FakeClock(T0);
    const a = await node('node-a', store, clock, hook);
    const raise = (i: number) =>
      a.raise({
        rule: 'task_failed',
        subject: 'workflow:w',
        event: `instance:${i}`,
        workflow: 'w',
        severity: 'critical',
        title: `w: t${i} failed`,
        message: '',
      });
    raise(1);
    await a.idle();
    await clock.advance(WINDOW + 1_000);
    await a.idle();
    raise(2);
    await a.idle();
    expect(hook.posts.map((p) => (p.body as { text: string }).text.split('\n')[0])).toEqual([
      '[FAILED] w: t1 failed',
      '[FAILED] w: t2 failed',
    ]);
  });
});

describe('the store away', () => {
  it('a sweep that cannot reach the store sends store_unreachable on its own, once per window, recording nothing', async () => {
    const hook = await startWebhookReceiver();
    const dir = tempDir('ax-alert-store-');
    const store = await openSqliteStore(path.join(dir, 'ax.db'));
    cleanup.push(async () => {
      await hook.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const clock = new FakeClock(T0);
    const center = new AlertCenter({
      random: Math.random,
      store,
      coordinator: new MemoryCoordinator(),
      clock,
      node: 'node-a',
      channels: [
        new WebhookChannel({
          name: 'hook',
          url: () => hook.url,
          shownUrl: 'hook',
          template: 'slack',
          headers: () => ({}),
        }),
      ],
      settings: {
        ...DEFAULT_ALERT_SETTINGS,
        engine: { channels: ['hook'], rules: ['store_unreachable'] },
        groupWindowMs: WINDOW,
      },
      workflowAlerts: async () => undefined,
      sweepMs: 30_000,
    });
    await store.close();
    for (let i = 0; i < 3; i++) {
      await center.sweep();
      await center.idle();
      clock.jump(30_000);
    }
    expect(hook.posts.map((p) => (p.body as { text: string }).text.split('\n')[0])).toEqual([
      '[FAILED] node-a cannot reach its store',
    ]);
    // The next window, still away: told again.
    clock.jump(WINDOW);
    await center.sweep();
    await center.idle();
    expect(hook.posts).toHaveLength(2);
  });
});

// The queue_long rule (design.md §10’s threshold): a worker that takes nothing from its queue
// while the leader dispatches to it (a registered worker that never takes: a hung one) has a
// queue past the threshold, and the leading scheduler raises one queue_long alert for it. A
// scheduler-only engine on a fake clock, a real SQLite store, the worker registered by hand.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { DEFAULT_ALERT_SETTINGS } from '../../engine/core/alerts/alert-settings.ts';
import { Engine } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';

const T0 = Date.parse('2026-12-01T03:00:00Z');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('queue_long', () => {
  it('a worker whose queue passes the threshold is one alert', async () => {
    const dir = tempDir('ax-queue-alert-');
    const clock = new FakeClock(T0);
    const store = await openSqliteStore(path.join(dir, 'ax.db'));
    const coordinator = new MemoryCoordinator({ now: () => clock.now() });
    const engine = new Engine({
      ...nodeHostDefaults(),
      store,
      coordinator,
      runner: new NodeProcessRunner(),
      clock,
      nodeId: 'scheduler-1',
      config: { queueAlertThreshold: 2, tickMs: 1_000 },
      alerts: {
        settings: { ...DEFAULT_ALERT_SETTINGS, engine: { channels: [], rules: ['queue_long'] } },
        channels: [],
      },
    });
    cleanups.push(async () => {
      await engine.stop(0);
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const hung: WorkerRecord = {
      id: 'hung',
      host: 'h',
      pid: 1,
      version: 'test',
      labels: [],
      maxConcurrency: 5,
      running: 0,
      startedAt: T0,
      lastHeartbeat: T0,
      status: 'online',
      acceptUnlabelled: true,
    };
    await store.upsertWorker(hung);
    await coordinator.heartbeatWorker(hung, 60_000);
    const tasks = Array.from({ length: 5 }, (_, i) => `  t${i}: { command: "true" }`).join('\n');
    await engine.apply(
      parseWorkflowFile(`workflow: wide\ntasks:\n${tasks}\n`, { defaultTimezone: 'UTC' }).spec,
      'test',
    );
    await engine.start();
    await engine.runWorkflow('wide', { actor: 'test' });
    await waitFor(async () => (await coordinator.queueLength('hung')) === 5, {
      message: 'five dispatches queued for the hung worker',
    });
    // Another pass (the next tick) looks at the queues again: still one alert.
    await clock.advance(2_000);
    const alert = await waitFor(
      async () => {
        await engine.alertsIdle();
        return (await engine.listAlerts({ rule: 'queue_long' }))[0];
      },
      { message: 'the queue_long alert' },
    );
    expect(alert).toMatchObject({
      subject: 'queue',
      state: 'unsent',
      title: 'queue of worker hung is 5 long (threshold 2): workers cannot keep up',
    });
    await clock.advance(2_000);
    await engine.alertsIdle();
    expect(await engine.listAlerts({ rule: 'queue_long' })).toHaveLength(1);
  });
});

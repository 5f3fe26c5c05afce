// Team mode, "exactly one sender" of an alert: two schedulers and two workers, all with the same
// webhook channel in their settings.json, and a receiver started here. A failed run is one post,
// never two, whichever node finished it; so is its recovery. Every alert is one row of the team's
// database, recorded by the node that sent it.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/alert-receivers.ts';
import { Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';

const available = await teamServicesAvailable();

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('team: one alert, one sender', () => {
  let team: Team;
  let hook: WebhookReceiver;

  beforeAll(async () => {
    team = await Team.open('alerts');
    hook = await startWebhookReceiver();
    fs.mkdirSync(team.dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(team.dataDir, 'settings.json'),
      JSON.stringify({
        alerts: {
          channels: { hook: { type: 'webhook', url: hook.url, template: 'slack' } },
          workflows: { channels: ['hook'] },
          engine: { channels: ['hook'], rules: ['worker_lost'] },
        },
      }),
      // AX refuses a settings file others can read (it may hold passwords)
      { mode: 0o600 },
    );
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
    await hook?.close();
  });

  it(
    'two schedulers and two workers: one failure is one webhook post, its recovery one more, a lost worker one more',
    async () => {
      await team.serveAll([
        { role: 'scheduler', name: 's1', noWork: true },
        { role: 'scheduler', name: 's2', noWork: true },
        { role: 'worker', workerId: 'w1' },
        { role: 'worker', workerId: 'w2' },
      ]);
      await team.waitWorkersOnline(['w1', 'w2']);
      const flag = path.join(team.dir, 'fixed');
      await team.apply({
        workflow: 'etl',
        tasks: { load: { command: `test -f ${flag}`, retries: 1, retry_backoff: '100ms' } },
      });
      const failed = await team.startRunInProcess('etl');
      expect((await team.waitRun(failed)).state).toBe('FAILED');
      const alert = await team.waitFor(
        async () => (await team.store.listAlerts({ rule: 'run_failed' })).find((a) => a.state === 'sent'),
        {
          timeoutMs: 20_000,
          message: 'the run_failed alert to be sent',
        },
      );
      expect(alert).toMatchObject({ runId: failed, workflow: 'etl', kind: 'immediate' });

      fs.writeFileSync(flag, '');
      const fixed = await team.startRunInProcess('etl');
      expect((await team.waitRun(fixed)).state).toBe('SUCCESS');
      await team.waitFor(
        async () => (await team.store.listAlerts({ rule: 'recovered' })).find((a) => a.state === 'sent'),
        { timeoutMs: 20_000, message: 'the recovery alert to be sent' },
      );

      // A worker killed: judged lost by whichever scheduler leads, told once.
      await team.nodes.find((n) => n.name === 'w2')?.kill9();
      await team.waitFor(
        async () => (await team.store.listAlerts({ rule: 'worker_lost' })).find((a) => a.state === 'sent'),
        { timeoutMs: 30_000, message: 'the worker_lost alert to be sent' },
      );

      // Every node stops cleanly, which waits for the alerts it has under way: nothing more arrives.
      await Promise.all(
        team.nodes.map((n) => {
          n.kill('SIGTERM');
          return n.result(60_000);
        }),
      );
      expect(hook.posts.map((p) => (p.body as { text: string }).text.split('\n')[0])).toEqual([
        `[FAILED] etl: run #${failed} failed: task "load" failed after 2 attempt(s)`,
        `[OK] etl: recovered, run #${fixed} succeeded after failed run #${failed}`,
        expect.stringMatching(/^\[FAILED\] worker w2 \(.+\) lost: no heartbeat for \d+s$/),
      ]);
      expect((await team.store.listAlerts({})).map((a) => [a.rule, a.runId, a.deliveries.length])).toEqual([
        ['worker_lost', undefined, 1],
        ['recovered', fixed, 1],
        ['run_failed', failed, 1],
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});

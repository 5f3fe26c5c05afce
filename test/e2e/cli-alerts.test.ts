// `ax alerts` as a person uses it: the channels from settings.json with the webhook's
// token masked, `ax alerts test CHANNEL` reaching a real receiver (and exiting non-zero when it
// does not), the alerts recorded with how each delivery went, a workflow's alerts: exported
// back, and `ax settings set` keeping the alerts object it does not manage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRecord } from '../../engine/api/alerts.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/alert-receivers.ts';
import { ax, axJson, killAllAx } from '../helpers/ax.ts';
import { tempDir, writeFile } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

let dataDir: string;
let hook: WebhookReceiver;
const opts = () => ({ dataDir });

beforeAll(async () => {
  dataDir = tempDir('ax-cli-alerts-');
  hook = await startWebhookReceiver((n) => (n === 2 ? 500 : 200));
  const alerts = {
    channels: {
      'ops-slack': { type: 'webhook', url: hook.url, template: 'slack', retries: 0 },
      nowhere: { type: 'webhook', url: 'http://127.0.0.1:9/hooks/xyz', retries: 0, timeout: '2s' },
    },
    workflows: { channels: ['ops-slack'] },
  };
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ alerts }, null, 2), { mode: 0o600 });
});
afterAll(async () => {
  await killAllAx();
  await hook.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('ax alerts', () => {
  it('channels: names, kinds and targets, the token never printed', async () => {
    const r = await ax(['alerts', 'channels'], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`ops-slack  webhook  ${new URL(hook.url).origin}/***  slack`);
    expect(r.stdout).not.toContain('secret-token');
    expect(r.stdout).not.toContain('xyz');
  });

  it('test CHANNEL sends one message and says so; a channel that fails exits 1 saying why; an unknown one exits 3', async () => {
    const ok = await ax(['alerts', 'test', 'ops-slack'], opts());
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^sent a test alert through ops-slack \(alert \d+\)\n$/);
    expect(hook.posts).toHaveLength(1);
    expect((hook.posts[0]?.body as { text: string }).text).toMatch(/^\[TEST\] Test alert from AX Scheduler/);

    const refused = await ax(['alerts', 'test', 'ops-slack'], opts());
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /the test alert through ops-slack failed: ops-slack: failed \(POST http:\/\/127\.0\.0\.1:\d+\/\*\*\*: HTTP 500/,
    );

    const unknown = await ax(['alerts', 'test', 'pager'], opts());
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('no alert channel "pager"');
  });

  it('lists what was recorded, newest first, filtered; --json has the deliveries', async () => {
    writeFile(
      dataDir,
      'etl.yaml',
      'workflow: etl\nalerts:\n  channels: [ops-slack]\n  rules: [run_failed]\ntasks:\n  load:\n    command: exit 1\n',
    );
    const run = await ax(['run', path.join(dataDir, 'etl.yaml'), '--wait'], opts());
    expect(run.code).toBe(1);
    const list = await axJson<AlertRecord[]>(['alerts', '--workflow', 'etl'], opts());
    expect(list.map((a) => [a.rule, a.workflow, a.state])).toEqual([['run_failed', 'etl', 'sent']]);
    const all = await ax(['alerts', '-n', '10'], opts());
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+WHEN \(.+\)\s+RULE\s+STATE\s+ALERT\s+DELIVERIES$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[2])).toEqual(['run_failed', 'test', 'test']);
    expect(all.stdout).toContain('etl: run #1 failed: task "load" failed after 1 attempt(s)');
    expect((await ax(['alerts', '--state', 'nope'], opts())).stderr).toContain(
      '--state must be one of sending, sent, failed, grouped, unsent',
    );
  });

  it('ax settings sums up the alerts object in one line, no URL in it', async () => {
    const r = await ax(['settings'], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'alerts        2 channel(s) (ops-slack, nowhere); workflows: run_failed,recovered → ops-slack; engine: worker_lost,queue_long,store_unreachable,clock_step → no channel (settings file; "ax alerts channels")',
    );
    expect(r.stdout).not.toContain('secret-token');
  });

  it('export writes the workflow alerts back; ax settings set keeps the alerts object', async () => {
    const exported = await ax(['export', 'etl'], opts());
    expect(exported.stdout).toContain('alerts:\n  channels: [ops-slack]\n  rules: [run_failed]\n');
    expect((await ax(['settings', 'set', 'redis-prefix', 'mine:'], opts())).code).toBe(0);
    const stored = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')) as {
      alerts: { channels: object };
      'redis-prefix': string;
    };
    expect(stored['redis-prefix']).toBe('mine:');
    expect(Object.keys(stored.alerts.channels)).toEqual(['ops-slack', 'nowhere']);
  });

  it('through ax serve: its engine sends a run failure, and ax alerts lists it', async () => {
    const serve = await startServe(opts());
    try {
      const posts = hook.posts.length;
      // Another workflow: a second failure of etl within 10 minutes would be grouped, not sent.
      const file = writeFile(dataDir, 'served.yaml', 'workflow: served\ntasks:\n  load:\n    command: exit 1\n');
      const run = await ax(['run', file], opts());
      expect(run.code, run.stderr).toBe(0);
      const id = Number(/run #(\d+)/.exec(run.stdout)?.[1]);
      const alert = await waitFor(
        async () =>
          (await axJson<AlertRecord[]>(['alerts', '--workflow', 'served'], opts())).find(
            (a) => a.runId === id && a.state === 'sent',
          ),
        {
          timeoutMs: 20_000,
          message: 'the alert of the run through ax serve',
        },
      ).catch(async (err: unknown) => {
        throw new Error(
          `${String(err)}\nrun: ${run.stdout}\nalerts: ${JSON.stringify(await axJson(['alerts'], opts()))}\nserve: ${serve.stderr}`,
        );
      });
      // Sent by the server's engine, not by a command's.
      expect(alert.node).toBe(`${os.hostname()}:${serve.pid}`);
      expect(hook.posts).toHaveLength(posts + 1);
    } finally {
      serve.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('ax settings set alerts takes the object as JSON (from stdin with -), checked first; unset removes it', async () => {
    const dir = tempDir('ax-cli-alerts-set-');
    try {
      expect((await ax(['settings', 'set', 'mode', 'solo'], { dataDir: dir })).code).toBe(0);
      const alerts = {
        channels: { hook: { type: 'webhook', url: { secret: 'hook-url' }, template: 'feishu' } },
        workflows: { channels: ['hook'] },
      };
      const set = await ax(['settings', 'set', 'alerts', '-'], { dataDir: dir, input: JSON.stringify(alerts) });
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toContain('alerts        1 channel(s) (hook); workflows: run_failed,recovered → hook;');
      const file = () =>
        JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>;
      expect(file()).toEqual({ mode: 'solo', alerts });
      expect((fs.statSync(path.join(dir, 'settings.json')).mode & 0o777).toString(8)).toBe('600');

      const bad = await ax(['settings', 'set', 'alerts', '{"workflows": {"channels": ["pager"]}}'], { dataDir: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        'ax settings set alerts: alerts.workflows.channels names "pager", not defined in alerts.channels',
      );
      expect((await ax(['settings', 'set', 'alerts', 'not json'], { dataDir: dir })).stderr).toContain(
        'the alerts setting must be a JSON object',
      );
      expect(file()).toEqual({ mode: 'solo', alerts });

      expect((await ax(['settings', 'unset', 'alerts'], { dataDir: dir })).code).toBe(0);
      expect(file()).toEqual({ mode: 'solo' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a mistake in settings.json alerts stops a command with the file, the field and the fix', async () => {
    const dir = tempDir('ax-cli-alerts-bad-');
    try {
      fs.writeFileSync(
        path.join(dir, 'settings.json'),
        JSON.stringify({ alerts: { workflows: { channels: ['ops'] } } }),
        { mode: 0o600 },
      );
      const r = await ax(['ls'], { dataDir: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `${path.join(dir, 'settings.json')}: alerts.workflows.channels names "ops", not defined in alerts.channels`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

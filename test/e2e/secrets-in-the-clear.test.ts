// No secret in the clear. A real `ax serve` with secrets set on its node; each
// kind of failure that used to quote one is provoked (a webhook alert channel whose URL, with
// credentials, is a secret: to a receiver answering 500 and to a closed port; a task whose secret
// holds a NUL byte, which made Node's spawn error quote it; a secret straddling the 64 KiB line
// cut), then the database files, `ax alerts`, `ax logs`, `ax runs` and the server's own output are
// searched for the values: none may hold one. NULs are refused where a value is set.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlertRecord } from '../../engine/api/alerts.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/alert-receivers.ts';
import { ax, axJson } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { serveFixture } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const HOOK_PASS = 'HookPass-9c1e77f0';
const CLOSED_PASS = 'ClosedPass-4b2d11aa';
const TASK_TOKEN = 'Zq7Straddle-secret-8841';
const NUL_HEAD = 'NulSecret-77aa';
const NUL_TAIL = 'after-nul-part-99';
const WEBHOOK_TOKEN = 'webhook-token-for-the-nul-test-0123';
let receiver: WebhookReceiver;
let closedUrl: string;
let hookUrl: string;

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every text the node kept or answered: what must not hold a secret. */
const SECRETS = [HOOK_PASS, CLOSED_PASS, TASK_TOKEN, NUL_HEAD, NUL_TAIL];
// The first part of the straddling secret: what showed before the mask ran before the cut.
const STRADDLE_HEAD = TASK_TOKEN.slice(0, 6);

function found(text: string): string[] {
  return [...SECRETS, STRADDLE_HEAD].filter((s) => text.includes(s));
}

// the secrets, settings and a webhook receiver that is down, all in place before `ax serve` starts
const fx = serveFixture('ax-secret-clear-', {
  async prepare(box) {
    receiver = await startWebhookReceiver(() => ({ status: 500, body: '{"error":"the receiver is down"}' }));
    const u = new URL(receiver.url);
    hookUrl = `http://hook-user:${HOOK_PASS}@${u.host}${u.pathname}`;
    closedUrl = `http://closed-user:${CLOSED_PASS}@127.0.0.1:${await closedPort()}/hook`;
    const opts = box.opts();
    for (const [name, value] of [
      ['hook-url', hookUrl],
      ['closed-url', closedUrl],
      ['task-token', TASK_TOKEN],
    ]) {
      const r = await ax(['secrets', 'set', name as string], { ...opts, input: value });
      expect(r.code, r.stderr).toBe(0);
    }
    // A value with a NUL, as a file edited by hand (or written before NULs were refused) holds it.
    const file = path.join(box.dataDir, 'task-secrets.json');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { secrets: Record<string, unknown> };
    stored.secrets['nul-secret'] = { value: `${NUL_HEAD}\u0000${NUL_TAIL}`, setAt: Date.now() };
    fs.writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    fs.writeFileSync(path.join(box.dataDir, 'webhook-token'), WEBHOOK_TOKEN, { mode: 0o600 });
    fs.writeFileSync(
      path.join(box.dataDir, 'settings.json'),
      JSON.stringify({
        alerts: {
          retryDelay: '50ms',
          channels: {
            down: { type: 'webhook', url: { secret: 'hook-url' }, retries: 1 },
            closed: { type: 'webhook', url: { secret: 'closed-url' }, retries: 0 },
          },
          workflows: { channels: ['down', 'closed'], rules: ['task_failed'] },
        },
      }),
      { mode: 0o600 },
    );
  },
});

afterAll(async () => {
  await receiver?.close();
});

describe('secrets never in the clear', () => {
  it('a NUL byte is refused where a secret is set, with the reason, and nothing is stored', async () => {
    const r = await ax(['secrets', 'set', 'with-nul'], { ...fx.opts(), input: 'abc\u0000def' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'the value of secret "with-nul" holds a NUL byte (at character 4), which no process environment can carry',
    );
    expect(fs.readFileSync(path.join(fx.dataDir, 'task-secrets.json'), 'utf8')).not.toContain('with-nul');
  });

  it('a NUL byte in an event payload is refused at the door, and no run starts', async () => {
    writeFile(fx.root, 'listener.yaml', 'workflow: listener\non_event: nul-test\ntasks:\n  t:\n    command: "true"\n');
    expect((await ax(['apply', 'listener.yaml'], fx.opts())).code).toBe(0);
    const res = await fetch(`http://127.0.0.1:${fx.serve.port}/events/nul-test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${WEBHOOK_TOKEN}`, 'content-type': 'text/plain' },
      body: 'before\u0000after',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/NUL|binary/);
    expect(await axJson<unknown[]>(['runs', 'listener'], fx.opts())).toEqual([]);
  });

  it('failures that quote secrets (webhook 500 and closed port, spawn error, a line cut) keep none of them', async () => {
    writeFile(
      fx.root,
      'leaky.yaml',
      [
        'workflow: leaky',
        'tasks:',
        '  long:',
        // 65,530 bytes, then the secret: it straddles the 64 KiB cut
        `    command: 'head -c 65530 /dev/zero | tr "\\\\0" x; printf "%s\\\\n" "$TOK"; echo "whole $TOK"; echo "err $TOK" >&2; exit 3'`,
        '    env:',
        '      TOK: { secret: task-token }',
        '  nul:',
        '    command: echo "$NUL"',
        '    env:',
        '      NUL: { secret: nul-secret }',
        '',
      ].join('\n'),
    );
    const applied = await ax(['apply', 'leaky.yaml'], fx.opts());
    expect(applied.code, applied.stderr).toBe(0);
    const run = await ax(['--json', 'run', 'leaky', '--wait'], fx.opts());
    expect(run.code).not.toBe(0);
    const runId = (JSON.parse(run.stdout) as { run: { id: number } }).run.id;

    // Both tasks failed: the first failure is sent through both channels (the second is grouped with it); each delivery failed.
    const alerts = await waitForFailedAlerts(1);
    const errors = alerts.flatMap((a) => a.deliveries.map((d) => `${d.channel}: ${d.error ?? ''}`));
    expect(errors.join('\n')).toMatch(/closed: POST \{secret: closed-url\}: ECONNREFUSED/);
    expect(errors.join('\n')).toMatch(/down: POST \{secret: hook-url\}: HTTP 500/);
    // The 500 receiver got the posts, credentials as Basic authorization (not refused by fetch).
    expect(receiver.posts.length).toBeGreaterThan(0);
    expect(receiver.posts[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`hook-user:${HOOK_PASS}`).toString('base64')}`,
    );

    const instances = (
      await axJson<{ instances: { taskName: string; id: number; reason?: string; state: string }[] }>(
        ['runs', String(runId)],
        fx.opts(),
      )
    ).instances;
    const nul = instances.find((i) => i.taskName === 'nul');
    expect(nul?.state).toBe('FAILED');
    expect(nul?.reason).toContain('could not start: the value of secret "nul-secret" holds a NUL byte');

    const long = await ax(['logs', String(runId), 'long'], fx.opts());
    const cut = long.stdout.split('\n').find((l) => l.includes('[line truncated'));
    // The cut line is the x's, then *** for the whole secret (not its first part), then the marker.
    expect(cut && /^x+\*\*\* … \[line truncated: (\d+) bytes\]$/.exec(cut)?.[1]).toBe(
      String(65530 + TASK_TOKEN.length),
    );
    expect(long.stdout).toContain('whole ***');
    expect(long.stderr).toContain('err ***');

    const answers = [
      run.stdout,
      run.stderr,
      long.stdout,
      long.stderr,
      (await ax(['logs', String(runId), 'nul'], fx.opts())).stdout,
      (await ax(['--json', 'alerts'], fx.opts())).stdout,
      (await ax(['alerts'], fx.opts())).stdout,
      (await ax(['--json', 'runs', String(runId)], fx.opts())).stdout,
      (await ax(['--json', 'audit'], fx.opts())).stdout,
      fx.serve.stdout,
      fx.serve.stderr,
    ].join('\n');
    expect(found(answers)).toEqual([]);
    // The database files themselves, bytes and all (the WAL holds what is not yet checkpointed).
    const files = fs.readdirSync(fx.dataDir).filter((f) => f.startsWith('ax.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(found(fs.readFileSync(path.join(fx.dataDir, f)).toString('latin1')), f).toEqual([]);
  }, 120_000);
});

/** The failed alerts of workflow leaky, once `count` have ended failed (their retries spent). */
function waitForFailedAlerts(count: number): Promise<AlertRecord[]> {
  return waitFor(
    async () => {
      const alerts = await axJson<AlertRecord[]>(['alerts', '--workflow', 'leaky', '--state', 'failed'], fx.opts());
      return alerts.length >= count ? alerts : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, message: `${count} failed alerts of leaky` },
  );
}

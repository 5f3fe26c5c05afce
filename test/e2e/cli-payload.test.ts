// Event payloads and the doors of `ax serve` (design.md §12): one size limit (1 MiB) at every
// door, with the limit in the message (webhook 413, `ax trigger` exit 2) and no run created; a
// 200 KiB payload, too large for one environment string, reaches the task intact as the file
// AX_EVENT_PAYLOAD_FILE, removed after the instance ends, whether it came over the webhook, from
// `ax trigger --payload-file FILE` or from stdin. And the tokens: the WebSocket API refuses no
// token, a wrong one and a foreign Origin; the webhook answers 401, 404, 413 and 202.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax } from '../helpers/ax.ts';
import { openDataDirStore, REPO, writeFile } from '../helpers/files.ts';
import { apiUpgrade, serveFixture } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const WEBHOOK_TOKEN = 'hook-secret-0123456789';
const LIMIT = 1024 * 1024;
let db: SqlStore;

const served = serveFixture('ax-cli-payload-', {
  prepare: async ({ root, dataDir, opts }) => {
    fs.writeFileSync(path.join(dataDir, 'webhook-token'), WEBHOOK_TOKEN, { mode: 0o600 });
    // The task reports how the payload came, its size and digest, and where the file was.
    writeFile(
      root,
      'big.yaml',
      `workflow: big
on_event: big
tasks:
  read:
    command: 'if [ -n "$AX_EVENT_PAYLOAD_FILE" ]; then echo "file $(wc -c < "$AX_EVENT_PAYLOAD_FILE" | tr -d " ") $(sha256sum < "$AX_EVENT_PAYLOAD_FILE" | cut -c1-64) $AX_EVENT_PAYLOAD_FILE"; else echo "env $(printf %s "$AX_EVENT_PAYLOAD" | wc -c | tr -d " ") $(printf %s "$AX_EVENT_PAYLOAD" | sha256sum | cut -c1-64)"; fi'
`,
    );
    expect((await ax(['apply', './big.yaml'], opts())).code).toBe(0);
  },
});
const opts = () => served.opts();

beforeAll(async () => {
  db = await openDataDirStore(served.dataDir);
});

afterAll(async () => {
  await db?.close();
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** A JSON payload of exactly `bytes` bytes. */
const payloadOf = (bytes: number) => {
  const head = '{"data":"';
  return `${head}${randomBytes(bytes)
    .toString('base64')
    .slice(0, bytes - head.length - 2)}"}`;
};

async function runLine(runId: number): Promise<string> {
  const run = await waitFor(
    async () => {
      const r = await db.getRun(runId);
      return r && r.state !== 'RUNNING' ? r : undefined;
    },
    { timeoutMs: 30_000, message: `run #${runId} to end` },
  );
  const [inst] = await db.listInstances(runId);
  const lines = (await db.readLogs(inst?.id as number, 0, 10)).map((l) => l.line);
  expect(run.state, lines.join('\n')).toBe('SUCCESS');
  return lines[0] as string;
}

/** Checks the task read the payload from a file that is gone now. */
function expectFile(line: string, payload: string): void {
  const m = /^file (\d+) ([0-9a-f]{64}) (\S+)$/.exec(line);
  expect(m, line).not.toBeNull();
  expect(Number(m?.[1])).toBe(Buffer.byteLength(payload));
  expect(m?.[2]).toBe(sha(payload));
  expect(fs.existsSync(m?.[3] as string)).toBe(false);
}

const post = (name: string, body: string, token: string | null = WEBHOOK_TOKEN) =>
  fetch(`http://127.0.0.1:${served.serve.port}/events/${name}`, {
    method: 'POST',
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    body,
  });

const runCount = async () => (await db.listRuns({ workflowName: 'big', limit: 1000 })).length;

describe('event payloads at every door', () => {
  it('a 200 KiB payload reaches the task intact through AX_EVENT_PAYLOAD_FILE: webhook, --payload-file FILE and stdin', async () => {
    const payload = payloadOf(200 * 1024);
    const hook = await post('big', payload);
    expect(hook.status).toBe(202);
    const [viaHook] = ((await hook.json()) as { runs: RunRecord[] }).runs;
    expectFile(await runLine(viaHook?.id as number), payload);

    const file = writeFile(served.root, 'payload.json', payload);
    const cli = await ax(['--json', 'trigger', 'big', '--payload-file', file], opts());
    expect(cli.code, cli.stderr).toBe(0);
    const [viaCli] = JSON.parse(cli.stdout) as RunRecord[];
    expectFile(await runLine(viaCli?.id as number), payload);

    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
    const piped = spawnSync(
      process.execPath,
      [path.join(REPO, 'bin', 'ax.mjs'), '--json', 'trigger', 'big', '--payload-file', '-'],
      {
        input: payload,
        env: { ...env, AX_DATA_DIR: served.dataDir },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(piped.status, piped.stderr).toBe(0);
    const [viaStdin] = JSON.parse(piped.stdout) as RunRecord[];
    expectFile(await runLine(viaStdin?.id as number), payload);
  });

  it('a small payload still comes in AX_EVENT_PAYLOAD', async () => {
    const r = await ax(['--json', 'trigger', 'big', '--payload', '{"day":"2026-11-29"}'], opts());
    expect(r.code, r.stderr).toBe(0);
    const [run] = JSON.parse(r.stdout) as RunRecord[];
    expect(await runLine(run?.id as number)).toBe(`env 20 ${sha('{"day":"2026-11-29"}')}`);
  });

  it('2 MiB is refused with the limit in the message, 413 at the webhook and exit 2 from ax trigger, and starts nothing', async () => {
    const before = await runCount();
    const payload = payloadOf(2 * LIMIT);
    const hook = await post('big', payload);
    expect(hook.status).toBe(413);
    expect(((await hook.json()) as { error: string }).error).toBe(
      'the event payload is 2 MiB (2097152 bytes), over the limit of 1 MiB (1048576 bytes): pass large data by reference (a path or a URL) instead',
    );
    const cli = await ax(['trigger', 'big', '--payload-file', writeFile(served.root, 'huge.json', payload)], opts());
    expect(cli.code).toBe(2);
    expect(cli.stderr).toBe(
      'ax: the event payload is 2 MiB (2097152 bytes), over the limit of 1 MiB (1048576 bytes): pass large data by reference (a path or a URL) instead\n',
    );
    // sent in chunks, with no Content-Length: read to the end and refused with its real size
    const chunked = await fetch(`http://127.0.0.1:${served.serve.port}/events/big`, {
      method: 'POST',
      headers: { authorization: `Bearer ${WEBHOOK_TOKEN}` },
      body: new Blob([payload]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as { error: string }).error).toContain('is 2 MiB (2097152 bytes), over the limit');
    // one byte over, and exactly the limit
    const over = await post('big', payloadOf(LIMIT + 1));
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: string }).error).toContain(
      '(1048577 bytes), over the limit of 1 MiB (1048576 bytes)',
    );
    expect(await runCount()).toBe(before);
    expect((await post('big', payloadOf(LIMIT))).status).toBe(202);
    expect(await runCount()).toBe(before + 1);
  });
});

describe('payloads said to be JSON are JSON', () => {
  it('ax trigger --payload refuses text that is not JSON (exit 2, nothing started); --payload-file takes any text', async () => {
    const before = await runCount();
    const bad = await ax(['trigger', 'big', '--payload', '{day: 29}'], opts());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^ax: --payload is not JSON \(.+\): quote text as a JSON string, e\.g\. --payload '"hello"', or use --payload-file for other formats\n$/,
    );
    expect(await runCount()).toBe(before);
    const csv = await ax(
      ['trigger', 'big', '--payload-file', writeFile(served.root, 'orders.csv', 'id,day\n1,29\n')],
      opts(),
    );
    expect(csv.code, csv.stderr).toBe(0);
    expect(await runCount()).toBe(before + 1);
  });

  it('the webhook refuses a body sent as JSON that is not (400), and passes other content types', async () => {
    const before = await runCount();
    const send = (type: string, body: string) =>
      fetch(`http://127.0.0.1:${served.serve.port}/events/big`, {
        method: 'POST',
        headers: { authorization: `Bearer ${WEBHOOK_TOKEN}`, 'content-type': type },
        body,
      });
    const bad = await send('application/json; charset=utf-8', '{"day": 29');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(
      /^the body is sent as JSON \(Content-Type: application\/json; charset=utf-8\) but is not JSON: /,
    );
    expect((await send('application/vnd.orders+json', 'nope')).status).toBe(400);
    expect(await runCount()).toBe(before);
    expect((await send('application/json', '{"day": 29}')).status).toBe(202);
    expect((await send('text/csv', 'id,day\n1,29')).status).toBe(202);
    expect(await runCount()).toBe(before + 2);
  });

  it('ax serve says at start whether webhooks are on and where the secret lives', () => {
    expect(served.serve.stdout).toContain(
      `webhooks on: POST http://127.0.0.1:${served.serve.port}/events/EVENT with "Authorization: Bearer SECRET", SECRET being the text of ${path.join(served.dataDir, 'webhook-token')}\n`,
    );
  });
});

describe('the doors of ax serve', () => {
  const upgrade = (headers: Record<string, string>, query = '') => apiUpgrade(served.serve.port, headers, query);

  it('the WebSocket API refuses no token, a wrong token, a token in the URL and a foreign Origin', async () => {
    const token = fs.readFileSync(path.join(served.dataDir, 'api-token'), 'utf8').trim();
    expect(await upgrade({})).toBe(401);
    expect(await upgrade({ authorization: 'Bearer nope' })).toBe(401);
    expect(await upgrade({ authorization: `Bearer ${token.slice(0, -1)}` })).toBe(401);
    expect(await upgrade({ authorization: `Bearer ${token}`, origin: 'https://evil.example' })).toBe(401);
    expect(await upgrade({ authorization: `Bearer ${token}` })).toBe(101);
    // never in a URL (logs, history, Referer): the header or the UI's session cookie only
    expect(await upgrade({}, `?token=${token}`)).toBe(401);
  });

  it('the webhook answers 401 without or with a wrong token, 404 for an unknown path or event, 202 when it starts runs', async () => {
    const before = await runCount();
    expect((await post('big', '{}', null)).status).toBe(401);
    expect((await post('big', '{}', 'wrong')).status).toBe(401);
    expect((await post('big', '{}', `${WEBHOOK_TOKEN}x`)).status).toBe(401);
    const unknown = await post('nobody-listens', '{}');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe(
      'no enabled workflow has on_event: nobody-listens',
    );
    expect((await fetch(`http://127.0.0.1:${served.serve.port}/other`, { method: 'POST' })).status).toBe(404);
    expect(await runCount()).toBe(before);
    const ok = await post('big', '{"ok":1}');
    expect(ok.status).toBe(202);
    expect(await runCount()).toBe(before + 1);
  });
});

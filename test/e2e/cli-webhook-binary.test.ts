// A binary body on the event webhook: it was decoded as UTF-8 and reached
// the task as "��", silently. A payload is text; a body that is not UTF-8 is refused with 415
// and the reason (base64 for binary data), and nothing starts. A real `ax serve`.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax, axJson } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { serveFixture } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const TOKEN = 'hook-secret-0123456789abcdef';
const served = serveFixture('ax-cli-webhook-binary-', {
  serveArgs: ['--port', '0'],
  prepare: ({ root, dataDir }) => {
    fs.writeFileSync(path.join(dataDir, 'webhook-token'), TOKEN, { mode: 0o600 });
    writeFile(
      root,
      'blob.yaml',
      'workflow: blob\non_event: blob\ntasks:\n  a:\n    command: printf %s "$AX_EVENT_PAYLOAD" | od -An -tx1\n',
    );
  },
});

const post = (body: Uint8Array | string, type = 'application/octet-stream') =>
  fetch(`http://127.0.0.1:${served.serve.port}/events/blob`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });

beforeAll(async () => {
  const applied = await axJson<{ workflow: string }>(['apply', 'blob.yaml'], served.opts());
  expect(applied.workflow).toBe('blob');
}, 60_000);

describe('the webhook body must be text', () => {
  it('bytes that are not UTF-8 are refused with 415 and the reason; no run starts', async () => {
    const res = await post(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]));
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      error:
        'the body is not UTF-8 text, and an event payload is text: send JSON or UTF-8 text; base64-encode binary data (e.g. "base64 -w0 file.bin") and decode it in the task',
    });
    // a Latin-1 "café" is not UTF-8 either
    expect((await post(Buffer.from('caf\xe9', 'latin1'), 'text/plain')).status).toBe(415);
    expect(await axJson<RunRecord[]>(['runs', 'blob'], served.opts())).toEqual([]);
  });

  it('UTF-8 text, and binary data sent as base64, start the run with the bytes intact', async () => {
    const res = await post('café ✓', 'text/plain; charset=utf-8');
    expect(res.status).toBe(202);
    const { runs } = (await res.json()) as { runs: { id: number }[] };
    const runId = runs[0]?.id as number;
    await waitFor(
      async () =>
        (await axJson<RunRecord[]>(['runs', 'blob'], served.opts())).find(
          (r) => r.id === runId && r.state === 'SUCCESS',
        )
          ? true
          : undefined,
      {
        timeoutMs: 30_000,
        message: 'the run of the UTF-8 payload did not succeed',
      },
    );
    const logs = await ax(['logs', String(runId), 'a'], served.opts());
    expect(logs.stdout.replace(/\s+/g, ' ').trim()).toBe('63 61 66 c3 a9 20 e2 9c 93'); // "café ✓", byte for byte
    const b64 = await post(Buffer.from([0x89, 0xff, 0x00]).toString('base64'), 'text/plain');
    expect(b64.status).toBe(202);
  });
});

// One send budget per WebSocket client, on the API server itself: a client
// that asks for big answers and reads none of them is, once over its budget and silent for the
// stall time, closed with code 1008 and a reason that says why; a client that reads is unharmed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectApi } from '../../engine/server/ws-client.ts';
import { type ApiServer, startApiServer } from '../../engine/server/ws-server.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

const TOKEN = 'test-token-0123456789abcdef0123456789';
let t: TestEngine;
let server: ApiServer;
let instanceId: number;

beforeAll(async () => {
  t = await startTestEngine();
  server = await startApiServer({ api: t.engine, token: TOKEN, sendStallMs: 1_500 });
  await t.apply(`workflow: big\ntasks:\n  talk:\n    command: 'seq 1 10000 | sed "s/$/ ${'y'.repeat(110)}/"'\n`);
  instanceId = (await t.runToEnd('big')).instances[0]?.id as number;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe('a client over its send budget', () => {
  it('that reads nothing is closed with 1008 and the reason; another client is served', async () => {
    const raw = new WebSocket(`ws://127.0.0.1:${server.port}/api`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise<void>((resolve, reject) => {
      raw.once('open', () => resolve());
      raw.once('error', reject);
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      raw.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    raw.pause();
    for (let i = 1; i <= 200; i++)
      raw.send(JSON.stringify({ id: i, method: 'readLogs', params: [instanceId, 0, 10_000] }));
    const normal = await connectApi(`ws://127.0.0.1:${server.port}/api`, TOKEN);
    expect((await normal.engineInfo()).mode).toBe('solo');
    // it reads again only after the server gave up on it: what was queued, then the close frame
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    raw.on('message', () => undefined);
    raw.resume();
    const { code, reason } = await closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/^closed: this client read none of its answers for 2 s \(\d+\.\d MiB unsent\)/);
    expect((await normal.engineInfo()).mode).toBe('solo');
    normal.close();
  }, 60_000);
});

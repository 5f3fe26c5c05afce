// The API server as a browser and an attacker meet it: the UI page under a strict CSP, sign-in
// by a single-use code traded for an HttpOnly session, the WebSocket refused without a token or
// session, with a token in the URL, or from a foreign Origin; topics delivered only to clients
// that watch them; a malformed or oversized frame ends that connection, never the server; log
// downloads need a session; the webhook token is read on every request.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApiClient } from '../../engine/api/client.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { type ApiServer, MAX_FRAME_BYTES, startApiServer } from '../../engine/server/ws-server.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { holdsFor, waitFor } from '../helpers/wait-for.ts';

const TOKEN = 'test-token-0123456789abcdef0123456789';
let t: TestEngine;
let server: ApiServer;
let base: string;
let uiDir: string;
let webhookToken: string | undefined;

beforeAll(async () => {
  t = await startTestEngine();
  uiDir = path.join(t.dir, 'ui');
  fs.mkdirSync(uiDir);
  fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>AX</title>');
  server = await startApiServer({ api: t.engine, token: TOKEN, uiDir, webhookToken: () => webhookToken });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
  await t?.close();
});

const codeOf = (url: string) => new URL(url).hash.replace('#code=', '');

async function signIn(origin = base): Promise<string> {
  const res = await fetch(`${base}/auth/session`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ code: codeOf(server.signInUrl()) }),
  });
  expect(res.status).toBe(204);
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  return cookie.split(';')[0] as string;
}

/** Resolves 'open' or the HTTP status of a refused upgrade. */
function tryUpgrade(url: string, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

describe('the page and sign-in', () => {
  it('serves the UI with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect((await fetch(`${base}/../../etc/passwd`)).status).toBe(404);
  });

  it('a code works once; a replayed, unknown or foreign-origin code is refused', async () => {
    const code = codeOf(server.signInUrl());
    const post = (c: unknown, origin = base) =>
      fetch(`${base}/auth/session`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ code: c }),
      });
    expect((await post(code, 'http://evil.example')).status).toBe(403);
    const first = await post(code);
    expect(first.status).toBe(204);
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect((await post(code)).status).toBe(401);
    expect((await post('made-up')).status).toBe(401);
    expect((await fetch(`${base}/auth/session`, { headers: { cookie } })).status).toBe(204);
    expect((await fetch(`${base}/auth/session`)).status).toBe(401);
    expect((await fetch(`${base}/auth/session`, { headers: { cookie: 'ax_session=forged' } })).status).toBe(401);
  });

  it('the API token mints codes for ax open; nothing else does', async () => {
    expect((await fetch(`${base}/auth/code`, { method: 'POST' })).status).toBe(401);
    expect(
      (await fetch(`${base}/auth/code`, { method: 'POST', headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    const res = await fetch(`${base}/auth/code`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { code: string }).code.length).toBeGreaterThan(20);
  });
});

describe('the WebSocket', () => {
  it('refuses no token, a wrong token, a token in the URL and a foreign Origin; accepts a bearer or an own-origin session', async () => {
    const url = `ws://127.0.0.1:${server.port}/api`;
    const cookie = await signIn();
    expect(await tryUpgrade(url, {})).toBe(401);
    expect(await tryUpgrade(url, { authorization: 'Bearer nope' })).toBe(401);
    expect(await tryUpgrade(`${url}?token=${TOKEN}`, {})).toBe(401);
    expect(await tryUpgrade(url, { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' })).toBe(401);
    expect(await tryUpgrade(url, { cookie, origin: 'http://evil.example' })).toBe(401);
    expect(await tryUpgrade(url, { authorization: `Bearer ${TOKEN}` })).toBe('open');
    expect(await tryUpgrade(url, { cookie, origin: base })).toBe('open');
  });

  it('sends each client only the topics it watches', async () => {
    const watcher = await connectApi(`ws://127.0.0.1:${server.port}/api`, TOKEN);
    const other = await connectApi(`ws://127.0.0.1:${server.port}/api`, TOKEN);
    const got: EngineEvent[] = [];
    const stop = await watcher.subscribe(['workflows'], (e) => got.push(e));
    // A raw frame count on the second client: it watches nothing, so it must receive no event.
    let otherEvents = 0;
    const raw = new WebSocket(`ws://127.0.0.1:${server.port}/api`, { headers: { authorization: `Bearer ${TOKEN}` } });
    raw.on('message', (d) => (otherEvents += String(d).includes('"event"') ? 1 : 0));
    await new Promise((r) => raw.once('open', r));
    await t.apply('workflow: watched\ntasks:\n  a:\n    command: "true"\n');
    await t.runToEnd('watched');
    await waitFor(() => got.length > 0, { timeoutMs: 5_000 });
    // The run's events went out before runToEnd saw its end, and the watched one has arrived: a
    // stray event to either client would be on the wire by now, so 300 ms more catches it.
    await holdsFor(() => got.length === 1 && otherEvents === 0, 300, {
      message: 'no more events, none to the client that watches nothing',
    });
    expect(got).toEqual([expect.objectContaining({ type: 'workflow', change: 'applied', workflow: 'watched' })]);
    expect(otherEvents).toBe(0);
    stop();
    raw.close();
    watcher.close();
    other.close();
  });

  it('a frame of invalid UTF-8 or over the size limit ends that connection; the server answers the next client', async () => {
    for (const frame of [Buffer.from([0xff, 0xfe, 0x7b]), Buffer.alloc(MAX_FRAME_BYTES + 1, 0x20)]) {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api`, { headers: { authorization: `Bearer ${TOKEN}` } });
      await new Promise((r) => ws.once('open', r));
      ws.on('error', () => undefined);
      const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
      ws.send(frame, { binary: false });
      expect([1007, 1009, 1006]).toContain(await closed);
      const api = await connectApi(`ws://127.0.0.1:${server.port}/api`, TOKEN);
      expect(Array.isArray(await api.listWorkflows())).toBe(true);
      api.close();
    }
  });

  it('one client module serves any transport: an in-memory pair answers like the socket', async () => {
    const { serveConnection } = await import('../../engine/server/api-connection.ts');
    let toClient: (m: unknown) => void = () => undefined;
    const conn = serveConnection({ api: t.engine, send: (m) => toClient(JSON.parse(JSON.stringify(m))) });
    const client = createApiClient({
      send: (m) => conn.receive(JSON.parse(JSON.stringify(m))),
      onMessage: (h) => (toClient = h),
      onClose: () => undefined,
      close: () => conn.close(),
    });
    expect((await client.listWorkflows()).map((w) => w.name)).toContain('watched');
    await expect(client.getRun(987_654)).rejects.toMatchObject({ code: 'not_found' });
    client.close();
  });
});

describe('downloads and webhooks', () => {
  it('a log downloads whole with a session, never without', async () => {
    const { instances } = await t.runToEnd('watched');
    await t.apply('workflow: talk\ntasks:\n  say:\n    command: "for i in $(seq 1 12000); do echo line-$i; done"\n');
    const said = (await t.runToEnd('talk')).instances[0]?.id as number;
    expect((await fetch(`${base}/download/logs/${said}`)).status).toBe(401);
    const cookie = await signIn();
    const res = await fetch(`${base}/download/logs/${said}`, { headers: { cookie, origin: base } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="run-\d+-say-attempt-1\.log"/);
    const lines = (await res.text()).split('\n');
    expect(lines.slice(0, 2)).toEqual(['line-1', 'line-2']);
    expect(lines.filter((l) => l.startsWith('line-'))).toHaveLength(12_000);
    expect(
      (await fetch(`${base}/download/logs/${instances[0]?.id}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
        .status,
    ).toBe(200);
  });

  it('the webhook token is read on every request: off, then written while serving, then used', async () => {
    await t.apply('workflow: hook\non_event: ping\ntasks:\n  a:\n    command: "true"\n');
    const post = (token?: string) =>
      fetch(`${base}/events/ping`, {
        method: 'POST',
        headers: token ? { authorization: `Bearer ${token}` } : {},
        body: '{}',
      });
    expect((await post('x')).status).toBe(404);
    webhookToken = 'hook-secret-123456';
    expect((await post()).status).toBe(401);
    expect((await post('wrong')).status).toBe(401);
    const ok = await post('hook-secret-123456');
    expect(ok.status).toBe(202);
    expect(((await ok.json()) as { runs: unknown[] }).runs).toHaveLength(1);
    // Scheduling paused: the event is refused with 409, saying why, and starts nothing.
    await t.engine.setSchedulingPaused(true, 'alice@laptop');
    const paused = await post('hook-secret-123456');
    expect(paused.status).toBe(409);
    expect(((await paused.json()) as { error: string }).error).toMatch(
      /^scheduling is paused \(since .*, by alice@laptop\): event "ping" started nothing/,
    );
    expect(await t.engine.listRuns({ workflow: 'hook' })).toHaveLength(1);
    await t.engine.setSchedulingPaused(false, 'alice@laptop');
    const big = await fetch(`${base}/events/ping`, {
      method: 'POST',
      headers: { authorization: 'Bearer hook-secret-123456' },
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(big.status).toBe(413);
  });
});

describe('request parameters', () => {
  it('a parameter of the wrong type is a validation error naming it, and nothing is stored', async () => {
    const raw = new WebSocket(`ws://127.0.0.1:${server.port}/api`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise((r) => raw.once('open', r));
    const replies = new Map<number, { error?: { code: string; message: string } }>();
    raw.on('message', (d) => {
      const m = JSON.parse(String(d)) as { id: number; error?: { code: string; message: string } };
      replies.set(m.id, m);
    });
    const send = (id: number, method: string, params: unknown) => raw.send(JSON.stringify({ id, method, params }));
    send(1, 'apply', [{ name: 'typed', tasks: [{ name: 'a', command: 'true' }] }, { not: 'a string' }]);
    send(2, 'readLogs', [1, 0, -1]);
    send(3, 'getRun', ['1; drop table workflow_run']);
    send(4, 'nope', []);
    send(5, 'listRuns', [{ limit: 5, bogus: true }]);
    await waitFor(() => replies.size === 5, { timeoutMs: 5_000 });
    raw.close();
    expect(replies.get(1)?.error).toMatchObject({
      code: 'validation',
      message: expect.stringMatching(/^apply\(param 2\): /),
    });
    expect(replies.get(2)?.error?.message).toMatch(/^readLogs\(param 3\): /);
    expect(replies.get(3)?.error?.message).toMatch(/^getRun\(param 1\): /);
    expect(replies.get(4)?.error?.message).toMatch(
      /^unknown method "nope": the methods are apply, [a-zA-Z, ]*\bvalidate\b/,
    );
    expect(replies.get(5)?.error?.message).toMatch(/bogus/);
    expect((await t.engine.listWorkflows()).map((w) => w.name)).not.toContain('typed');
  });
});

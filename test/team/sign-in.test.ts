// Signing in to a team server over HTTP, as the UI and `ax login` do, on a real team engine with
// its accounts service: the session cookie's flags (Secure when the request came over TLS, here
// as a trusted proxy says it), the session on the WebSocket from the own origin only, sign-out
// and sign-out everywhere, a token for the CLI; and password guessing: slowed per address (429,
// a growing Retry-After), locked per account whatever the address (423), both audited.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApiClient } from '../../engine/api/client.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { type AuthServer, openAuthServer, PASSWORD } from '../helpers/team/auth-server.ts';
import { SKIP_REASON } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

/** One HTTP request from a chosen loopback address (127.0.0.0/8 all reach 127.0.0.1). */
function request(
  port: number,
  method: string,
  path: string,
  o: { body?: unknown; from?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: o.from ?? '127.0.0.1',
        headers: { 'content-type': 'application/json', ...o.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += String(c)));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(o.body === undefined ? undefined : JSON.stringify(o.body));
  });
}

const cookieOf = (a: Answer) => ((a.headers['set-cookie'] ?? [])[0] ?? '').split(';')[0] as string;

/** a WebSocket client signed in by a cookie, from the given Origin; or the refused upgrade's status */
function sessionSocket(
  port: number,
  cookie: string,
  origin: string,
): Promise<ReturnType<typeof createApiClient> | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { headers: { cookie, origin } });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
    ws.on('open', () =>
      resolve(
        createApiClient({
          send: (m) => ws.send(JSON.stringify(m)),
          onMessage: (h) => ws.on('message', (d) => h(JSON.parse(String(d)))),
          onClose: (h) => ws.on('close', () => h('')),
          close: () => ws.close(),
        }),
      ),
    );
  });
}

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`signing in to a team server (${SKIP_REASON})`, () => {
  let s: AuthServer;
  let port: number;
  let origin: string;

  beforeAll(async () => {
    s = await openAuthServer('signin');
    port = s.server.port;
    origin = `http://127.0.0.1:${port}`;
    for (const name of ['alice', 'bob', 'locky'])
      await s.admin.addUser({ name, role: 'operator', groups: ['data-team'], password: PASSWORD }, 'test');
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('says it has accounts; a right password gets an HttpOnly, SameSite=Lax session cookie for 12 hours', async () => {
    expect((await request(port, 'GET', '/auth/config')).body).toEqual({ accounts: true, local: true });
    const wrong = await request(port, 'POST', '/auth/login', { body: { user: 'alice', password: 'not it at all' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'wrong user name or password' });
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const ok = await request(port, 'POST', '/auth/login', { body: { user: 'alice', password: PASSWORD } });
    expect(ok.status).toBe(204);
    const set = (ok.headers['set-cookie'] ?? [])[0] ?? '';
    expect(set).toMatch(/^ax_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=(\d+)$/);
    expect(Number(/Max-Age=(\d+)/.exec(set)?.[1])).toBeGreaterThan(12 * 3600 - 60);
    expect(set).not.toMatch(/Secure/);

    const cookie = cookieOf(ok);
    const me = await request(port, 'GET', '/auth/session', { headers: { cookie, origin } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: 'alice', role: 'operator', groups: ['data-team'], via: 'session' });

    // the session opens the API from the server's own origin only
    const api = await sessionSocket(port, cookie, origin);
    if (typeof api === 'number') throw new Error(`upgrade refused: ${api}`);
    expect(await api.whoami()).toMatchObject({ user: 'alice', via: 'session' });
    api.close();
    expect(await sessionSocket(port, cookie, 'http://evil.example')).toBe(401);
    expect(await sessionSocket(port, 'ax_session=forged', origin)).toBe(401);
  });

  it('the cookie is Secure when the request came over TLS (as a trusted proxy says)', async () => {
    const tls = await openAuthServer('signin-tls', { requestFacts: { address: () => '10.1.2.3', secure: () => true } });
    try {
      await tls.admin.addUser({ name: 'carol', role: 'viewer', password: PASSWORD }, 'test');
      const ok = await request(tls.server.port, 'POST', '/auth/login', { body: { user: 'carol', password: PASSWORD } });
      expect(ok.status).toBe(204);
      expect((ok.headers['set-cookie'] ?? [])[0]).toMatch(/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/);
      const signIns = (await tls.admin.listAudit(50)).filter((e) => e.actor === 'carol' && e.action === 'sign-in');
      expect(signIns[0]).toMatchObject({ address: '10.1.2.3' });
    } finally {
      await tls.close();
    }
  }, 120_000);

  it('signs out one session; sign-out everywhere ends them all', async () => {
    const login = async () =>
      cookieOf(await request(port, 'POST', '/auth/login', { body: { user: 'bob', password: PASSWORD } }));
    const one = await login();
    const out = await request(port, 'DELETE', '/auth/session', { headers: { cookie: one, origin } });
    expect(out.status).toBe(204);
    expect((out.headers['set-cookie'] ?? [])[0]).toMatch(/^ax_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    expect((await request(port, 'GET', '/auth/session', { headers: { cookie: one, origin } })).status).toBe(401);

    const two = await login();
    const three = await login();
    const api = await sessionSocket(port, two, origin);
    if (typeof api === 'number') throw new Error(`upgrade refused: ${api}`);
    expect(await api.signOutEverywhere(undefined, 'x')).toBe(2);
    api.close();
    for (const cookie of [two, three])
      expect((await request(port, 'GET', '/auth/session', { headers: { cookie, origin } })).status).toBe(401);
    expect(await sessionSocket(port, three, origin)).toBe(401);
  });

  it('answers the CLI a token for a password (POST /auth/token); it opens the API as that user', async () => {
    const answer = await request(port, 'POST', '/auth/token', {
      body: { user: 'alice', password: PASSWORD, name: 'cli-laptop' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ principal: { user: 'alice', role: 'operator' } });
    const token = answer.body?.token as string;
    expect(token).toMatch(/^axt_/);
    const api = await connectApi(s.wsUrl, token);
    expect(await api.whoami()).toMatchObject({ user: 'alice', via: 'token', token: { name: 'cli-laptop' } });
    api.close();
    expect((await request(port, 'POST', '/auth/token', { body: { user: 'alice', password: PASSWORD } })).status).toBe(
      400,
    );
  });

  it('20 wrong passwords from one address: refused with 429 after 10, each wait longer; others still sign in', async () => {
    const statuses: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const a = await request(port, 'POST', '/auth/login', {
        from: '127.0.0.3',
        body: { user: `guess${i}`, password: 'password123456' },
      });
      statuses.push(a.status);
      if (a.status === 429) {
        waits.push(Number(a.headers['retry-after']));
        expect(a.body?.retryAfterSeconds).toBe(Number(a.headers['retry-after']));
      }
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), ...Array<number>(10).fill(429)]);
    // each try while refused doubles the wait, up to 15 minutes
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBe(Math.min((waits[i - 1] as number) * 2, 900));
    expect(waits[0]).toBeLessThanOrEqual(5);
    expect(waits.at(-1)).toBe(900);
    // the right password from there waits too; from another address it signs in
    const right = { user: 'alice', password: PASSWORD };
    expect((await request(port, 'POST', '/auth/login', { from: '127.0.0.3', body: right })).status).toBe(429);
    expect(
      (await request(port, 'POST', '/auth/token', { from: '127.0.0.3', body: { ...right, name: 'x' } })).status,
    ).toBe(429);
    expect((await request(port, 'POST', '/auth/login', { from: '127.0.0.6', body: right })).status).toBe(204);
  });

  it('5 wrong passwords for one account lock it (423), from any address, the right password too; audited', async () => {
    for (let i = 0; i < 5; i++) {
      const a = await request(port, 'POST', '/auth/login', {
        from: '127.0.0.4',
        body: { user: 'locky', password: `wrong password ${i}` },
      });
      expect([401, 423]).toContain(a.status);
    }
    const elsewhere = await request(port, 'POST', '/auth/login', {
      from: '127.0.0.5',
      body: { user: 'locky', password: PASSWORD },
    });
    expect(elsewhere.status).toBe(423);
    expect(Number(elsewhere.headers['retry-after'])).toBeGreaterThan(60);
    expect(elsewhere.body?.retryAfterSeconds).toBe(Number(elsewhere.headers['retry-after']));
    expect(elsewhere.headers['set-cookie']).toBeUndefined();
    const audit = await waitFor(async () => {
      const entries = (await s.admin.listAudit(200)).filter((e) => e.actor === 'locky' && e.action === 'sign-in.fail');
      return entries.length >= 6 ? entries : undefined;
    });
    expect(new Set(audit.map((e) => e.address))).toEqual(new Set(['127.0.0.4', '127.0.0.5']));
  });
});

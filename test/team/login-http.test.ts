// The HTTP side of signing in from elsewhere, on a team server in this process (real MariaDB,
// Redis and accounts service): the device-code routes of `ax login --browser` (codes expire after
// 10 minutes, work once, need the server's own Origin to approve, a denial is told to the CLI),
// and --trust-proxy: a trusted proxy's X-Forwarded-For names the audited address and its
// X-Forwarded-Proto makes the session cookie Secure, while nobody else's headers count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_CODE_LIFE_MS, deviceLoginRoute } from '../../engine/server/device-login.ts';
import type { EngineApi } from '../../engine/api/engine-api.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { type AuthServer, openAuthServer, PASSWORD } from '../helpers/team/auth-server.ts';
import { SKIP_REASON } from '../helpers/team/harness.ts';

const available = await teamServicesAvailable();

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`device sign-in and trusted proxies (${available ? 'runs' : SKIP_REASON})`, () => {
  let t: AuthServer;
  let now = Date.now();
  // the route is made before the engine exists; it reaches the engine through this
  const engine: { api?: EngineApi } = {};

  beforeAll(async () => {
    t = await openAuthServer('login-http', {
      routes: [
        deviceLoginRoute({
          api: { createToken: (r, a) => (engine.api as EngineApi).createToken(r, a) },
          now: () => now,
        }),
      ],
      transport: { trustProxy: ['127.0.0.1/32'], allowPlainHttp: true },
    });
    engine.api = t.engine;
    await t.admin.addUser({ name: 'dora', role: 'operator', password: PASSWORD }, 'test');
  });
  afterAll(() => t?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const start = async () =>
    (await (await post('/auth/device', { name: 'cli@laptop' })).json()) as {
      userCode: string;
      pollId: string;
      expiresIn: number;
    };
  const signIn = async () => {
    const res = await post('/auth/login', { user: 'dora', password: PASSWORD });
    expect(res.status).toBe(204);
    return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
  };
  const approve = (code: string, cookie: string, origin: string | undefined, decision = 'approve') =>
    fetch(`${t.base}/auth/device/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...(origin && { origin }) },
      body: `code=${code}&decision=${decision}`,
    });

  it('a code waits, is approved once with the server Origin, and hands its token over once', async () => {
    const { userCode, pollId, expiresIn } = await start();
    expect(userCode).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(expiresIn).toBe(600);
    expect((await post('/auth/device/poll', { pollId })).status).toBe(202);
    const cookie = await signIn();
    // no Origin (not a form of this server's page): refused
    expect((await approve(userCode, cookie, undefined)).status).toBe(403);
    expect((await approve(userCode, cookie, t.base)).status).toBe(200);
    const got = await post('/auth/device/poll', { pollId });
    expect(got.status).toBe(200);
    const { token, principal } = (await got.json()) as { token: string; principal: { user: string; role: string } };
    expect(principal).toMatchObject({ user: 'dora', role: 'operator' });
    expect(await t.engine.authenticator?.tokenPrincipal(token, undefined)).toMatchObject({
      user: 'dora',
      token: { name: 'cli@laptop', scopes: ['read', 'run'] },
    });
    expect((await post('/auth/device/poll', { pollId })).status).toBe(410);
    // a second one under the same name gets the next free name
    const again = await start();
    await approve(again.userCode, cookie, t.base);
    const second = (await (await post('/auth/device/poll', { pollId: again.pollId })).json()) as {
      principal: { token: { name: string } };
    };
    expect(second.principal.token.name).toBe('cli@laptop-2');
  });

  it('a denial reaches the CLI; a code unused for 10 minutes expires', async () => {
    const cookie = await signIn();
    const denied = await start();
    expect((await approve(denied.userCode, cookie, t.base, 'deny')).status).toBe(200);
    const told = await post('/auth/device/poll', { pollId: denied.pollId });
    expect(told.status).toBe(403);
    expect(((await told.json()) as { error: string }).error).toBe('dora denied this sign-in in the browser');

    const late = await start();
    now += DEVICE_CODE_LIFE_MS + 1_000;
    expect((await post('/auth/device/poll', { pollId: late.pollId })).status).toBe(410);
    const page = await fetch(`${t.base}/auth/device?code=${late.userCode}`, { headers: { cookie } });
    expect(page.status).toBe(410);
    expect((await approve(late.userCode, cookie, t.base)).status).toBe(410);
  });

  it('believes X-Forwarded-* from the trusted proxy: the audited address, a Secure cookie', async () => {
    const res = await post(
      '/auth/login',
      { user: 'dora', password: 'not the password, no' },
      { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' },
    );
    expect(res.status).toBe(401);
    const ok = await post('/auth/login', { user: 'dora', password: PASSWORD }, { 'x-forwarded-proto': 'https' });
    expect(ok.headers.get('set-cookie')).toMatch(/; Secure$/);
    const plain = await post('/auth/login', { user: 'dora', password: PASSWORD });
    expect(plain.headers.get('set-cookie')).not.toMatch(/Secure/);
    const audit = await t.admin.listAudit(50);
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'sign-in.fail', actor: 'dora', address: '203.0.113.9' }),
    );
  });
});

// Single sign-on against a real OpenID provider (oidc-provider on 127.0.0.1, PKCE required,
// groups claim) and a real team API server (MariaDB database and Redis prefix of this file, the
// accounts service of a team engine): the browser's path through AX → provider → AX with a
// cookie jar, groups → roles, refusals said in words, and what must never sign anyone in.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Principal } from '../../engine/api/access.ts';
import { createApiClient } from '../../engine/api/client.ts';
import { parseRoleMap } from '../../engine/core/access/sso-claims.ts';
import type { Engine } from '../../engine/core/engine.ts';
import { openTeamEngine } from '../../engine/hosts/node/team.ts';
import { OIDC_PENDING_MS, type OidcConfig, OidcSignIn, oidcRoute } from '../../engine/server/oidc.ts';
import { type ApiServer, startApiServer } from '../../engine/server/ws-server.ts';
import { tempDir } from '../helpers/files.ts';
import {
  Browser,
  startTestProvider,
  type TestProvider,
  throughProvider,
  toRedirectBack,
} from '../helpers/oidc-provider.ts';
import {
  createTestDatabase,
  deleteRedisPrefix,
  REDIS_URL,
  teamServicesAvailable,
  uniqueName,
} from '../helpers/services.ts';

const available = await teamServicesAvailable();

const ROLE_MAP = 'platform=admin,data-team=editor,analysts=viewer';

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('SSO with OpenID Connect (team server, real provider)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  let prefix: string;
  let engine: Engine;
  let server: ApiServer;
  let provider: TestProvider;
  let oidc: OidcSignIn;
  let config: OidcConfig;
  let ax: string;
  /** added to the SSO side's clock: a sign-in left at the provider past its 10 minutes */
  let skewMs = 0;
  const log: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('axt_oidc');
    dataDir = tempDir('ax-oidc-sso-');
    prefix = `${uniqueName('axt_oidc')}:`;
    engine = await openTeamEngine({
      mysqlUrl: database.url,
      redisUrl: REDIS_URL,
      redisPrefix: prefix,
      role: 'client',
      dataDir,
    });
    const accounts = engine.authenticator;
    if (!accounts) throw new Error('a team engine has an authenticator');
    const routes = [(...args: Parameters<ReturnType<typeof oidcRoute>>) => (oidc ? oidcRoute(oidc)(...args) : false)];
    server = await startApiServer({
      api: engine,
      token: 'node-api-token-for-the-oidc-test-0123456789',
      accounts,
      authConfig: () => ({ accounts: true, local: true, sso: oidc.authConfig() }),
      routes,
    });
    ax = `http://127.0.0.1:${server.port}`;
    provider = await startTestProvider([`${ax}/auth/oidc/callback`]);
    config = {
      issuer: new URL(provider.issuer),
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      roleMap: parseRoleMap(ROLE_MAP),
      groupsClaim: 'groups',
      label: 'Sign in with Example SSO',
    };
    oidc = new OidcSignIn({
      config,
      accounts,
      allowLoopbackHttp: true,
      now: () => Date.now() + skewMs,
      log: (line) => log.push(line),
    });
    await oidc.start();
  });

  afterAll(async () => {
    await server?.close();
    await provider?.close();
    await engine?.dispose();
    await database?.drop();
    if (prefix) await deleteRedisPrefix(prefix);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const callback = () => `${ax}/auth/oidc/callback`;

  /** From /auth/oidc/start to AX's answer at the callback, signing in at the provider as `login`. */
  async function signIn(browser: Browser, login: string, returnTo = '/runs') {
    const start = await browser.fetch(`${ax}/auth/oidc/start?return=${encodeURIComponent(returnTo)}`);
    expect(start.status).toBe(302);
    const location = start.headers.get('location') as string;
    expect(location.startsWith(`${provider.issuer}/auth?`)).toBe(true);
    return throughProvider(browser, location, login, callback());
  }

  /** Up to the provider's redirect back, not opened: the callback URL a browser would open. */
  async function callbackUrl(browser: Browser, login: string): Promise<string> {
    const start = await browser.fetch(`${ax}/auth/oidc/start?return=/`);
    const { url, page } = await toRedirectBack(browser, start.headers.get('location') as string, login, callback());
    if (page) throw new Error(`the provider stopped at ${url} (${page.status})`);
    return url;
  }

  async function session(browser: Browser): Promise<{ status: number; principal?: Principal }> {
    const res = await browser.fetch(`${ax}/auth/session`);
    return res.status === 200 ? { status: 200, principal: (await res.json()) as Principal } : { status: res.status };
  }

  /** whoami over the API's WebSocket with the browser's session cookie, as the UI asks it. */
  async function whoami(browser: Browser): Promise<Principal> {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api`, {
      headers: { cookie: `ax_session=${browser.cookie(ax, 'ax_session')}`, origin: ax },
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const api = createApiClient({
      send: (m) => ws.send(JSON.stringify(m)),
      onMessage: (h) => ws.on('message', (d) => h(JSON.parse(String(d)))),
      onClose: (h) => ws.on('close', () => h('closed')),
      close: () => ws.close(),
    });
    try {
      return await api.whoami();
    } finally {
      api.close();
    }
  }

  async function problem(res: Response): Promise<{ status: number; kind?: string; text: string }> {
    const html = await res.text();
    return {
      status: res.status,
      kind: /data-kind="([a-z_]+)"/.exec(html)?.[1],
      text: (/<p id="problem"[^>]*>([^<]*)<\/p>/.exec(html)?.[1] ?? html).replace(/&quot;/g, '"'),
    };
  }

  it('the sign-in page is told SSO is there, with its label', async () => {
    const res = await fetch(`${ax}/auth/config`);
    expect(await res.json()).toEqual({ accounts: true, local: true, sso: { label: 'Sign in with Example SSO' } });
    expect(log).toContain(`single sign-on: provider ${new URL(provider.issuer).href} found`);
  });

  it('(a) a member of data-team signs in as an editor of data-team, back on the page asked for', async () => {
    provider.people.set('ada', { groups: ['data-team', 'offline_access'] });
    const browser = new Browser();
    const { res } = await signIn(browser, 'ada', '/runs?workflow=etl');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/runs?workflow=etl');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('ax_session='));
    expect(cookie).toMatch(/^ax_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43\d{3}$/);
    expect((await session(browser)).principal).toMatchObject({
      user: 'ada',
      role: 'editor',
      groups: ['data-team'],
      via: 'session',
    });
    expect(await whoami(browser)).toMatchObject({ user: 'ada', role: 'editor', groups: ['data-team'] });
    const users = await engine.listUsers();
    expect(users.find((u) => u.name === 'ada')).toMatchObject({
      source: 'oidc',
      role: 'editor',
      groups: ['data-team'],
    });
    const audit = await engine.listAudit(50);
    expect(audit.find((e) => e.action === 'sign-in' && e.actor === 'ada')).toMatchObject({
      role: 'editor',
      address: '127.0.0.1',
    });
  });

  it('(b) someone in no mapped group is refused, told which groups are accepted; no account, no session', async () => {
    provider.people.set('bob', { groups: ['sales', 'offline_access'] });
    const browser = new Browser();
    const { res } = await signIn(browser, 'bob');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('ax_session='))).toBe(false);
    const page = await problem(res);
    expect(page).toMatchObject({ status: 403, kind: 'no_group' });
    expect(page.text).toBe(
      'The provider knows you as bob, but none of your groups (sales, offline_access) is allowed here. Groups accepted: platform, data-team, analysts. Ask an administrator to add you to one of them.',
    );
    expect((await session(browser)).status).toBe(401);
    expect((await engine.listUsers()).some((u) => u.name === 'bob')).toBe(false);
    const audit = await engine.listAudit(50);
    expect(audit.some((e) => e.action === 'sign-in.fail' && e.actor === 'bob')).toBe(true);
  });

  it('(c) the role follows the provider: new groups, next sign-in, new role and groups', async () => {
    provider.people.set('cy', { groups: ['data-team'] });
    const first = new Browser();
    await signIn(first, 'cy');
    expect((await session(first)).principal).toMatchObject({ role: 'editor', groups: ['data-team'] });

    provider.people.set('cy', { groups: ['analysts'] });
    const second = new Browser();
    expect((await signIn(second, 'cy')).res.status).toBe(302);
    expect(await whoami(second)).toMatchObject({ user: 'cy', role: 'viewer', groups: ['analysts'] });
    // The account changed, so the session open elsewhere has the new role too.
    expect((await session(first)).principal).toMatchObject({ role: 'viewer', groups: ['analysts'] });

    provider.people.set('cy', { groups: ['analysts', 'platform'] });
    await signIn(second, 'cy');
    expect((await session(second)).principal).toMatchObject({ role: 'admin', groups: ['analysts', 'platform'] });

    // Out of every mapped group: this sign-in is refused (the account is left as it was: README
    // says to disable someone in AX to cut their open sessions at once).
    provider.people.set('cy', { groups: [] });
    const third = new Browser();
    expect((await problem((await signIn(third, 'cy')).res)).kind).toBe('no_group');
    expect(third.cookie(ax, 'ax_session')).toBeUndefined();
  });

  it('(d) an expired session is refused; so is a sign-in left at the provider past its 10 minutes', async () => {
    provider.people.set('dee', { groups: ['analysts'] });
    const browser = new Browser();
    await signIn(browser, 'dee');
    expect((await session(browser)).status).toBe(200);
    const db = await mysql.createConnection(database.url);
    try {
      await db.query('UPDATE ax_session SET expires_at = ? WHERE user = ?', [Date.now() - 1000, 'dee']);
    } finally {
      await db.end();
    }
    expect((await session(browser)).status).toBe(401);
    await expect(whoami(browser)).rejects.toThrow(/401/);

    const late = new Browser();
    const url = await callbackUrl(late, 'dee');
    skewMs = OIDC_PENDING_MS + 1000;
    try {
      const page = await problem(await late.fetch(url));
      expect(page).toMatchObject({ status: 400, kind: 'expired' });
      expect(late.cookie(ax, 'ax_session')).toBeUndefined();
    } finally {
      skewMs = 0;
    }
  });

  it('(e) a wrong state, a replayed callback and a callback in another browser sign nobody in', async () => {
    provider.people.set('eve', { groups: ['platform'] });
    const browser = new Browser();
    const url = await callbackUrl(browser, 'eve');

    const forged = new URL(url);
    forged.searchParams.set('state', 'not-the-state-we-sent');
    expect(await problem(await browser.fetch(forged.href))).toMatchObject({ status: 400, kind: 'expired' });

    const ok = await browser.fetch(url);
    expect(ok.status).toBe(302);
    expect(await problem(await browser.fetch(url))).toMatchObject({ status: 400, kind: 'expired' });

    // Started in one browser, the provider's redirect opened in another (a link sent to a victim).
    const started = new Browser();
    const stolen = await callbackUrl(started, 'eve');
    const other = new Browser();
    const page = await problem(await other.fetch(stolen));
    expect(page).toMatchObject({ status: 400, kind: 'other_browser' });
    expect(other.cookie(ax, 'ax_session')).toBeUndefined();
  });

  it('(f) a return path to another origin is refused before anything starts', async () => {
    for (const target of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const res = await fetch(`${ax}/auth/oidc/start?return=${encodeURIComponent(target)}`, { redirect: 'manual' });
      expect(res.headers.get('location')).toBeNull();
      const page = await problem(res);
      expect(page).toMatchObject({ status: 400, kind: 'bad_return' });
      expect(page.text).toContain(`The return address "${target}" is not a page of this server`);
    }
  });

  it('the provider declining is said in words, in Chinese when the browser asks for it', async () => {
    provider.people.set('fay', { groups: ['analysts'] });
    const browser = new Browser();
    const start = await browser.fetch(`${ax}/auth/oidc/start`);
    // At the provider's login form, the person cancels (the dev form's abort link).
    let url = start.headers.get('location') as string;
    const atForm = await browser.fetch(url);
    url = new URL(atForm.headers.get('location') as string, url).href;
    expect(url).toMatch(/\/interaction\/[^/]+$/);
    let back = `${url}/abort`;
    for (let hop = 0; hop < 5 && !back.startsWith(callback()); hop++) {
      const res = await browser.fetch(back);
      back = new URL(res.headers.get('location') as string, back).href;
    }
    expect(new URL(back).searchParams.get('error')).toBe('access_denied');
    const page = await problem(await browser.fetch(back, { headers: { 'accept-language': 'zh-CN,zh;q=0.9' } }));
    expect(page.status).toBe(403);
    expect(page.text).toContain('身份提供方返回 access_denied：您或身份提供方拒绝了此次登录');
    // The same words in a link nobody started here are not shown.
    const crafted = await problem(
      await new Browser().fetch(`${callback()}?error=access_denied&error_description=call+0800-SCAM&state=x`),
    );
    expect(crafted).toMatchObject({ status: 400, kind: 'expired' });
    expect(crafted.text).not.toContain('SCAM');
  });

  /** The SSO routes alone on a plain HTTP server, told the request came over TLS or not. */
  async function bare(signIn: OidcSignIn, secure: boolean): Promise<{ url: string; close(): Promise<void> }> {
    const srv = http.createServer((req, res) => {
      void signIn.handle(req, res, new URL(req.url ?? '/', 'http://x'), {
        origin: `${secure ? 'https' : 'http'}://127.0.0.1`,
        secure,
        address: undefined,
      });
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
    };
  }

  it('over TLS the browser-binding cookie is Secure, and the callback is the https one', async () => {
    const tls = await bare(oidc, true);
    try {
      const res = await fetch(`${tls.url}/auth/oidc/start`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.getSetCookie()).toEqual([
        expect.stringMatching(
          /^ax_oidc=[A-Za-z0-9_-]{43}; Path=\/auth\/oidc; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/,
        ),
      ]);
      const to = new URL(res.headers.get('location') as string);
      expect(to.searchParams.get('redirect_uri')).toBe('https://127.0.0.1/auth/oidc/callback');
      expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    } finally {
      await tls.close();
    }
  });

  it('a provider that cannot be reached is said with its URL, and tried again at the next sign-in', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/realms/main`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const lines: string[] = [];
    let now = Date.now();
    const down = new OidcSignIn({
      config: { ...config, issuer: new URL(issuer) },
      accounts: engine.authenticator as NonNullable<Engine['authenticator']>,
      allowLoopbackHttp: true,
      now: () => now,
      log: (line) => lines.push(line),
    });
    await down.start();
    expect(lines).toEqual([
      expect.stringContaining(`single sign-on: the provider at ${issuer} cannot be discovered (`),
    ]);
    const plain = await bare(down, false);
    try {
      const page = await problem(await fetch(`${plain.url}/auth/oidc/start`, { redirect: 'manual' }));
      expect(page).toMatchObject({ status: 503, kind: 'unavailable' });
      expect(page.text).toContain(`The sign-in provider at ${issuer} cannot be reached`);
      // Within 10 s of a failure the answer is the last one; after, a sign-in tries discovery again.
      expect(lines).toHaveLength(1);
      now += 11_000;
      expect((await fetch(`${plain.url}/auth/oidc/start`, { redirect: 'manual' })).status).toBe(503);
      expect(lines).toHaveLength(2);
    } finally {
      await plain.close();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { codeFromHash, establishSession, fetchAuthConfig, signInWithPassword, ssoStartUrl } from './auth.ts';

function fakeFetch(answers: Record<string, number>) {
  const calls: { method: string; url: string; body?: string }[] = [];
  const fn = vi.fn(async (url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    calls.push({ method, url, body: init?.body as string | undefined });
    const status = answers[`${method} ${url}`] ?? 404;
    if (status === 0) throw new TypeError('Failed to fetch');
    return new Response(null, { status });
  });
  return { fetch: fn as unknown as typeof fetch, calls };
}

describe('sign-in', () => {
  let replaced: string[];
  beforeEach(() => {
    replaced = [];
    vi.stubGlobal('location', { hash: '', pathname: '/', search: '' });
    vi.stubGlobal('history', { replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url) });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('reads the code of a sign-in link', () => {
    expect(codeFromHash('#code=abc_DEF-123')).toBe('abc_DEF-123');
    expect(codeFromHash('#/workflows')).toBeUndefined();
    expect(codeFromHash('')).toBeUndefined();
  });

  it('trades the code for a session and removes it from the address bar first', async () => {
    location.hash = '#code=c0de';
    const f = fakeFetch({ 'POST /auth/session': 204 });
    expect(await establishSession(f.fetch)).toEqual({ kind: 'signed-in' });
    expect(replaced).toEqual(['/#/']);
    expect(f.calls).toEqual([{ method: 'POST', url: '/auth/session', body: '{"code":"c0de"}' }]);
  });

  it('a refused code without a session cookie leads to the sign-in screen, saying why', async () => {
    location.hash = '#code=used';
    const f = fakeFetch({ 'POST /auth/session': 401, 'GET /auth/session': 401 });
    expect(await establishSession(f.fetch)).toEqual({ kind: 'signed-out', reason: 'code-refused' });
    expect(replaced).toEqual(['/#/']);
  });

  it('a refused code with a valid session cookie still signs in', async () => {
    location.hash = '#code=used';
    const f = fakeFetch({ 'POST /auth/session': 401, 'GET /auth/session': 204 });
    expect(await establishSession(f.fetch)).toEqual({ kind: 'signed-in' });
  });

  it('without a code, the session cookie decides', async () => {
    expect(await establishSession(fakeFetch({ 'GET /auth/session': 204 }).fetch)).toEqual({ kind: 'signed-in' });
    expect(await establishSession(fakeFetch({ 'GET /auth/session': 401 }).fetch)).toEqual({
      kind: 'signed-out',
      reason: 'no-session',
    });
    expect(await establishSession(fakeFetch({ 'GET /auth/session': 0 }).fetch)).toMatchObject({ kind: 'unreachable' });
  });
});

// The server's answers are the contract's (engine/api/access.ts); the Chromium test
// test/ui/people.test.ts signs in against a real team server.
function answering(status: number, body?: unknown, headers: Record<string, string> = {}) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fn = vi.fn(async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    return new Response(body === undefined ? null : JSON.stringify(body), { status, headers });
  });
  return { fetch: fn as unknown as typeof fetch, calls };
}

describe('sign-in with accounts', () => {
  it('reads the sign-in methods; a server without the route has no accounts', async () => {
    expect(
      await fetchAuthConfig(answering(200, { accounts: true, local: true, sso: { label: 'Okta' } }).fetch),
    ).toEqual({
      accounts: true,
      local: true,
      sso: { label: 'Okta' },
    });
    expect(await fetchAuthConfig(answering(404).fetch)).toEqual({ accounts: false, local: false });
  });

  it('posts the user and password, and says why a refusal happened', async () => {
    const ok = answering(204);
    expect(await signInWithPassword('alice', 'pw', ok.fetch)).toEqual({ ok: true });
    expect(ok.calls[0]).toMatchObject({
      url: '/auth/login',
      init: { method: 'POST', body: '{"user":"alice","password":"pw"}' },
    });
    expect(await signInWithPassword('a', 'b', answering(401, { error: 'wrong user name or password' }).fetch)).toEqual({
      ok: false,
      why: 'bad',
      message: 'wrong user name or password',
    });
    expect(
      await signInWithPassword('a', 'b', answering(423, { error: 'locked', retryAfterSeconds: 840 }).fetch),
    ).toEqual({
      ok: false,
      why: 'locked',
      message: 'locked',
      retryAfterSeconds: 840,
    });
    expect(await signInWithPassword('a', 'b', answering(429, {}, { 'Retry-After': '30' }).fetch)).toEqual({
      ok: false,
      why: 'throttled',
      retryAfterSeconds: 30,
    });
  });

  it('sends SSO back to the page the person was on', () => {
    expect(ssoStartUrl({ pathname: '/', search: '', hash: '#/runs?state=FAILED' })).toBe(
      '/auth/oidc/start?return=%2F%23%2Fruns%3Fstate%3DFAILED',
    );
  });
});

// A real OpenID provider for the SSO tests: the `oidc-provider` package (what many production
// providers are built on) on 127.0.0.1, with one confidential client that must use PKCE, people
// with a groups claim the test may change, and its development login form (any password; the
// login is the account). Its consent is granted at once, as for a first-party client.
//
// Also a browser stand-in for Node's fetch: manual redirects and a cookie jar with paths, so a
// test follows AX → provider → AX exactly as a browser does, and can replay or cross browsers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

export interface TestPerson {
  email?: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** the people it knows, by login; change a person's groups between sign-ins */
  people: Map<string, TestPerson>;
  close(): Promise<void>;
}

export async function startTestProvider(redirectUris: string[]): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, TestPerson>();
  const clientId = 'ax-scheduler';
  const clientSecret = 'provider-test-secret-0123456789';
  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    // lifetimes in seconds (given, so the provider does not warn about its defaults)
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    features: { devInteractions: { enabled: true } },

    async findAccount(_ctx, sub) {
      const person = people.get(sub);
      if (!person) return undefined;
      return {
        accountId: sub,

        async claims() {
          const now = people.get(sub) ?? person;
          return { sub, preferred_username: sub, email: now.email ?? `${sub}@example.com`, groups: now.groups };
        },
      };
    },
    // A first-party client: consent granted without asking.
    async loadExistingGrant(ctx) {
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client?.clientId ?? '');
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client?.clientId,
        accountId: ctx.oidc.session?.accountId,
      });
      grant.addOIDCScope('openid profile email groups');
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    people,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface StoredCookie {
  origin: string;
  name: string;
  value: string;
  path: string;
}

/** One browser: its cookies, by origin and path. */
export class Browser {
  private cookies: StoredCookie[] = [];

  cookie(origin: string, name: string): string | undefined {
    return this.cookies.find((c) => c.origin === origin && c.name === name)?.value;
  }

  setCookie(origin: string, name: string, value: string, path = '/'): void {
    this.cookies = this.cookies.filter((c) => !(c.origin === origin && c.name === name && c.path === path));
    this.cookies.push({ origin, name, value, path });
  }

  /** One request, no redirect followed; cookies sent and stored as a browser would. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const sent = this.cookies
      .filter(
        (c) => c.origin === u.origin && (u.pathname === c.path || u.pathname.startsWith(c.path.replace(/\/?$/, '/'))),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    const headers = new Headers(init.headers);
    if (sent) headers.set('cookie', sent);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';').map((s) => s.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const gone = attrs.some((a) => /^max-age=(0|-)/i.test(a)) || /expires=thu, 01 jan 1970/i.test(line);
      this.cookies = this.cookies.filter((c) => !(c.origin === u.origin && c.name === name && c.path === path));
      if (!gone) this.cookies.push({ origin: u.origin, name, value, path });
    }
    return res;
  }
}

/**
 * From a URL that leads to the provider, follows redirects and signs in at the provider's login
 * form as `login`, until a response comes from `stopAt` (AX's callback) or is no redirect.
 * Returns that response unread, and the URL it answered.
 */
export async function throughProvider(
  browser: Browser,
  start: string,
  login: string,
  stopAt: string,
): Promise<{ url: string; res: Response }> {
  const { url, page } = await toRedirectBack(browser, start, login, stopAt);
  return { url, res: page ?? (await browser.fetch(url)) };
}

/**
 * Like throughProvider, but stops before opening the URL the provider redirects back to (for
 * tests that open it elsewhere, twice, or late); a page on the way that is no form ends it.
 */
export async function toRedirectBack(
  browser: Browser,
  start: string,
  login: string,
  stopAt: string,
): Promise<{ url: string; page?: Response }> {
  let url = start;
  let init: RequestInit = {};
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(stopAt)) return { url };
    const res = await browser.fetch(url, init);
    init = {};
    const location = res.headers.get('location');
    if (location && res.status >= 300 && res.status < 400) {
      url = new URL(location, url).href;
      await res.arrayBuffer();
      continue;
    }
    const html = await res.text();
    const form = /<form[^>]*action="([^"]+)"[^>]*>[\s\S]*?name="prompt" value="(login|consent)"/.exec(html);
    if (res.status !== 200 || !form) return { url, page: new Response(html, { status: res.status }) };
    url = new URL(form[1] as string, url).href;
    const body = new URLSearchParams({ prompt: form[2] as string, login, password: 'any' });
    init = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error(`more than 20 redirects from ${start}`);
}

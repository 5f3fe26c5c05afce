// Sign-in by the single-use link `ax serve` / `ax open` print: http://host/#code=CODE. The code is
// exchanged for an HttpOnly session cookie and removed from the address bar at once, so it is
// never kept in history, storage or a bookmark. Nothing about the session is readable from JS.
import type { AuthConfig } from '../../../engine/api/access.ts';

export type SessionState =
  | { kind: 'signed-in' }
  | { kind: 'signed-out'; reason: 'no-session' | 'code-refused' }
  | { kind: 'unreachable'; message: string };

/** the code of a sign-in link, when the page was opened with one */
export function codeFromHash(hash: string): string | undefined {
  const match = /^#code=([^&/]+)/.exec(hash);
  return match ? decodeURIComponent(match[1] as string) : undefined;
}

async function exchangeCode(code: string, fetcher: typeof fetch): Promise<boolean> {
  const res = await fetcher('/auth/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code }),
    credentials: 'same-origin',
  });
  return res.ok;
}

export async function hasSession(fetcher: typeof fetch = fetch): Promise<boolean> {
  const res = await fetcher('/auth/session', { credentials: 'same-origin', cache: 'no-store' });
  return res.ok;
}

/**
 * Signs in with the code in the hash if there is one (replacing the hash with `#/` whatever the
 * answer), then checks that the session cookie is valid.
 */
export async function establishSession(fetcher: typeof fetch = fetch): Promise<SessionState> {
  try {
    const code = codeFromHash(location.hash);
    if (code !== undefined) {
      history.replaceState(null, '', `${location.pathname}${location.search}#/`);
      const accepted = await exchangeCode(code, fetcher);
      // a replayed or expired link may still meet an older valid session cookie
      if (!accepted)
        return (await hasSession(fetcher)) ? { kind: 'signed-in' } : { kind: 'signed-out', reason: 'code-refused' };
      return { kind: 'signed-in' };
    }
    return (await hasSession(fetcher)) ? { kind: 'signed-in' } : { kind: 'signed-out', reason: 'no-session' };
  } catch (error) {
    return { kind: 'unreachable', message: error instanceof Error ? error.message : String(error) };
  }
}

// Team mode with accounts (issue 25): the sign-in page asks the server what it offers, then signs
// in with a user name and password (or sends the browser to the SSO provider).

/** What GET /auth/config says; a server without the route (older, or solo) has no accounts. */
export async function fetchAuthConfig(fetcher: typeof fetch = fetch): Promise<AuthConfig> {
  const res = await fetcher('/auth/config', { credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) return { accounts: false, local: false };
  const body = (await res.json()) as Partial<AuthConfig>;
  return { accounts: body.accounts === true, local: body.local !== false, ...(body.sso && { sso: body.sso }) };
}

export type PasswordSignIn =
  | { ok: true }
  /** bad: wrong user or password; locked: this account, for a while; throttled: too many tries from here */
  | { ok: false; why: 'bad' | 'locked' | 'throttled' | 'other'; message?: string; retryAfterSeconds?: number };

/** POST /auth/login: the session cookie comes back HttpOnly; the answer only says whether and why not. */
export async function signInWithPassword(
  user: string,
  password: string,
  fetcher: typeof fetch = fetch,
): Promise<PasswordSignIn> {
  const res = await fetcher('/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user, password }),
    credentials: 'same-origin',
  });
  if (res.ok) return { ok: true };
  const body = (await res.json().catch(() => ({}))) as { error?: string; retryAfterSeconds?: number };
  const header = Number(res.headers.get('Retry-After'));
  const retryAfterSeconds =
    typeof body.retryAfterSeconds === 'number'
      ? body.retryAfterSeconds
      : Number.isFinite(header) && header > 0
        ? header
        : undefined;
  const why = res.status === 401 ? 'bad' : res.status === 423 ? 'locked' : res.status === 429 ? 'throttled' : 'other';
  return {
    ok: false,
    why,
    ...(body.error && { message: body.error }),
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  };
}

/** DELETE /auth/session: ends this browser's session (the cookie is cleared by the answer). */
export async function signOut(fetcher: typeof fetch = fetch): Promise<void> {
  await fetcher('/auth/session', { method: 'DELETE', credentials: 'same-origin' });
}

/** Where "Sign in with SSO" goes: the provider, then back to the page the person was on. */
export function ssoStartUrl(loc: Pick<Location, 'pathname' | 'search' | 'hash'> = location): string {
  return `/auth/oidc/start?return=${encodeURIComponent(`${loc.pathname}${loc.search}${loc.hash}`)}`;
}

// The HTTP side of sign-in (the endpoints listed in api/access.ts): GET /auth/config, POST
// /auth/login and /auth/token (team mode: a password, slowed per address by sign-in-limit.ts and
// locked per account by the accounts service), GET/DELETE /auth/session, and POST /auth/session
// with the single-use code of `ax open` (solo mode's sign-in; in team mode it signs in the node's
// own admin, as the link is printed only to whoever runs the node). And who a request is:
// principalOf, from a bearer token or the session cookie.
import type http from 'node:http';
import os from 'node:os';
import type { TLSSocket } from 'node:tls';
import { type AuthConfig, type Principal, SESSION_COOKIE } from '../api/access.ts';
import type { Authenticator, SignInOutcome } from '../core/access/authenticator.ts';
import { bearer, readBody } from './http-body.ts';
import { sameSecret, type SignIn } from './sign-in.ts';
import type { SignInLimiter } from './sign-in-limit.ts';

export type Reply = (
  res: http.ServerResponse,
  status: number,
  body?: unknown,
  headers?: Record<string, string>,
) => void;

/** What a server knows of a request beyond its headers (a trusted proxy's X-Forwarded-*: listen options). */
export interface RequestFacts {
  /** the client's address */
  address(req: http.IncomingMessage): string | undefined;
  /** whether it came over TLS (a cookie set on it is Secure) */
  secure(req: http.IncomingMessage): boolean;
}

export const socketFacts: RequestFacts = {
  address: (req) => {
    const a = req.socket.remoteAddress;
    return a?.startsWith('::ffff:') ? a.slice(7) : a;
  },
  secure: (req) => (req.socket as TLSSocket).encrypted === true,
};

export function cookieValue(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** The session cookie a sign-in sets (password here, SSO in oidc.ts): HttpOnly, SameSite=Lax, Secure over TLS. */
export function sessionCookie(id: string, expiresAt: number, secure: boolean, now = Date.now()): string {
  const maxAge = Math.max(0, Math.floor((expiresAt - now) / 1000));
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

const clearedCookie = (secure: boolean) =>
  `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;

/** The data dir's API token, or a code link's session: the node's own admin. */
export function nodePrincipal(address: string | undefined): Principal {
  return { user: `node:${os.hostname()}`, role: 'admin', groups: [], via: 'node', ...(address && { address }) };
}

export interface TeamAuth {
  accounts: Authenticator;
  limiter: SignInLimiter;
  /** what GET /auth/config says (SSO adds its button: oidc.ts) */
  config(): AuthConfig;
}

export interface AuthContext {
  reply: Reply;
  facts: RequestFacts;
  /** the data dir's API token (the node's own admin in team mode) */
  apiToken(): string;
  /** the single-use code links of `ax open` and their sessions */
  links: SignIn;
  /** Origin allowed: absent (not a browser) or this server's own */
  originOk(req: http.IncomingMessage): boolean;
  /** team mode; solo without */
  team?: TeamAuth;
}

/**
 * Who a team-mode request is: a bearer token (the node's API token, else an account's token), or
 * a session cookie from the server's own origin. undefined: nobody (401).
 */
export async function principalOf(req: http.IncomingMessage, ctx: AuthContext): Promise<Principal | undefined> {
  const address = ctx.facts.address(req);
  const token = bearer(req);
  if (token !== undefined) {
    if (sameSecret(token, ctx.apiToken())) return nodePrincipal(address);
    return ctx.team?.accounts.tokenPrincipal(token, address);
  }
  const session = cookieValue(req, SESSION_COOKIE);
  if (!session || !ctx.originOk(req)) return undefined;
  if (ctx.links.validSession(session)) return nodePrincipal(address);
  return ctx.team?.accounts.sessionPrincipal(session, address);
}

async function jsonBody(req: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  try {
    const value = JSON.parse(await readBody(req, 4096)) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' && v.length <= 1024 ? v : undefined);

/** Answers /auth/*; false when the path is not one of these (the caller goes on). */
export async function serveAuth(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  ctx: AuthContext,
): Promise<boolean> {
  const { reply, team } = ctx;
  switch (url.pathname) {
    case '/auth/config':
      if (req.method !== 'GET') reply(res, 405, { error: 'GET /auth/config' });
      else reply(res, 200, team ? team.config() : ({ accounts: false, local: false } satisfies AuthConfig));
      return true;
    case '/auth/session':
      await session(req, res, ctx);
      return true;
    case '/auth/login':
    case '/auth/token':
      if (req.method !== 'POST') reply(res, 405, { error: `POST ${url.pathname}` });
      else if (!team)
        reply(res, 404, {
          error: 'this server has no accounts (solo mode): open the UI with the link "ax open" prints',
        });
      else await passwordSignIn(req, res, url.pathname === '/auth/token', ctx, team);
      return true;
    default:
      return false;
  }
}

async function passwordSignIn(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  forToken: boolean,
  ctx: AuthContext,
  team: TeamAuth,
): Promise<void> {
  const { reply } = ctx;
  // a page of another site must not sign its visitor in here (login CSRF)
  if (!ctx.originOk(req)) return reply(res, 403, { error: 'foreign origin' });
  const address = ctx.facts.address(req) ?? 'unknown';
  const wait = team.limiter.retryAfter(address);
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    return reply(
      res,
      429,
      { error: `too many failed sign-ins from ${address}: try again in ${seconds} s`, retryAfterSeconds: seconds },
      { 'retry-after': String(seconds) },
    );
  }
  const body = await jsonBody(req);
  const user = text(body?.user);
  const password = text(body?.password);
  const name = forToken ? text(body?.name) : '';
  if (!body || user === undefined || password === undefined || name === undefined)
    return reply(res, 400, {
      error: `send {"user": "NAME", "password": "…"${forToken ? ', "name": "TOKEN NAME"' : ''}} as JSON`,
    });
  const outcome = forToken
    ? await team.accounts.signInForToken(user, password, name, address)
    : await team.accounts.signIn(user, password, address);
  if (!outcome.ok) {
    team.limiter.failed(address);
    return refusedSignIn(res, outcome, reply);
  }
  if ('token' in outcome) return reply(res, 200, { token: outcome.token, principal: outcome.principal });
  const { session } = outcome as Extract<SignInOutcome, { ok: true }>;
  return reply(res, 204, undefined, {
    'set-cookie': sessionCookie(session.id, session.expiresAt, ctx.facts.secure(req)),
  });
}

function refusedSignIn(res: http.ServerResponse, outcome: Extract<SignInOutcome, { ok: false }>, reply: Reply): void {
  if (outcome.why === 'locked') {
    const seconds = Math.max(1, Math.ceil((outcome.retryAfterMs ?? 0) / 1000));
    return reply(res, 423, { error: outcome.message, retryAfterSeconds: seconds }, { 'retry-after': String(seconds) });
  }
  return reply(res, 401, { error: outcome.message });
}

async function session(req: http.IncomingMessage, res: http.ServerResponse, ctx: AuthContext): Promise<void> {
  const { reply, team } = ctx;
  if (!ctx.originOk(req)) return reply(res, 403, { error: 'foreign origin' });
  const secure = ctx.facts.secure(req);
  const cookie = cookieValue(req, SESSION_COOKIE);
  if (req.method === 'GET') {
    if (!team) return reply(res, ctx.links.validSession(cookie) ? 204 : 401);
    const principal = await principalOf(req, ctx);
    return principal ? reply(res, 200, principal) : reply(res, 401, { error: 'not signed in' });
  }
  if (req.method === 'DELETE') {
    ctx.links.endSession(cookie);
    if (team && cookie) await team.accounts.endSession(cookie);
    return reply(res, 204, undefined, { 'set-cookie': clearedCookie(secure) });
  }
  if (req.method !== 'POST') return reply(res, 405, { error: 'GET, POST or DELETE /auth/session' });
  const body = await jsonBody(req);
  if (!body) return reply(res, 400, { error: 'send {"code": "..."} as JSON' });
  const id = ctx.links.exchange(body.code);
  if (!id)
    return reply(res, 401, {
      error: 'this sign-in link was already used or has expired: run "ax open" for a fresh one',
    });
  return reply(res, 204, undefined, {
    'set-cookie': `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800${secure ? '; Secure' : ''}`,
  });
}

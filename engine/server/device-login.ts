// `ax login URL --browser` (issue 25, part 4): a sign-in for people who have no password to type
// in a terminal (SSO). A device-code flow on the server's own pages:
//   POST /auth/device {name}        → 200 {userCode, verifyUrl, pollId, expiresIn, interval}
//   GET  /auth/device?code=USERCODE → a page: the code and an Approve button, for a signed-in
//                                     browser (else to the SSO sign-in with a return here)
//   POST /auth/device/approve       → (form: code, decision; the session cookie, and an Origin of
//                                     this server: no other site can approve) a page saying so
//   POST /auth/device/poll {pollId} → 202 pending | 200 {token, principal} once, then gone |
//                                     403 denied | 410 expired or unknown
// Codes live 10 minutes in this process's memory and are single use; the token is made for the
// approving person with their role's scopes (createToken as them), as `ax login` with a password.
import { randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { type Principal, scopesOfRole } from '../api/access.ts';
import type { EngineApi } from '../api/engine-api.ts';
import { AxError } from '../api/errors.ts';
import { SECURITY_HEADERS } from '../api/ui-assets.ts';
import { type AuthContext, principalOf } from './auth-routes.ts';
import { readBody } from './http-body.ts';

export const DEVICE_CODE_LIFE_MS = 10 * 60 * 1000;
/** how often the CLI asks, seconds */
const POLL_INTERVAL_S = 2;
/** pending codes at once: a flood of requests cannot grow memory past this */
const MAX_PENDING = 200;
/** no 0/O, 1/I/L: read off a screen and typed */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

interface Pending {
  userCode: string;
  tokenName: string;
  expiresAt: number;
  /** what the poll answers once decided */
  outcome?: { token: string; principal: Principal } | { denied: string };
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

function page(res: http.ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>AX Scheduler: ${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:36em;margin:3em auto"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
  );
}

const userCode = () =>
  Array.from({ length: 8 }, (_, i) => (i === 4 ? '-' : '') + ALPHABET[randomInt(ALPHABET.length)]).join('');

export interface DeviceLoginOptions {
  api: Pick<EngineApi, 'createToken'>;
  now?: () => number;
}

/** The /auth/device routes as one HttpRoute of ws-server.ts (team mode: needs ctx.team). */
export function deviceLoginRoute(options: DeviceLoginOptions) {
  const now = options.now ?? Date.now;
  const byPoll = new Map<string, Pending>();
  const pollOf = (code: string) => {
    for (const [id, p] of byPoll) if (p.userCode === code) return id;
    return undefined;
  };
  const purge = () => {
    for (const [id, p] of byPoll) if (p.expiresAt <= now()) byPoll.delete(id);
  };

  async function start(req: http.IncomingMessage, res: http.ServerResponse, ctx: AuthContext): Promise<void> {
    purge();
    if (byPoll.size >= MAX_PENDING)
      return ctx.reply(
        res,
        429,
        { error: 'too many sign-ins waiting for approval: try again in a few minutes' },
        { 'retry-after': '60' },
      );
    let name = 'cli';
    try {
      const body = JSON.parse((await readBody(req, 4096)) || '{}') as { name?: unknown };
      if (typeof body.name === 'string' && body.name.trim()) name = body.name.trim().slice(0, 90);
    } catch {
      return ctx.reply(res, 400, { error: 'send {"name": "cli@HOST"} as JSON' });
    }
    const pollId = randomBytes(32).toString('base64url');
    let code = userCode();
    while (pollOf(code)) code = userCode();
    byPoll.set(pollId, { userCode: code, tokenName: name, expiresAt: now() + DEVICE_CODE_LIFE_MS });
    // the CLI shows its own URL of this server (it knows the name it used); this is the Host's
    const scheme = ctx.facts.secure(req) ? 'https' : 'http';
    return ctx.reply(res, 200, {
      userCode: code,
      verifyUrl: `${scheme}://${String(req.headers.host)}/auth/device?code=${code}`,
      pollId,
      expiresIn: DEVICE_CODE_LIFE_MS / 1000,
      interval: POLL_INTERVAL_S,
    });
  }

  async function show(req: http.IncomingMessage, res: http.ServerResponse, url: URL, ctx: AuthContext): Promise<void> {
    purge();
    const code = (url.searchParams.get('code') ?? '').toUpperCase();
    const here = `/auth/device?code=${encodeURIComponent(code)}`;
    const principal = await principalOf(req, ctx);
    if (!principal) {
      const sso = ctx.team?.config().sso;
      if (sso) {
        res.writeHead(302, {
          location: `/auth/oidc/start?return=${encodeURIComponent(here)}`,
          'cache-control': 'no-store',
        });
        return void res.end();
      }
      return page(
        res,
        401,
        'Sign in first',
        `<p>Approving a command-line sign-in needs you signed in in this browser. <a href="/">Sign in</a>, then open <a href="${escapeHtml(here)}">this page</a> again.</p>`,
      );
    }
    const pollId = pollOf(code);
    const pending = pollId ? byPoll.get(pollId) : undefined;
    if (!pending || pending.outcome)
      return page(
        res,
        410,
        'No such code',
        `<p>The code ${escapeHtml(code)} is unknown, used or expired (codes last 10 minutes): run <code>ax login URL --browser</code> again.</p>`,
      );
    return page(
      res,
      200,
      'Approve a command-line sign-in',
      `<p>A command line asks to act as <b>${escapeHtml(principal.user)}</b> (${escapeHtml(principal.role)}) with a token named <b>${escapeHtml(pending.tokenName)}</b>.</p>
<p>Check that it shows this code: <b style="font-size:1.6em;letter-spacing:.1em">${escapeHtml(code)}</b></p>
<form method="post" action="/auth/device/approve"><input type="hidden" name="code" value="${escapeHtml(code)}">
<button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="deny">Deny</button></form>`,
    );
  }

  async function approve(req: http.IncomingMessage, res: http.ServerResponse, ctx: AuthContext): Promise<void> {
    // CSRF: a form of this server's own pages only (a browser always sends Origin on a POST)
    if (req.headers.origin === undefined || !ctx.originOk(req))
      return page(res, 403, 'Refused', '<p>This approval did not come from this server&#39;s own page.</p>');
    const principal = await principalOf(req, ctx);
    if (!principal)
      return page(res, 401, 'Sign in first', '<p>Your session ended: <a href="/">sign in</a> and try again.</p>');
    const form = new URLSearchParams(await readBody(req, 4096).catch(() => ''));
    const code = (form.get('code') ?? '').toUpperCase();
    purge();
    const pollId = pollOf(code);
    const pending = pollId ? byPoll.get(pollId) : undefined;
    if (!pending || pending.outcome)
      return page(res, 410, 'No such code', '<p>The code is unknown, used or expired.</p>');
    if (form.get('decision') !== 'approve') {
      pending.outcome = { denied: `${principal.user} denied this sign-in in the browser` };
      return page(res, 200, 'Denied', '<p>The command line was refused. You can close this page.</p>');
    }
    const actor = {
      name: principal.user,
      role: principal.role,
      ...(principal.address && { address: principal.address }),
    };
    const created = await createNamed(pending.tokenName, principal, actor);
    pending.outcome = {
      token: created.token,
      principal: { ...principal, via: 'token', token: { name: created.record.name, scopes: created.record.scopes } },
    };
    return page(
      res,
      200,
      'Approved',
      `<p>The command line is signed in as ${escapeHtml(principal.user)} (token ${escapeHtml(created.record.name)}). You can close this page.</p>`,
    );
  }

  /** the token under its name, or NAME-2, -3… when the person already has one so named */
  async function createNamed(
    name: string,
    principal: Principal,
    actor: { name: string; role: string; address?: string },
  ) {
    for (let n = 1; ; n++) {
      try {
        return await options.api.createToken(
          { name: n === 1 ? name : `${name}-${n}`, scopes: scopesOfRole(principal.role) },
          actor,
        );
      } catch (err) {
        if (!(err instanceof AxError && err.code === 'conflict') || n >= 20) throw err;
      }
    }
  }

  async function poll(req: http.IncomingMessage, res: http.ServerResponse, ctx: AuthContext): Promise<void> {
    let pollId: unknown;
    try {
      pollId = (JSON.parse(await readBody(req, 4096)) as { pollId?: unknown }).pollId;
    } catch {
      return ctx.reply(res, 400, { error: 'send {"pollId": "..."} as JSON' });
    }
    purge();
    const pending = typeof pollId === 'string' ? byPoll.get(pollId) : undefined;
    if (!pending)
      return ctx.reply(res, 410, {
        error: 'this sign-in expired or was already used: run ax login URL --browser again',
      });
    if (!pending.outcome) return ctx.reply(res, 202, { status: 'pending' });
    byPoll.delete(pollId as string);
    if ('denied' in pending.outcome) return ctx.reply(res, 403, { error: pending.outcome.denied });
    return ctx.reply(res, 200, pending.outcome);
  }

  return async (req: http.IncomingMessage, res: http.ServerResponse, url: URL, ctx: AuthContext): Promise<boolean> => {
    if (!url.pathname.startsWith('/auth/device')) return false;
    if (!ctx.team)
      return (ctx.reply(res, 404, { error: 'this server has no accounts (solo): sign in with its API token' }), true);
    const route = `${req.method} ${url.pathname}`;
    if (route === 'POST /auth/device') await start(req, res, ctx);
    else if (route === 'GET /auth/device') await show(req, res, url, ctx);
    else if (route === 'POST /auth/device/approve') await approve(req, res, ctx);
    else if (route === 'POST /auth/device/poll') await poll(req, res, ctx);
    else
      ctx.reply(res, 405, {
        error: 'POST /auth/device, GET /auth/device?code=CODE, POST /auth/device/approve, POST /auth/device/poll',
      });
    return true;
  };
}

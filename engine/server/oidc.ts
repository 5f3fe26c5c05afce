// Single sign-on with OpenID Connect (issue 25): authorization code + PKCE against the provider
// found by issuer discovery (openid-client does the protocol and the ID token checks).
//
//   GET /auth/oidc/start?return=/path → 302 to the provider. State, nonce and PKCE verifier stay
//       here in memory for 10 minutes, keyed by the state and bound to this browser by an
//       HttpOnly cookie (ax_oidc, Path=/auth/oidc): a callback from another browser is refused.
//   GET /auth/oidc/callback → the code exchanged once (the state is forgotten before the
//       exchange, so a replay finds nothing), claims → SsoIdentity (core/access/sso-claims.ts)
//       → Authenticator.ssoSignIn → the session cookie of a password sign-in → 302 to the path.
//
// Anything else ends on a page that says what happened (oidc-pages.ts), never signed in.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import * as client from 'openid-client';
import type { Authenticator } from '../core/access/authenticator.ts';
import { groupsOf, hasClaim, identityFromClaims, type RoleMap } from '../core/access/sso-claims.ts';
import { type AuthContext, cookieValue, sessionCookie } from './auth-routes.ts';
import { type OidcProblem, sendProblem } from './oidc-pages.ts';
import { sameSecret } from './sign-in.ts';
import type { HttpRoute } from './ws-server.ts';

export interface OidcConfig {
  issuer: URL;
  clientId: string;
  /** undefined: a public client (PKCE alone); else client_secret_basic */
  clientSecret?: string;
  roleMap: RoleMap;
  groupsClaim: string;
  usernameClaim?: string;
  label: string;
  /** undefined: this server's own origin as the browser reached it + /auth/oidc/callback */
  redirectUrl?: URL;
}

/** What the server knows of one request that the OIDC routes need. */
export interface OidcRequestContext {
  /** the origin the browser reached this server at, e.g. https://scheduler.example.com:8443 */
  origin: string;
  /** the request came over TLS (or a trusted proxy said https): cookies get Secure */
  secure: boolean;
  /** the source address, for the audit */
  address: string | undefined;
}

export interface OidcOptions {
  config: OidcConfig;
  accounts: Authenticator;
  /**
   * Plain http to the provider: only for a provider on 127.0.0.1 or localhost (oidc-settings.ts
   * refuses any other http issuer), so production stays https-only.
   */
  allowLoopbackHttp?: boolean;
  now?: () => number;
  /** a line for the server's log (discovery failures) */
  log?: (line: string) => void;
}

export const OIDC_START_PATH = '/auth/oidc/start';
export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';
/** How long a started sign-in may take at the provider. */
export const OIDC_PENDING_MS = 10 * 60_000;
const BROWSER_COOKIE = 'ax_oidc';
/** at most this many sign-ins in progress (memory bound against a flood of /start) */
const MAX_PENDING = 10_000;
/** after a failed discovery, the next attempt waits this long (each sign-in attempt may retry it) */
const DISCOVERY_RETRY_MS = 10_000;

interface Pending {
  nonce: string;
  verifier: string;
  returnTo: string;
  redirectUri: string;
  browser: string;
  expiresAt: number;
}

/**
 * The path a sign-in may return to: one of this server's (starts with one /, no scheme, no
 * host, no backslash or control character), or undefined. Absent: the UI's root.
 */
export function safeReturnPath(raw: string | null | undefined): string | undefined {
  if (raw === null || raw === undefined || raw === '') return '/';
  if (!raw.startsWith('/') || raw.startsWith('//') || /[\\\s\p{Cc}]/u.test(raw)) return undefined;
  const base = 'http://ax.invalid';
  const parsed = new URL(raw, base);
  if (parsed.origin !== base) return undefined;
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/**
 * openid, and profile, email and groups where the provider offers them: a provider that does not
 * know a scope may refuse the request (Entra ID), and one that lists none is asked the standard ones.
 */
export function scopesFor(supported: readonly string[] | undefined): string {
  const wanted = ['profile', 'email', 'groups'];
  return ['openid', ...wanted.filter((s) => (supported ? supported.includes(s) : s !== 'groups'))].join(' ');
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class OidcSignIn {
  private readonly pending = new Map<string, Pending>();
  private discovered: client.Configuration | undefined;
  private discovering: Promise<client.Configuration> | undefined;
  private failure: { at: number; detail: string } | undefined;
  private readonly now: () => number;

  constructor(private readonly options: OidcOptions) {
    this.now = options.now ?? Date.now;
  }

  /** what GET /auth/config says of SSO */
  authConfig(): { label: string } {
    return { label: this.options.config.label };
  }

  /** Discovers the provider now, so a wrong issuer shows in the log at start; never throws (sign-ins retry). */
  async start(): Promise<void> {
    await this.configuration().catch(() => undefined);
  }

  /** Answers /auth/oidc/*; false for any other path. */
  async handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    ctx: OidcRequestContext,
  ): Promise<boolean> {
    if (url.pathname !== OIDC_START_PATH && url.pathname !== OIDC_CALLBACK_PATH) return false;
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
      return true;
    }
    if (url.pathname === OIDC_START_PATH) await this.begin(req, res, url, ctx);
    else await this.callback(req, res, url, ctx);
    return true;
  }

  private async configuration(): Promise<client.Configuration> {
    if (this.discovered) return this.discovered;
    if (this.discovering) return this.discovering;
    const { config } = this.options;
    if (this.failure && this.now() - this.failure.at < DISCOVERY_RETRY_MS) throw new Error(this.failure.detail);
    const insecure = this.options.allowLoopbackHttp === true && config.issuer.protocol === 'http:';
    this.discovering = client
      .discovery(
        config.issuer,
        config.clientId,
        undefined,
        config.clientSecret !== undefined ? client.ClientSecretBasic(config.clientSecret) : client.None(),
        { timeout: 10, ...(insecure && { execute: [client.allowInsecureRequests] }) },
      )
      .then(
        (found) => {
          this.discovered = found;
          this.failure = undefined;
          this.options.log?.(`single sign-on: provider ${config.issuer.href} found`);
          return found;
        },
        (err: unknown) => {
          const cause = (err as { cause?: unknown }).cause;
          const detail = `${message(err)}${cause ? ` (${message(cause)})` : ''}`;
          this.failure = { at: this.now(), detail };
          this.options.log?.(
            `single sign-on: the provider at ${config.issuer.href} cannot be discovered (${detail}); sign-ins retry it`,
          );
          throw new Error(detail);
        },
      )
      .finally(() => (this.discovering = undefined));
    return this.discovering;
  }

  private sweep(): void {
    const now = this.now();
    for (const [state, p] of this.pending) if (p.expiresAt < now) this.pending.delete(state);
  }

  private async begin(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    ctx: OidcRequestContext,
  ): Promise<void> {
    const raw = url.searchParams.get('return');
    const returnTo = safeReturnPath(raw);
    if (returnTo === undefined) return sendProblem(req, res, { kind: 'bad_return', path: raw ?? '' });
    let found: client.Configuration;
    try {
      found = await this.configuration();
    } catch (err) {
      return sendProblem(req, res, {
        kind: 'unavailable',
        issuer: this.options.config.issuer.href,
        detail: message(err),
      });
    }
    this.sweep();
    if (this.pending.size >= MAX_PENDING) return sendProblem(req, res, { kind: 'busy' });
    // One browser id per browser, kept while it has one: two tabs signing in at once both work.
    const had = cookieValue(req, BROWSER_COOKIE);
    const browser = had && /^[A-Za-z0-9_-]{43}$/.test(had) ? had : randomBytes(32).toString('base64url');
    const state = client.randomState();
    const nonce = client.randomNonce();
    const verifier = client.randomPKCECodeVerifier();
    const redirectUri = (this.options.config.redirectUrl ?? new URL(OIDC_CALLBACK_PATH, ctx.origin)).href;
    this.pending.set(state, {
      nonce,
      verifier,
      returnTo,
      redirectUri,
      browser,
      expiresAt: this.now() + OIDC_PENDING_MS,
    });
    const target = client.buildAuthorizationUrl(found, {
      redirect_uri: redirectUri,
      scope: scopesFor(found.serverMetadata().scopes_supported),
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    res.writeHead(302, {
      location: target.href,
      'cache-control': 'no-store',
      // Lax: the provider's redirect back is a top-level GET from another site, which Lax lets through.
      'set-cookie': `${BROWSER_COOKIE}=${browser}; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=${OIDC_PENDING_MS / 1000}${ctx.secure ? '; Secure' : ''}`,
    });
    res.end();
  }

  private async callback(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    ctx: OidcRequestContext,
  ): Promise<void> {
    const state = url.searchParams.get('state') ?? '';
    const pending = this.pending.get(state);
    // Forgotten before anything else: a replayed callback, or a second use, finds nothing.
    this.pending.delete(state);
    if (pending === undefined || pending.expiresAt < this.now()) return sendProblem(req, res, { kind: 'expired' });
    if (!sameSecret(cookieValue(req, BROWSER_COOKIE), pending.browser))
      return sendProblem(req, res, { kind: 'other_browser' });
    // Said only for a sign-in this browser started: a crafted link cannot put its words on this origin's page.
    const error = url.searchParams.get('error');
    if (error !== null) {
      const description = url.searchParams.get('error_description')?.slice(0, 300);
      return sendProblem(req, res, {
        kind: 'provider_error',
        error: error.slice(0, 100),
        ...(description && { description }),
      });
    }

    let claims: Record<string, unknown>;
    try {
      const found = await this.configuration();
      // The URL the provider redirected to, as registered (behind a proxy the request's own differs).
      const current = new URL(pending.redirectUri);
      current.search = url.search;
      const tokens = await client.authorizationCodeGrant(found, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      // Providers that keep profile claims out of the ID token (the spec's default) give them at userinfo.
      const { config } = this.options;
      const lacking =
        !hasClaim(claims, config.groupsClaim) ||
        (config.usernameClaim !== undefined
          ? !hasClaim(claims, config.usernameClaim)
          : !hasClaim(claims, 'preferred_username'));
      if (lacking && found.serverMetadata().userinfo_endpoint)
        claims = { ...(await client.fetchUserInfo(found, tokens.access_token, claims.sub as string)), ...claims };
    } catch (err) {
      if (err instanceof client.ResponseBodyError)
        return sendProblem(req, res, {
          kind: 'provider_error',
          error: err.error,
          ...(err.error_description && { description: err.error_description }),
        });
      return sendProblem(req, res, { kind: 'exchange_failed', detail: message(err) });
    }
    return this.signIn(req, res, claims, pending, ctx);
  }

  private async signIn(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    claims: Record<string, unknown>,
    pending: Pending,
    ctx: OidcRequestContext,
  ): Promise<void> {
    const { config, accounts } = this.options;
    const made = identityFromClaims(claims, config);
    if ('error' in made) return sendProblem(req, res, { kind: 'claims', detail: made.error });
    const { identity } = made;
    const outcome = await accounts.ssoSignIn(identity, ctx.address);
    const noGroup: OidcProblem = {
      kind: 'no_group',
      name: identity.name,
      groups: [...new Set([...identity.groups, ...groupsOf(claims, config.groupsClaim)])],
      accepted: [...config.roleMap.keys()],
    };
    if (!outcome.ok)
      return sendProblem(
        req,
        res,
        identity.role === undefined ? noGroup : { kind: 'refused', message: outcome.message },
      );
    if (identity.role === undefined) {
      // The service should have refused; never leave a session without a role behind.
      await accounts.endSession(outcome.session.id);
      return sendProblem(req, res, noGroup);
    }
    // The same cookie as a password sign-in (auth-routes.ts).
    const cookie = sessionCookie(outcome.session.id, outcome.session.expiresAt, ctx.secure, this.now());
    res.writeHead(302, {
      location: pending.returnTo,
      'cache-control': 'no-store',
      'set-cookie': [cookie, `${BROWSER_COOKIE}=; Path=/auth/oidc; HttpOnly; SameSite=Lax; Max-Age=0`],
    });
    res.end();
  }
}

/**
 * The SSO routes as one of the API server's extra routes (ws-server.ts `routes`). The origin is
 * the Host the browser used (checked against this server's names before any route runs).
 */
export function oidcRoute(oidc: OidcSignIn): HttpRoute {
  return (req, res, url, ctx: AuthContext) => {
    const secure = ctx.facts.secure(req);
    return oidc.handle(req, res, url, {
      origin: `${secure ? 'https' : 'http'}://${req.headers.host ?? '127.0.0.1'}`,
      secure,
      address: ctx.facts.address(req),
    });
  };
}

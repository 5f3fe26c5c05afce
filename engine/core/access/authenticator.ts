// What the server asks the accounts service (issue 25), one interface so the HTTP side
// (engine/server), the OIDC sign-in and the worker endpoint code against it while the service
// (core/access/access-service.ts, over the AccountStore port) keeps the rules: scrypt passwords,
// lockout after LOCKOUT_AFTER failures, sessions and tokens stored as hashes, expiry, revocation,
// and the audit entries of sign-ins, failed sign-ins, first token use per day and refusals.
import type { Principal, Role } from '../../api/access.ts';

export type SignInOutcome =
  | { ok: true; principal: Principal; session: { id: string; expiresAt: number } }
  | {
      ok: false;
      /** bad: unknown user or wrong password (never says which); locked: too many failures; disabled */
      why: 'bad' | 'locked' | 'disabled';
      /** what the page shows, e.g. "wrong user name or password" */
      message: string;
      /** set when locked: when to try again */
      retryAfterMs?: number;
    };

/** What an SSO provider vouched for (server/oidc.ts maps claims and groups to this). */
export interface SsoIdentity {
  /** the account name AX uses (preferred_username, else email, else sub; see README) */
  name: string;
  /** the provider's groups claim, as given */
  groups: string[];
  /** the role the configured group → role map gives; undefined: none of the user's groups is mapped (refused) */
  role: Role | undefined;
}

export interface Authenticator {
  /** password sign-in; counts failures, locks, audits both */
  signIn(user: string, password: string, address: string | undefined): Promise<SignInOutcome>;
  /** an SSO sign-in: creates or updates the account (source oidc, role and groups from the provider) */
  ssoSignIn(identity: SsoIdentity, address: string | undefined): Promise<SignInOutcome>;
  /** the principal of a session cookie's value; undefined when unknown, expired or the user is disabled */
  sessionPrincipal(sessionId: string, address: string | undefined): Promise<Principal | undefined>;
  endSession(sessionId: string): Promise<void>;
  /**
   * the principal of a bearer token; undefined when unknown, expired, revoked or its user disabled.
   * Records its last use (at most once a minute) and audits its first use of the day.
   */
  tokenPrincipal(token: string, address: string | undefined): Promise<Principal | undefined>;
  /** a password sign-in that answers a token for the CLI (POST /auth/token) instead of a session */
  signInForToken(
    user: string,
    password: string,
    tokenName: string,
    address: string | undefined,
  ): Promise<{ ok: true; token: string; principal: Principal } | Extract<SignInOutcome, { ok: false }>>;
  /** audits a refused request (who, what, why) */
  recordRefusal(principal: Principal | undefined, what: string, why: string): Promise<void>;
}

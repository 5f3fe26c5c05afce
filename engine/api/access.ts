// People in team mode (issue 25): accounts, roles, groups, API tokens, and what each role may do
// at the API. Solo mode and the desktop app stay single-user: their one principal is LOCAL_ADMIN.
//
// Who is calling is a Principal, made by the server from what the request carried (a session
// cookie, a bearer token, the data dir's node token) and attached to the connection
// (server/api-dispatch.ts ConnectionIdentity.principal). Every request is checked against
// METHOD_RULES before it reaches the engine (server/authorize.ts), every live-event topic against
// TOPIC_RULE (method-rules.ts), and a refusal is an AxError 'forbidden' that names the role, scope or
// group it needs.

/** Roles, weakest first; each allows what the ones before it allow. */
export const ROLES = ['viewer', 'operator', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/**
 * What a token may be used for. A token never does more than its user's role allows, and only
 * what its scopes name: `read` (viewer's methods), `run` (operator's), `edit` (editor's), `admin`
 * (admin's), `worker` (only the worker endpoint, WebSocket /worker, for its workerId and labels),
 * `metrics` (only GET /metrics), `events` (only POST /events/NAME and /ping/NAME).
 */
export const TOKEN_SCOPES = ['read', 'run', 'edit', 'admin', 'worker', 'metrics', 'events'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** The scopes a person's own CLI login gets: what their role allows at the API. */
export function scopesOfRole(role: Role): TokenScope[] {
  return (['read', 'run', 'edit', 'admin'] as const).slice(0, ROLES.indexOf(role) + 1);
}

export interface TokenGrant {
  name: string;
  scopes: TokenScope[];
  /** the one workflow this token may act on (methods with a workflow target, events of it) */
  workflow?: string;
  /** a worker token: the worker id it may serve as, and the labels it may offer */
  workerId?: string;
  labels?: string[];
}

export interface Principal {
  /** the account name; on a solo node the OS user's name */
  user: string;
  role: Role;
  /** the groups the user belongs to (a workflow's `owner` is a group) */
  groups: string[];
  /**
   * how the request proved who it is: a UI session, an API token, the node's own data-dir token
   * (DATA_DIR/api-token: whoever can read it can read the database URL too, so it is an admin),
   * or solo mode's single user
   */
  via: 'session' | 'token' | 'node' | 'local';
  /** set when via is 'token' */
  token?: TokenGrant;
  /** the source address the server saw (after X-Forwarded-For only when trusted) */
  address?: string;
}

/** Solo mode and the desktop app: one person, no sign-in, allowed everything. */
export function localAdmin(user: string): Principal {
  return { user, role: 'admin', groups: [], via: 'local' };
}

export interface UserRecord {
  name: string;
  role: Role;
  groups: string[];
  /** local: a password kept here (scrypt); oidc: created at the first SSO sign-in */
  source: 'local' | 'oidc';
  disabled: boolean;
  createdAt: number;
  lastSignInAt?: number;
  /** set while sign-in is locked after repeated failures */
  lockedUntil?: number;
}

export interface GroupRecord {
  name: string;
  /** a private group's workflows, runs and logs are seen only by its members (and admins) */
  private: boolean;
}

export interface TokenRecord extends TokenGrant {
  user: string;
  createdAt: number;
  createdBy: string;
  expiresAt?: number;
  lastUsedAt?: number;
  revokedAt?: number;
}

/** What createToken answers: the token itself is in this answer only, never stored or shown again. */
export interface CreatedToken {
  record: TokenRecord;
  token: string;
}

export interface NewUser {
  name: string;
  role: Role;
  groups?: string[];
  /** required for a local account; at least 12 characters */
  password?: string;
}

export interface UserChange {
  role?: Role;
  groups?: string[];
  disabled?: boolean;
  /** an admin's reset: the new password (the user's sessions and locks end) */
  password?: string;
  /** lift a lockout */
  unlock?: boolean;
}

export interface NewTokenRequest {
  name: string;
  /** whose token; default the caller. Another user's: admins only */
  user?: string;
  scopes: TokenScope[];
  workflow?: string;
  workerId?: string;
  labels?: string[];
  /** lifetime from now; default 90 days; at most 366 days */
  expiresInMs?: number;
}

/** The people half of the API (team mode; solo answers whoami and refuses the rest, saying why). */
export interface AccessApi {
  /** who this connection is: the principal the server attached (solo: the local admin) */
  whoami(): Promise<Principal>;
  listUsers(): Promise<UserRecord[]>;
  addUser(user: NewUser, actor: import('./actor.ts').Actor): Promise<UserRecord>;
  updateUser(name: string, change: UserChange, actor: import('./actor.ts').Actor): Promise<UserRecord>;
  removeUser(name: string, actor: import('./actor.ts').Actor): Promise<void>;
  /** the caller's own password: the current one is required */
  changePassword(current: string, next: string, actor: import('./actor.ts').Actor): Promise<void>;
  listGroups(): Promise<GroupRecord[]>;
  setGroup(group: GroupRecord, actor: import('./actor.ts').Actor): Promise<GroupRecord>;
  createToken(request: NewTokenRequest, actor: import('./actor.ts').Actor): Promise<CreatedToken>;
  /** the caller's tokens; an admin's call with a user (or '*') lists theirs */
  listTokens(filter: { user?: string }, actor: import('./actor.ts').Actor): Promise<TokenRecord[]>;
  revokeToken(user: string | undefined, name: string, actor: import('./actor.ts').Actor): Promise<void>;
  /** ends every UI session of the user (default the caller; another user's: admins) */
  signOutEverywhere(user: string | undefined, actor: import('./actor.ts').Actor): Promise<number>;
}

/**
 * What the sign-in page asks first (GET /auth/config, no sign-in needed): whether this server
 * has accounts at all (team mode), and whether SSO is configured (its button's label).
 */
export interface AuthConfig {
  accounts: boolean;
  /** local accounts (password) sign-in is offered */
  local: boolean;
  sso?: { label: string };
}

/**
 * The HTTP side of sign-in (engine/server), for the UI, the CLI and the tests:
 * - GET    /auth/config                → 200 AuthConfig
 * - POST   /auth/login {user,password} → 204 + Set-Cookie ax_session (HttpOnly; SameSite=Lax;
 *                                         Secure under TLS; Max-Age = the session's life) |
 *                                         401 {error} | 423 {error, retryAfterSeconds} (locked) |
 *                                         429 {error, retryAfterSeconds} (too many from this address)
 * - GET    /auth/session               → 200 Principal | 401
 * - DELETE /auth/session               → 204 (signs this session out)
 * - POST   /auth/token {user,password,name} → 200 {token, principal} (the CLI's `ax login` with a password; the token is shown only here)
 * - GET    /auth/oidc/start?return=PATH → 302 to the provider (authorization code + PKCE)
 * - GET    /auth/oidc/callback          → 302 to PATH with the session cookie set, or a page saying why not
 * - WebSocket /api    (session cookie from the server's own origin, or Authorization: Bearer TOKEN)
 * - WebSocket /worker (Authorization: Bearer TOKEN with the worker scope)
 */
export const SESSION_COOKIE = 'ax_session';

/** Sessions last this long from sign-in (sign-out ends them sooner). */
export const SESSION_LIFE_MS = 12 * 60 * 60 * 1000;
/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 12;
/** Failed sign-ins in a row that lock an account, and for how long. */
export const LOCKOUT_AFTER = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;

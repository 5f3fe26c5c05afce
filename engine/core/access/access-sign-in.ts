// The Authenticator half of the accounts service (access-service.ts extends it): password and
// SSO sign-in, sessions, bearer tokens and the audit of each. Unknown user and wrong password
// answer alike and take the same time (a dummy hash is verified for an unknown user); repeated
// failures lock the account; sessions and tokens are found by their SHA-256, never stored.
import {
  LOCKOUT_AFTER,
  LOCKOUT_MS,
  type Principal,
  scopesOfRole,
  SESSION_LIFE_MS,
  type TokenGrant,
} from '../../api/access.ts';
import type { Clock } from '../../ports/clock.ts';
import type { SecretsCrypto } from '../../ports/secrets-crypto.ts';
import type { AccountStore, TokenRow, UserRow } from '../../ports/store-accounts.ts';
import type { AuditStore } from '../../ports/store-flags.ts';
import type { Authenticator, SignInOutcome, SsoIdentity } from './authenticator.ts';
import { checkUserName, DEFAULT_TOKEN_LIFE_MS, TOKEN_TOUCH_MS, utcDay } from './access-rules.ts';

export interface AccessDeps {
  store: AccountStore & AuditStore;
  clock: Pick<Clock, 'now'>;
  crypto: SecretsCrypto;
  /** who a call straight to this engine is (a CLI on a node with the database's password): an admin */
  nodeUser: string;
}

export const TOKEN_PREFIX = 'axt_';
const BAD = 'wrong user name or password';
type Failure = Extract<SignInOutcome, { ok: false }>;

function lockedFor(until: number, now: number): Failure {
  const minutes = Math.ceil((until - now) / 60_000);
  return {
    ok: false,
    why: 'locked',
    message: `too many failed sign-ins: this account is locked for ${minutes} more minute(s), or until an admin unlocks it (ax users unlock)`,
    retryAfterMs: until - now,
  };
}

export class AccessSignIn implements Authenticator {
  private dummyHash: Promise<string> | undefined;

  constructor(protected readonly deps: AccessDeps) {}

  protected now(): number {
    return this.deps.clock.now();
  }

  protected async record(
    who: { actor: string; role?: string | null; address?: string | null; note?: string | null },
    action: string,
    object: string,
    detail?: string,
  ): Promise<void> {
    await this.deps.store.audit({
      at: this.now(),
      actor: who.actor,
      note: who.note ?? null,
      role: who.role ?? null,
      address: who.address ?? null,
      action,
      object,
      ...(detail !== undefined && { detail }),
    });
  }

  /** a hash to verify against when there is no user, so both answers take one scrypt */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.deps.crypto.hashPassword(this.deps.crypto.randomToken(16));
    return this.dummyHash;
  }

  protected principalOf(user: UserRow, via: Principal['via'], address: string | undefined): Principal {
    return { user: user.name, role: user.role, groups: user.groups, via, ...(address && { address }) };
  }

  /** the user whose password this is, or why not (failures counted, locked and audited) */
  protected async checkPassword(
    name: string,
    password: string,
    address: string | undefined,
  ): Promise<UserRow | Failure> {
    const now = this.now();
    const user = await this.deps.store.getUser(name);
    const tried = { actor: name.slice(0, 191), address: address ?? null };
    if (user?.lockedUntil && user.lockedUntil > now) {
      await this.record({ ...tried, role: user.role }, 'sign-in.fail', `user:${user.name}`, 'locked');
      return lockedFor(user.lockedUntil, now);
    }
    const hash = user?.source === 'local' ? user.passwordHash : null;
    const ok = await this.deps.crypto.verifyPassword(password, hash ?? (await this.dummy()));
    if (!user || !hash || !ok) {
      if (!user || !hash) {
        await this.record(tried, 'sign-in.fail', `user:${name.slice(0, 100)}`, BAD);
        return { ok: false, why: 'bad', message: BAD };
      }
      const failures = user.failedSignIns + 1;
      const lock = failures >= LOCKOUT_AFTER;
      await this.deps.store.updateUser(user.name, {
        failedSignIns: lock ? 0 : failures,
        lockedUntil: lock ? now + LOCKOUT_MS : null,
        updatedAt: now,
      });
      const detail = lock ? `${BAD}; locked after ${LOCKOUT_AFTER} failures in a row` : BAD;
      await this.record({ ...tried, role: user.role }, 'sign-in.fail', `user:${user.name}`, detail);
      return lock ? lockedFor(now + LOCKOUT_MS, now) : { ok: false, why: 'bad', message: BAD };
    }
    if (user.disabled) {
      await this.record({ ...tried, role: user.role }, 'sign-in.fail', `user:${user.name}`, 'disabled');
      return { ok: false, why: 'disabled', message: 'this account is disabled: ask an admin to enable it' };
    }
    await this.deps.store.updateUser(user.name, {
      failedSignIns: 0,
      lockedUntil: null,
      lastSignInAt: now,
      updatedAt: now,
    });
    return user;
  }

  private async startSession(user: UserRow, address: string | undefined): Promise<SignInOutcome> {
    const now = this.now();
    const id = this.deps.crypto.randomToken(32);
    const expiresAt = now + SESSION_LIFE_MS;
    await this.deps.store.insertSession({
      idHash: this.deps.crypto.sha256(id),
      user: user.name,
      createdAt: now,
      expiresAt,
      lastSeenAt: now,
      address: address ?? null,
    });
    await this.record(
      { actor: user.name, role: user.role, address },
      'sign-in',
      `user:${user.name}`,
      `${user.source} account`,
    );
    return { ok: true, principal: this.principalOf(user, 'session', address), session: { id, expiresAt } };
  }

  async signIn(user: string, password: string, address: string | undefined): Promise<SignInOutcome> {
    const checked = await this.checkPassword(user, password, address);
    return 'ok' in checked ? checked : this.startSession(checked, address);
  }

  async ssoSignIn(identity: SsoIdentity, address: string | undefined): Promise<SignInOutcome> {
    const now = this.now();
    const tried = { actor: identity.name.slice(0, 191), address: address ?? null };
    const refuse = async (why: Failure['why'], message: string): Promise<Failure> => {
      await this.record(tried, 'sign-in.fail', `user:${identity.name.slice(0, 100)}`, `SSO: ${message}`);
      return { ok: false, why, message };
    };
    if (identity.role === undefined) {
      const groups = identity.groups.length ? identity.groups.join(', ') : 'none';
      return refuse(
        'bad',
        `none of your groups (${groups}) is given a role on this scheduler: ask an admin to map one`,
      );
    }
    try {
      checkUserName(identity.name);
    } catch (err) {
      return refuse('bad', `the provider's user name cannot name an account here: ${(err as Error).message}`);
    }
    const existing = await this.deps.store.getUser(identity.name);
    if (existing?.source === 'local') {
      return refuse(
        'bad',
        `"${identity.name}" is a local account here: sign in with its password (SSO cannot take it over)`,
      );
    }
    if (existing?.disabled) return refuse('disabled', 'this account is disabled: ask an admin to enable it');
    const groups = [...new Set(identity.groups)].sort();
    if (existing) {
      await this.deps.store.updateUser(existing.name, {
        role: identity.role,
        groups,
        lastSignInAt: now,
        updatedAt: now,
      });
    } else {
      await this.deps.store.insertUser({
        name: identity.name,
        role: identity.role,
        groups,
        source: 'oidc',
        passwordHash: null,
        disabled: false,
        failedSignIns: 0,
        lockedUntil: null,
        createdAt: now,
        updatedAt: now,
        lastSignInAt: now,
      });
    }
    const user = (await this.deps.store.getUser(identity.name)) as UserRow;
    return this.startSession(user, address);
  }

  async sessionPrincipal(sessionId: string, address: string | undefined): Promise<Principal | undefined> {
    const now = this.now();
    const idHash = this.deps.crypto.sha256(sessionId);
    const session = await this.deps.store.getSession(idHash);
    if (!session) return undefined;
    if (session.expiresAt <= now) {
      await this.deps.store.deleteSession(idHash);
      return undefined;
    }
    const user = await this.deps.store.getUser(session.user);
    if (!user || user.disabled) return undefined;
    if (now - session.lastSeenAt >= TOKEN_TOUCH_MS) await this.deps.store.touchSession(idHash, now);
    return this.principalOf(user, 'session', address);
  }

  async endSession(sessionId: string): Promise<void> {
    const idHash = this.deps.crypto.sha256(sessionId);
    const session = await this.deps.store.getSession(idHash);
    if (!session) return;
    await this.deps.store.deleteSession(idHash);
    await this.record({ actor: session.user }, 'sign-out', `user:${session.user}`);
  }

  async tokenPrincipal(token: string, address: string | undefined): Promise<Principal | undefined> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return undefined;
    const now = this.now();
    const row = await this.deps.store.tokenByHash(this.deps.crypto.sha256(token));
    if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) return undefined;
    const user = await this.deps.store.getUser(row.user);
    if (!user || user.disabled) return undefined;
    const firstToday = row.lastUsedAt === null || utcDay(row.lastUsedAt) !== utcDay(now);
    if (firstToday || now - (row.lastUsedAt ?? 0) >= TOKEN_TOUCH_MS) await this.deps.store.touchToken(row.hash, now);
    if (firstToday) {
      await this.record(
        { actor: user.name, role: user.role, address },
        'token.use',
        `token:${row.user}/${row.name}`,
        'first use today (UTC)',
      );
    }
    return { ...this.principalOf(user, 'token', address), token: grantOf(row) };
  }

  async signInForToken(
    user: string,
    password: string,
    tokenName: string,
    address: string | undefined,
  ): Promise<{ ok: true; token: string; principal: Principal } | Failure> {
    const checked = await this.checkPassword(user, password, address);
    if ('ok' in checked) return checked;
    const now = this.now();
    const taken = new Set((await this.deps.store.listTokens(checked.name)).map((t) => t.name));
    const base = tokenName.slice(0, 90) || 'cli';
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    const token = TOKEN_PREFIX + this.deps.crypto.randomToken(32);
    const row: TokenRow = {
      name,
      user: checked.name,
      hash: this.deps.crypto.sha256(token),
      scopes: scopesOfRole(checked.role),
      workflow: null,
      workerId: null,
      labels: null,
      createdAt: now,
      createdBy: checked.name,
      expiresAt: now + DEFAULT_TOKEN_LIFE_MS,
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.deps.store.insertToken(row);
    const who = { actor: checked.name, role: checked.role, address };
    await this.record(who, 'sign-in', `user:${checked.name}`, `password, for the token ${name}`);
    await this.record(who, 'token.create', `token:${checked.name}/${name}`, `scopes ${row.scopes.join(',')}`);
    return { ok: true, token, principal: { ...this.principalOf(checked, 'token', address), token: grantOf(row) } };
  }

  async recordRefusal(principal: Principal | undefined, what: string, why: string): Promise<void> {
    const who = { actor: principal?.user ?? 'anonymous', role: principal?.role, address: principal?.address };
    await this.record(who, 'refused', what.slice(0, 500), why.slice(0, 2000));
  }
}

export function grantOf(row: TokenRow): TokenGrant {
  return {
    name: row.name,
    scopes: row.scopes,
    ...(row.workflow !== null && { workflow: row.workflow }),
    ...(row.workerId !== null && { workerId: row.workerId }),
    ...(row.labels !== null && { labels: row.labels }),
  };
}

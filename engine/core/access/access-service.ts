// The accounts service of team mode (issue 25): the people half of the API (AccessApi) over the
// AccountStore, and, through AccessSignIn, the Authenticator the server asks. The server checks
// each method's role and scope first (api/method-rules.ts METHOD_RULES); this service keeps the rules
// that need the data: self-or-admin, the last admin, scopes within the user's role, and writes
// the audit of every change with the caller's role and address.
import {
  type AccessApi,
  type CreatedToken,
  type GroupRecord,
  type NewTokenRequest,
  type NewUser,
  type Principal,
  type Role,
  type TokenRecord,
  type UserChange,
  type UserRecord,
} from '../../api/access.ts';
import { type Actor, actorColumns, actorName } from '../../api/actor.ts';
import { AxError } from '../../api/errors.ts';
import type { TokenRow, UserRow } from '../../ports/store-accounts.ts';
import { AccessSignIn, grantOf, TOKEN_PREFIX } from './access-sign-in.ts';
import {
  checkGroups,
  checkPassword,
  checkRole,
  checkScopes,
  checkTokenName,
  checkUserName,
  tokenExpiry,
} from './access-rules.ts';

export { TOKEN_PREFIX } from './access-sign-in.ts';
export type { AccessDeps } from './access-sign-in.ts';

interface Caller {
  name: string;
  role: Role;
  /** a call straight to the engine (no server in between): the node, with the database's password */
  node: boolean;
}

function userRecord(row: UserRow, now: number): UserRecord {
  return {
    name: row.name,
    role: row.role,
    groups: row.groups,
    source: row.source,
    disabled: row.disabled,
    createdAt: row.createdAt,
    ...(row.lastSignInAt !== null && { lastSignInAt: row.lastSignInAt }),
    ...(row.lockedUntil !== null && row.lockedUntil > now && { lockedUntil: row.lockedUntil }),
  };
}

function tokenRecord(row: TokenRow): TokenRecord {
  return {
    ...grantOf(row),
    user: row.user,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    ...(row.expiresAt !== null && { expiresAt: row.expiresAt }),
    ...(row.lastUsedAt !== null && { lastUsedAt: row.lastUsedAt }),
    ...(row.revokedAt !== null && { revokedAt: row.revokedAt }),
  };
}

export class AccessService extends AccessSignIn implements AccessApi {
  /**
   * A call straight to this engine (the CLI on a node, which holds the database's password) is
   * the node's admin. Through the server the actor is the signed-in user; their role is read here.
   */
  whoami(): Promise<Principal> {
    return Promise.resolve({ user: this.deps.nodeUser, role: 'admin', groups: [], via: 'node' });
  }

  /**
   * Who is calling: a user of this name (their current role), else a principal the server
   * vouched for (the actor carries its role), else the node itself (no server in between).
   */
  private async caller(actor: Actor): Promise<Caller> {
    const name = actorName(actor);
    const user = await this.deps.store.getUser(name);
    if (user) {
      if (user.disabled) throw new AxError('forbidden', `${name}'s account is disabled`);
      return { name, role: user.role, node: false };
    }
    const given = typeof actor === 'string' ? undefined : actor.role;
    if (given) {
      checkRole(given);
      return { name, role: given, node: false };
    }
    return { name, role: 'admin', node: true };
  }

  private async admin(actor: Actor, what: string): Promise<Caller> {
    const caller = await this.caller(actor);
    if (caller.role !== 'admin')
      throw new AxError('forbidden', `${what} needs the role admin; ${caller.name} is ${caller.role}`);
    return caller;
  }

  /** `user` when given and not the caller needs an admin; answers whose it is */
  private async selfOrAdmin(
    actor: Actor,
    user: string | undefined,
    what: string,
  ): Promise<{ caller: Caller; user: string }> {
    const caller = await this.caller(actor);
    if (caller.node && user === undefined && what !== 'listing the tokens') {
      throw new AxError(
        'validation',
        `${what}: this node (${caller.name}) has no account of its own: name the user (${what === 'signing out' ? 'ax users sign-out NAME' : '--user NAME'})`,
      );
    }
    // the node lists every user's tokens: it has none of its own
    const target = user ?? (caller.node ? '*' : caller.name);
    if (target !== caller.name && caller.role !== 'admin') {
      throw new AxError('forbidden', `${what} of another user needs the role admin; ${caller.name} is ${caller.role}`);
    }
    return { caller, user: target };
  }

  /** the entry's role is the one the server admitted the caller with, else their account's (none for the node) */
  private async audit(actor: Actor, caller: Caller, action: string, object: string, detail?: string): Promise<void> {
    const who = actorColumns(actor);
    await this.record({ ...who, role: who.role ?? (caller.node ? null : caller.role) }, action, object, detail);
  }

  private async user(name: string): Promise<UserRow> {
    const row = await this.deps.store.getUser(name);
    if (!row) throw new AxError('not_found', `no user named "${name}" (ax users ls lists them)`);
    return row;
  }

  /** refuses a change that would leave no enabled admin */
  private async keepAnAdmin(row: UserRow, what: string): Promise<void> {
    if (row.role !== 'admin' || row.disabled) return;
    const others = (await this.deps.store.listUsers()).filter(
      (u) => u.role === 'admin' && !u.disabled && u.name !== row.name,
    );
    if (others.length === 0) {
      throw new AxError(
        'conflict',
        `${row.name} is the last admin: ${what} would leave nobody who can manage users. Make another admin first (ax users add NAME --role admin)`,
      );
    }
  }

  async listUsers(): Promise<UserRecord[]> {
    const now = this.now();
    return (await this.deps.store.listUsers()).map((u) => userRecord(u, now));
  }

  async addUser(user: NewUser, actor: Actor): Promise<UserRecord> {
    const caller = await this.admin(actor, 'adding a user');
    checkUserName(user.name);
    checkRole(user.role);
    const groups = checkGroups(user.groups ?? []);
    const passwordHash = await this.deps.crypto.hashPassword(checkPassword(user.password));
    const now = this.now();
    const row: UserRow = {
      name: user.name,
      role: user.role,
      groups,
      source: 'local',
      passwordHash,
      disabled: false,
      failedSignIns: 0,
      lockedUntil: null,
      createdAt: now,
      updatedAt: now,
      lastSignInAt: null,
    };
    await this.deps.store.insertUser(row);
    await this.audit(
      actor,
      caller,
      'user.add',
      `user:${user.name}`,
      `role ${user.role}; groups ${groups.join(',') || 'none'}`,
    );
    return userRecord(row, now);
  }

  async updateUser(name: string, change: UserChange, actor: Actor): Promise<UserRecord> {
    const caller = await this.admin(actor, 'changing a user');
    const row = await this.user(name);
    const now = this.now();
    const patch: Partial<UserRow> = { updatedAt: now };
    const said: string[] = [];
    if (change.role !== undefined && change.role !== row.role) {
      checkRole(change.role);
      if (change.role !== 'admin') await this.keepAnAdmin(row, `making them ${change.role}`);
      patch.role = change.role;
      said.push(`role ${row.role} → ${change.role}`);
    }
    if (change.groups !== undefined) {
      patch.groups = checkGroups(change.groups);
      said.push(`groups ${patch.groups.join(',') || 'none'}`);
    }
    if (change.disabled !== undefined && change.disabled !== row.disabled) {
      if (change.disabled) await this.keepAnAdmin(row, 'disabling them');
      patch.disabled = change.disabled;
      said.push(change.disabled ? 'disabled' : 'enabled');
    }
    if (change.password !== undefined) {
      if (row.source !== 'local') {
        throw new AxError('validation', `${name} signs in with SSO: a password is only for local accounts`);
      }
      patch.passwordHash = await this.deps.crypto.hashPassword(checkPassword(change.password));
    }
    if (change.password !== undefined || change.unlock) {
      patch.failedSignIns = 0;
      patch.lockedUntil = null;
      if (change.unlock) said.push('unlocked');
    }
    await this.deps.store.updateUser(name, patch);
    if (change.password !== undefined || patch.disabled) await this.deps.store.deleteSessionsOf(name);
    if (said.length) await this.audit(actor, caller, 'user.change', `user:${name}`, said.join('; '));
    if (change.password !== undefined)
      await this.audit(actor, caller, 'password.reset', `user:${name}`, 'sessions and lock ended');
    return userRecord(await this.user(name), now);
  }

  async removeUser(name: string, actor: Actor): Promise<void> {
    const caller = await this.admin(actor, 'removing a user');
    await this.keepAnAdmin(await this.user(name), 'removing them');
    await this.deps.store.deleteUser(name);
    await this.audit(actor, caller, 'user.remove', `user:${name}`, 'with their sessions and tokens');
  }

  async changePassword(current: string, next: string, actor: Actor): Promise<void> {
    const name = actorName(actor);
    const row = await this.deps.store.getUser(name);
    if (!row || row.source !== 'local') {
      throw new AxError('validation', `${name} has no password here (not a local account): nothing to change`);
    }
    checkPassword(next);
    const checked = await this.checkPassword(name, current, typeof actor === 'string' ? undefined : actor.address);
    if ('ok' in checked) {
      throw new AxError('forbidden', checked.why === 'bad' ? 'the current password is wrong' : checked.message);
    }
    if (next === current) throw new AxError('validation', 'the new password is the current one: choose another');
    await this.deps.store.updateUser(name, {
      passwordHash: await this.deps.crypto.hashPassword(next),
      updatedAt: this.now(),
    });
    await this.audit(actor, { name, role: row.role, node: false }, 'password.change', `user:${name}`);
  }

  async listGroups(): Promise<GroupRecord[]> {
    const marked = new Map((await this.deps.store.listGroups()).map((g) => [g.name, g.private]));
    for (const user of await this.deps.store.listUsers())
      for (const g of user.groups) if (!marked.has(g)) marked.set(g, false);
    return [...marked]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, hidden]) => ({ name, private: hidden }));
  }

  async setGroup(group: GroupRecord, actor: Actor): Promise<GroupRecord> {
    const caller = await this.admin(actor, 'setting a group');
    checkGroups([group.name]);
    const row = { name: group.name, private: group.private === true };
    await this.deps.store.putGroup(row);
    await this.audit(actor, caller, 'group.set', `group:${row.name}`, row.private ? 'private' : 'public');
    return row;
  }

  async createToken(request: NewTokenRequest, actor: Actor): Promise<CreatedToken> {
    const { caller, user } = await this.selfOrAdmin(actor, request.user, 'a token');
    checkTokenName(request.name);
    const owner = await this.deps.store.getUser(user);
    if (!owner) {
      throw new AxError(
        'not_found',
        `no user named "${user}": a token belongs to a user (ax users add ${user} --role R first)`,
      );
    }
    if (owner.disabled) throw new AxError('validation', `${user}'s account is disabled: enable it first`);
    const scopes = checkScopes(request.scopes, owner.role, caller.role === 'admin');
    const worker = scopes.includes('worker');
    if (worker && !request.workerId)
      throw new AxError('validation', 'a worker token needs the worker id it serves as (--worker-id)');
    if (!worker && (request.workerId !== undefined || request.labels !== undefined)) {
      throw new AxError(
        'validation',
        'a worker id and labels belong to a token with the worker scope (--scope worker)',
      );
    }
    const now = this.now();
    const token = TOKEN_PREFIX + this.deps.crypto.randomToken(32);
    const row: TokenRow = {
      name: request.name,
      user,
      hash: this.deps.crypto.sha256(token),
      scopes,
      workflow: request.workflow ?? null,
      workerId: request.workerId ?? null,
      labels: request.labels ? [...new Set(request.labels)] : null,
      createdAt: now,
      createdBy: caller.name,
      expiresAt: tokenExpiry(now, request.expiresInMs),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.deps.store.insertToken(row);
    const detail = [
      `scopes ${scopes.join(',')}`,
      row.workflow && `workflow ${row.workflow}`,
      row.workerId && `worker ${row.workerId}`,
    ]
      .filter(Boolean)
      .join('; ');
    await this.audit(actor, caller, 'token.create', `token:${user}/${row.name}`, detail);
    return { record: tokenRecord(row), token };
  }

  async listTokens(filter: { user?: string }, actor: Actor): Promise<TokenRecord[]> {
    const { user } = await this.selfOrAdmin(actor, filter.user, 'listing the tokens');
    return (await this.deps.store.listTokens(user === '*' ? undefined : user)).map(tokenRecord);
  }

  async revokeToken(user: string | undefined, name: string, actor: Actor): Promise<void> {
    const target = await this.selfOrAdmin(actor, user, 'revoking a token');
    if (!(await this.deps.store.revokeToken(target.user, name, this.now()))) {
      throw new AxError('not_found', `${target.user} has no token named "${name}" in use (ax tokens ls lists them)`);
    }
    await this.audit(actor, target.caller, 'token.revoke', `token:${target.user}/${name}`);
  }

  async signOutEverywhere(user: string | undefined, actor: Actor): Promise<number> {
    const target = await this.selfOrAdmin(actor, user, 'signing out');
    const ended = await this.deps.store.deleteSessionsOf(target.user);
    await this.audit(actor, target.caller, 'sign-out.everywhere', `user:${target.user}`, `${ended} session(s) ended`);
    return ended;
  }
}

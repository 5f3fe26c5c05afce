// The accounts service of team mode (core/access/access-service.ts) on a real store, SQLite and
// MariaDB alike: sign-in with its lockout, unknown user and wrong password alike (same answer, the
// same work), the last admin kept, token scopes within the user's role, expiry and revocation,
// the audit of each with role and address, and the once-a-day audit of a token's use.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scryptCrypto } from '../../engine/adapters/crypto/node-crypto.ts';
import { STORE_TABLES } from '../../engine/adapters/sql/copy-store.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { LOCKOUT_AFTER, LOCKOUT_MS, SESSION_LIFE_MS } from '../../engine/api/access.ts';
import type { Actor } from '../../engine/api/actor.ts';
import { AxError } from '../../engine/api/errors.ts';
import { AccessService } from '../../engine/core/access/access-service.ts';
import type { SecretsCrypto } from '../../engine/ports/secrets-crypto.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { createTestDatabase, MYSQL_ADMIN_URL, mysqlAvailable } from '../helpers/services.ts';

const T0 = Date.parse('2026-12-01T09:00:00Z');
const NODE = 'root@vm';
const PASSWORD = 'correct horse battery';
const mysql = await mysqlAvailable();

async function refusal(promise: Promise<unknown>): Promise<AxError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AxError);
  return err as AxError;
}

const as = (name: string, address = '10.0.0.7'): Actor => ({ name, address });

function serviceCases(kind: 'sqlite' | 'mysql', open: () => Promise<SqlStore>, clean: (s: SqlStore) => Promise<void>) {
  let store: SqlStore;
  let clock: FakeClock;
  let verified: string[];
  let access: AccessService;

  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });
  beforeEach(async () => {
    await clean(store);
    clock = new FakeClock(T0);
    verified = [];
    // node:crypto's scrypt (at a test's cost: a hash keeps its N), counting which hashes a
    // sign-in verified against
    const scrypt = scryptCrypto(2 ** 10);
    const crypto: SecretsCrypto = {
      ...scrypt,
      verifyPassword: (password, hash) => {
        verified.push(hash);
        return scrypt.verifyPassword(password, hash);
      },
    };
    access = new AccessService({ store, clock, crypto, nodeUser: NODE });
    await access.addUser({ name: 'alice', role: 'admin', groups: ['ops'], password: PASSWORD }, NODE);
    await access.addUser({ name: 'vic', role: 'viewer', groups: ['data-team'], password: PASSWORD }, as('alice'));
    await access.addUser({ name: 'otto', role: 'operator', password: PASSWORD }, as('alice'));
  });

  it(`${kind}: unknown user and wrong password: the same answer, one scrypt each, both audited with the address`, async () => {
    const unknown = await access.signIn('mallory', PASSWORD, '203.0.113.9');
    const wrong = await access.signIn('vic', 'not the password', '203.0.113.9');
    expect(unknown).toEqual({ ok: false, why: 'bad', message: 'wrong user name or password' });
    expect(wrong).toEqual(unknown);
    // both verified one hash of the same parameters: the unknown user's is a dummy
    expect(verified).toHaveLength(2);
    expect(verified[0]?.split('$').slice(0, 4)).toEqual(verified[1]?.split('$').slice(0, 4));
    expect(verified[0]).not.toBe(verified[1]);
    const audit = await store.listAudit(2);
    expect(audit.map((e) => [e.actor, e.action, e.address, e.role])).toEqual([
      ['vic', 'sign-in.fail', '203.0.113.9', 'viewer'],
      ['mallory', 'sign-in.fail', '203.0.113.9', null],
    ]);
  });

  it(`${kind}: a sign-in starts a session the server finds by its cookie until it expires or is ended`, async () => {
    const outcome = await access.signIn('vic', PASSWORD, '10.0.0.8');
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.principal).toEqual({
      user: 'vic',
      role: 'viewer',
      groups: ['data-team'],
      via: 'session',
      address: '10.0.0.8',
    });
    expect(outcome.session.expiresAt).toBe(T0 + SESSION_LIFE_MS);
    // stored as a hash only
    expect(await store.getSession(outcome.session.id)).toBeUndefined();
    expect((await access.sessionPrincipal(outcome.session.id, '10.0.0.9'))?.address).toBe('10.0.0.9');
    expect(await access.sessionPrincipal('forged', undefined)).toBeUndefined();
    clock.jump(SESSION_LIFE_MS);
    expect(await access.sessionPrincipal(outcome.session.id, undefined)).toBeUndefined();
    const again = await access.signIn('vic', PASSWORD, undefined);
    const other = await access.signIn('vic', PASSWORD, undefined);
    if (!again.ok || !other.ok) throw new Error('sign-in failed');
    await access.endSession(again.session.id);
    expect(await access.sessionPrincipal(again.session.id, undefined)).toBeUndefined();
    expect(await access.sessionPrincipal(other.session.id, undefined)).toBeDefined();
    expect(await access.signOutEverywhere(undefined, as('vic'))).toBe(1);
    expect(await access.sessionPrincipal(other.session.id, undefined)).toBeUndefined();
    expect((await store.getUser('vic'))?.lastSignInAt).toBe(T0 + SESSION_LIFE_MS);
  });

  it(`${kind}: ${LOCKOUT_AFTER} failures lock the account for ${LOCKOUT_MS / 60_000} minutes, even for the right password; an admin unlocks`, async () => {
    for (let i = 1; i < LOCKOUT_AFTER; i++) expect((await access.signIn('vic', 'wrong', undefined)).ok).toBe(false);
    const locking = await access.signIn('vic', 'wrong', undefined);
    expect(locking).toMatchObject({ ok: false, why: 'locked', retryAfterMs: LOCKOUT_MS });
    clock.jump(60_000);
    const right = await access.signIn('vic', PASSWORD, undefined);
    expect(right).toMatchObject({ ok: false, why: 'locked', retryAfterMs: LOCKOUT_MS - 60_000 });
    if (right.ok) throw new Error('signed in while locked');
    expect(right.message).toContain('locked for 14 more minute(s)');
    expect((await access.listUsers()).find((u) => u.name === 'vic')?.lockedUntil).toBe(T0 + LOCKOUT_MS);
    clock.jump(LOCKOUT_MS);
    expect((await access.signIn('vic', PASSWORD, undefined)).ok).toBe(true);
    // a success starts the count again; lock again, and let an admin lift it
    for (let i = 0; i < LOCKOUT_AFTER; i++) await access.signIn('vic', 'wrong', undefined);
    expect((await access.signIn('vic', PASSWORD, undefined)).ok).toBe(false);
    await access.updateUser('vic', { unlock: true }, as('alice'));
    expect((await access.signIn('vic', PASSWORD, undefined)).ok).toBe(true);
  });

  it(`${kind}: a disabled account is refused (after its password) and its sessions and tokens stop`, async () => {
    const session = await access.signIn('otto', PASSWORD, undefined);
    const { token } = await access.createToken({ name: 'ci', scopes: ['run'] }, as('otto'));
    if (!session.ok) throw new Error(session.message);
    await access.updateUser('otto', { disabled: true }, as('alice'));
    expect(await access.signIn('otto', 'wrong', undefined)).toMatchObject({ why: 'bad' });
    expect(await access.signIn('otto', PASSWORD, undefined)).toMatchObject({ ok: false, why: 'disabled' });
    expect(await access.sessionPrincipal(session.session.id, undefined)).toBeUndefined();
    expect(await access.tokenPrincipal(token, undefined)).toBeUndefined();
    await access.updateUser('otto', { disabled: false }, as('alice'));
    expect((await access.tokenPrincipal(token, undefined))?.user).toBe('otto');
  });

  it(`${kind}: passwords: at least 12 characters; an admin's reset ends sessions and the lock; a change needs the current one`, async () => {
    expect((await refusal(access.addUser({ name: 'pat', role: 'viewer', password: 'short' }, NODE))).message).toBe(
      'a password needs at least 12 characters',
    );
    expect(
      (await refusal(access.addUser({ name: 'bad name', role: 'viewer', password: PASSWORD }, NODE))).message,
    ).toContain('user name "bad name"');
    expect(
      (await refusal(access.addUser({ name: 'pat', role: 'root' as never, password: PASSWORD }, NODE))).message,
    ).toBe('role "root": the roles are viewer, operator, editor, admin');
    const session = await access.signIn('vic', PASSWORD, undefined);
    if (!session.ok) throw new Error(session.message);
    for (let i = 0; i < LOCKOUT_AFTER; i++) await access.signIn('vic', 'wrong', undefined);
    await access.updateUser('vic', { password: 'a brand new password' }, as('alice'));
    expect(await access.sessionPrincipal(session.session.id, undefined)).toBeUndefined();
    expect((await access.signIn('vic', 'a brand new password', undefined)).ok).toBe(true);
    const wrong = await refusal(access.changePassword('not it', 'yet another password', as('vic')));
    expect([wrong.code, wrong.message]).toEqual(['forbidden', 'the current password is wrong']);
    await access.changePassword('a brand new password', 'yet another password', as('vic'));
    expect((await access.signIn('vic', 'yet another password', undefined)).ok).toBe(true);
    const actions = (await store.listAudit(50)).map((e) => `${e.actor} ${e.action} ${e.object}`);
    expect(actions).toContain('alice password.reset user:vic');
    expect(actions).toContain('vic password.change user:vic');
  });

  it(`${kind}: the last admin cannot be demoted, disabled or removed; with a second admin they can`, async () => {
    for (const [change, why] of [
      [() => access.updateUser('alice', { role: 'editor' }, NODE), 'making them editor'],
      [() => access.updateUser('alice', { disabled: true }, NODE), 'disabling them'],
      [() => access.removeUser('alice', NODE), 'removing them'],
    ] as const) {
      const err = await refusal(change());
      expect(err.code).toBe('conflict');
      expect(err.message).toContain(`alice is the last admin: ${why} would leave nobody who can manage users`);
    }
    await access.updateUser('otto', { role: 'admin' }, as('alice'));
    await access.updateUser('alice', { role: 'editor' }, as('otto'));
    expect((await access.listUsers()).map((u) => [u.name, u.role])).toEqual([
      ['alice', 'editor'],
      ['otto', 'admin'],
      ['vic', 'viewer'],
    ]);
    // a non-admin's call is refused here too (the server checks first), naming the role needed
    expect((await refusal(access.removeUser('vic', as('alice')))).message).toBe(
      'removing a user needs the role admin; alice is editor',
    );
  });

  it(`${kind}: a token's scopes stay within its user's role; worker tokens by admins; another's tokens by admins`, async () => {
    const viewerRun = await refusal(access.createToken({ name: 't', scopes: ['read', 'run'] }, as('vic')));
    expect([viewerRun.code, viewerRun.message]).toEqual([
      'forbidden',
      "scope run needs the role operator or higher; the token's user is viewer (a token never does more than its user)",
    ]);
    expect((await refusal(access.createToken({ name: 't', scopes: ['metrics'] }, as('vic')))).code).toBe('forbidden');
    expect(
      (await refusal(access.createToken({ name: 't', scopes: ['worker'], workerId: 'w1' }, as('otto')))).message,
    ).toBe('only an admin creates a token with the worker scope');
    expect((await refusal(access.createToken({ name: 't', user: 'vic', scopes: ['read'] }, as('otto')))).message).toBe(
      'a token of another user needs the role admin; otto is operator',
    );
    expect((await refusal(access.createToken({ name: 't', scopes: ['read', 'nope' as never] }, as('vic')))).code).toBe(
      'validation',
    );
    const own = await access.createToken(
      { name: 'metrics', scopes: ['metrics', 'events', 'run'], workflow: 'etl' },
      as('otto'),
    );
    expect(own.record).toMatchObject({
      user: 'otto',
      createdBy: 'otto',
      scopes: ['metrics', 'events', 'run'],
      workflow: 'etl',
    });
    expect(own.token).toMatch(/^axt_[A-Za-z0-9_-]{43}$/);
    const worker = await access.createToken(
      { name: 'laptop', user: 'otto', scopes: ['worker'], workerId: 'laptop-1', labels: ['gpu'] },
      as('alice'),
    );
    expect(await access.tokenPrincipal(worker.token, '192.0.2.4')).toMatchObject({
      user: 'otto',
      via: 'token',
      token: { name: 'laptop', scopes: ['worker'], workerId: 'laptop-1', labels: ['gpu'] },
    });
    // the node (the CLI with the database's password) is an admin, and a token needs a user
    expect((await refusal(access.createToken({ name: 'x', scopes: ['read'] }, NODE))).message).toBe(
      'a token: this node (root@vm) has no account of its own: name the user (--user NAME)',
    );
    expect((await access.listTokens({}, NODE)).map((t) => t.name)).toEqual(['laptop', 'metrics']);
    expect((await access.createToken({ name: 'x', user: 'vic', scopes: ['read'] }, NODE)).record.createdBy).toBe(NODE);
    expect((await access.listTokens({}, as('otto'))).map((t) => t.name)).toEqual(['laptop', 'metrics']);
    expect((await refusal(access.listTokens({ user: '*' }, as('otto')))).code).toBe('forbidden');
    expect((await access.listTokens({ user: '*' }, as('alice'))).map((t) => `${t.user}/${t.name}`)).toEqual([
      'otto/laptop',
      'otto/metrics',
      'vic/x',
    ]);
  });

  it(`${kind}: tokens expire and are revoked; a token's use is written once a minute and audited once a day (UTC)`, async () => {
    const { token } = await access.createToken(
      { name: 'ci', scopes: ['read'], expiresInMs: 2 * 86_400_000 },
      as('vic'),
    );
    expect(
      (await refusal(access.createToken({ name: 'y', scopes: ['read'], expiresInMs: 400 * 86_400_000 }, as('vic'))))
        .message,
    ).toContain('at most 366 days');
    const uses = async () => (await store.listAudit(100)).filter((e) => e.action === 'token.use');
    await access.tokenPrincipal(token, '10.1.1.1');
    clock.jump(30_000);
    await access.tokenPrincipal(token, '10.1.1.1');
    expect((await access.listTokens({}, as('vic')))[0]?.lastUsedAt).toBe(T0);
    clock.jump(30_000);
    await access.tokenPrincipal(token, '10.1.1.1');
    expect((await access.listTokens({}, as('vic')))[0]?.lastUsedAt).toBe(T0 + 60_000);
    expect((await uses()).map((e) => [e.actor, e.object, e.address, e.role])).toEqual([
      ['vic', 'token:vic/ci', '10.1.1.1', 'viewer'],
    ]);
    clock.jump(86_400_000); // the next UTC day
    await access.tokenPrincipal(token, '10.1.1.2');
    expect(await uses()).toHaveLength(2);
    clock.jump(86_400_000); // past its expiry
    expect(await access.tokenPrincipal(token, undefined)).toBeUndefined();
    const { token: other } = await access.createToken({ name: 'other', scopes: ['read'] }, as('vic'));
    expect((await access.tokenPrincipal(other, undefined))?.user).toBe('vic');
    await access.revokeToken(undefined, 'other', as('vic'));
    expect(await access.tokenPrincipal(other, undefined)).toBeUndefined();
    expect((await refusal(access.revokeToken(undefined, 'other', as('vic')))).code).toBe('not_found');
    expect(await access.tokenPrincipal('axt_' + 'A'.repeat(43), undefined)).toBeUndefined();
    expect(await access.tokenPrincipal('not a token', undefined)).toBeUndefined();
  });

  it(`${kind}: SSO: a mapped group signs in and keeps the account in step; no role or a local name is refused`, async () => {
    const refused = await access.ssoSignIn({ name: 'eve@example.com', groups: ['sales'], role: undefined }, '10.0.0.1');
    expect(refused).toEqual({
      ok: false,
      why: 'bad',
      message: 'none of your groups (sales) is given a role on this scheduler: ask an admin to map one',
    });
    const first = await access.ssoSignIn({ name: 'sam@example.com', groups: ['data-team'], role: 'editor' }, undefined);
    expect(first).toMatchObject({
      ok: true,
      principal: { user: 'sam@example.com', role: 'editor', groups: ['data-team'] },
    });
    await access.ssoSignIn({ name: 'sam@example.com', groups: ['billing'], role: 'viewer' }, undefined);
    expect((await access.listUsers()).find((u) => u.name === 'sam@example.com')).toMatchObject({
      source: 'oidc',
      role: 'viewer',
      groups: ['billing'],
    });
    expect(await access.ssoSignIn({ name: 'Eve Example', groups: [], role: 'viewer' }, undefined)).toMatchObject({
      ok: false,
      message: expect.stringContaining(`the provider's user name cannot name an account here: user name "Eve Example"`),
    });
    expect(await access.ssoSignIn({ name: 'vic', groups: [], role: 'admin' }, undefined)).toMatchObject({
      ok: false,
      why: 'bad',
    });
    expect(
      (await refusal(access.updateUser('sam@example.com', { password: PASSWORD }, as('alice')))).message,
    ).toContain('signs in with SSO');
  });

  it(`${kind}: the CLI's password sign-in answers a token of the user's role, named apart from their others`, async () => {
    const one = await access.signInForToken('otto', PASSWORD, 'cli@laptop', '10.0.0.5');
    const two = await access.signInForToken('otto', PASSWORD, 'cli@laptop', '10.0.0.5');
    if (!one.ok || !two.ok) throw new Error('sign-in failed');
    expect([one.principal.token?.name, two.principal.token?.name]).toEqual(['cli@laptop', 'cli@laptop-2']);
    expect(one.principal.token?.scopes).toEqual(['read', 'run']);
    expect((await access.tokenPrincipal(two.token, undefined))?.user).toBe('otto');
    expect(await access.signInForToken('otto', 'wrong', 'x', undefined)).toMatchObject({ ok: false, why: 'bad' });
  });

  it(`${kind}: groups: those users name, and the private marks an admin sets; refusals and changes audited with role and address`, async () => {
    await access.setGroup({ name: 'billing', private: true }, as('alice', '10.9.9.9'));
    expect(await access.listGroups()).toEqual([
      { name: 'billing', private: true },
      { name: 'data-team', private: false },
      { name: 'ops', private: false },
    ]);
    await access.recordRefusal(
      { user: 'vic', role: 'viewer', groups: [], via: 'session', address: '10.0.0.3' },
      'removeWorkflow etl',
      'needs the role editor',
    );
    const [refusalEntry, groupEntry] = await store.listAudit(2);
    expect(refusalEntry).toMatchObject({
      actor: 'vic',
      action: 'refused',
      role: 'viewer',
      address: '10.0.0.3',
      detail: 'needs the role editor',
    });
    expect(groupEntry).toMatchObject({
      actor: 'alice',
      action: 'group.set',
      object: 'group:billing',
      role: 'admin',
      address: '10.9.9.9',
    });
  });
}

describe('accounts service: sqlite', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ax-access-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const tables = ['ax_session', 'ax_token', 'ax_user', 'ax_group', 'audit_log'] as const;
  serviceCases(
    'sqlite',
    () => openSqliteStore(join(dir, 'ax.db')),
    async (s) => {
      for (const t of tables) await s.db.deleteFrom(t).execute();
    },
  );
});

describe('accounts service: mysql', () => {
  if (!mysql) {
    // Not under CI (mysqlAvailable throws there): a developer machine without MariaDB.
    it.skip(`needs MariaDB/MySQL at ${MYSQL_ADMIN_URL} (set AX_TEST_MYSQL_URL)`, () => undefined);
    return;
  }
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  afterAll(async () => {
    await database?.drop();
  });
  serviceCases(
    'mysql',
    async () => {
      database = await createTestDatabase('ax_access');
      return openMysqlStore({ url: database.url });
    },
    async (s) => {
      for (const t of [...STORE_TABLES].reverse()) await s.db.deleteFrom(t).execute();
    },
  );
});

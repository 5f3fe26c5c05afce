// Accounts, sessions, tokens and groups as the store keeps them (issue 25, AccountStore): what is
// written reads back the same through another connection, names are unique (and compare exactly,
// as in SQLite: MySQL's default collation would not), removing a user takes their sessions and
// tokens with it, revoking is once.
import { describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import type { Store, TokenRow, UserRow } from '../../engine/ports/store.ts';

const T0 = Date.parse('2026-12-01T03:00:00Z');

function user(name: string, patch: Partial<UserRow> = {}): UserRow {
  return {
    name,
    role: 'editor',
    groups: ['data-team', 'ops'],
    source: 'local',
    passwordHash: 'scrypt$32768$8$1$c2FsdA$a2V5',
    disabled: false,
    failedSignIns: 0,
    lockedUntil: null,
    createdAt: T0,
    updatedAt: T0,
    lastSignInAt: null,
    ...patch,
  };
}

function token(userName: string, name: string, patch: Partial<TokenRow> = {}): TokenRow {
  return {
    name,
    user: userName,
    hash: `${userName}-${name}-hash`.padEnd(64, '0'),
    scopes: ['read', 'run'],
    workflow: null,
    workerId: null,
    labels: null,
    createdAt: T0,
    createdBy: userName,
    expiresAt: T0 + 86_400_000,
    lastUsedAt: null,
    revokedAt: null,
    ...patch,
  };
}

async function refusal(promise: Promise<unknown>): Promise<AxError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AxError);
  return err as AxError;
}

export function accountsContract(store: () => Store, peer: () => Store): void {
  describe('accounts', () => {
    it('a user reads back as written, through another connection too; an SSO user has no password', async () => {
      await store().insertUser(user('alice'));
      await store().insertUser(
        user('bob@example.com', { source: 'oidc', passwordHash: null, role: 'viewer', groups: [] }),
      );
      expect(await peer().getUser('alice')).toEqual(user('alice'));
      expect((await peer().listUsers()).map((u) => [u.name, u.role, u.source, u.passwordHash === null])).toEqual([
        ['alice', 'editor', 'local', false],
        ['bob@example.com', 'viewer', 'oidc', true],
      ]);
      expect(await store().getUser('carol')).toBeUndefined();
    });

    it('a taken name is a conflict that names it; names compare exactly (Alice is not alice)', async () => {
      await store().insertUser(user('alice'));
      const err = await refusal(store().insertUser(user('alice', { role: 'admin' })));
      expect([err.code, err.message]).toEqual(['conflict', 'a user named "alice" exists already']);
      await store().insertUser(user('Alice'));
      expect((await store().listUsers()).map((u) => u.name)).toEqual(['Alice', 'alice']);
    });

    it('an update changes only what it names; a missing user answers false', async () => {
      await store().insertUser(user('alice'));
      expect(await store().updateUser('alice', { role: 'admin', failedSignIns: 3, lockedUntil: T0 + 900_000 })).toBe(
        true,
      );
      // the same values again: still found (MySQL counts changed rows, not matched ones)
      expect(await store().updateUser('alice', { role: 'admin' })).toBe(true);
      expect(await store().getUser('alice')).toEqual(
        user('alice', { role: 'admin', failedSignIns: 3, lockedUntil: T0 + 900_000 }),
      );
      await store().updateUser('alice', {
        lockedUntil: null,
        disabled: true,
        groups: [],
        passwordHash: 'other',
        lastSignInAt: T0 + 5,
        updatedAt: T0 + 5,
      });
      expect(await store().getUser('alice')).toEqual(
        user('alice', {
          role: 'admin',
          failedSignIns: 3,
          disabled: true,
          groups: [],
          passwordHash: 'other',
          lastSignInAt: T0 + 5,
          updatedAt: T0 + 5,
        }),
      );
      expect(await store().updateUser('nobody', { role: 'viewer' })).toBe(false);
    });

    it('sessions: found by their hash, touched, ended one by one or all of a user', async () => {
      await store().insertUser(user('alice'));
      const session = {
        idHash: 'a'.repeat(64),
        user: 'alice',
        createdAt: T0,
        expiresAt: T0 + 1000,
        lastSeenAt: T0,
        address: '10.0.0.7',
      };
      await store().insertSession(session);
      await store().insertSession({ ...session, idHash: 'b'.repeat(64), address: null });
      await store().insertSession({ ...session, idHash: 'c'.repeat(64), user: 'bob' });
      expect(await peer().getSession('a'.repeat(64))).toEqual(session);
      await store().touchSession('a'.repeat(64), T0 + 60_000);
      expect((await store().getSession('a'.repeat(64)))?.lastSeenAt).toBe(T0 + 60_000);
      await store().deleteSession('a'.repeat(64));
      expect(await store().getSession('a'.repeat(64))).toBeUndefined();
      expect(await store().deleteSessionsOf('alice')).toBe(1);
      expect(await store().getSession('b'.repeat(64))).toBeUndefined();
      expect(await store().getSession('c'.repeat(64))).toBeDefined();
    });

    it('tokens: found by hash, listed per user or all, one name per user (revoked ones too), revoked once', async () => {
      const worker = token('alice', 'laptop', {
        scopes: ['worker'],
        workerId: 'laptop-1',
        labels: ['gpu', 'mac'],
        workflow: 'etl',
        expiresAt: null,
      });
      await store().insertToken(token('alice', 'ci'));
      await store().insertToken(worker);
      await store().insertToken(token('bob', 'ci'));
      expect(await peer().tokenByHash(worker.hash)).toEqual(worker);
      expect(await store().tokenByHash('f'.repeat(64))).toBeUndefined();
      expect((await store().listTokens('alice')).map((t) => t.name)).toEqual(['ci', 'laptop']);
      expect((await store().listTokens()).map((t) => `${t.user}/${t.name}`)).toEqual([
        'alice/ci',
        'alice/laptop',
        'bob/ci',
      ]);
      const err = await refusal(store().insertToken(token('alice', 'ci', { hash: 'e'.repeat(64) })));
      expect(err.code).toBe('conflict');
      expect(err.message).toContain('alice has a token named "ci" already');
      expect(await store().revokeToken('alice', 'ci', T0 + 10)).toBe(true);
      expect(await store().revokeToken('alice', 'ci', T0 + 20)).toBe(false);
      expect(await store().revokeToken('alice', 'nope', T0 + 20)).toBe(false);
      expect((await store().tokenByHash(token('alice', 'ci').hash))?.revokedAt).toBe(T0 + 10);
      await refusal(store().insertToken(token('alice', 'ci', { hash: 'e'.repeat(64) })));
      await store().touchToken(worker.hash, T0 + 99);
      expect((await store().tokenByHash(worker.hash))?.lastUsedAt).toBe(T0 + 99);
    });

    it('removing a user removes their sessions and tokens, not others', async () => {
      await store().insertUser(user('alice'));
      await store().insertUser(user('bob'));
      await store().insertSession({
        idHash: 'a'.repeat(64),
        user: 'alice',
        createdAt: T0,
        expiresAt: T0 + 1,
        lastSeenAt: T0,
        address: null,
      });
      await store().insertToken(token('alice', 'ci'));
      await store().insertToken(token('bob', 'ci'));
      expect(await store().deleteUser('alice')).toBe(true);
      expect(await store().deleteUser('alice')).toBe(false);
      expect(await store().getSession('a'.repeat(64))).toBeUndefined();
      expect((await store().listTokens()).map((t) => t.user)).toEqual(['bob']);
      expect((await store().listUsers()).map((u) => u.name)).toEqual(['bob']);
    });

    it('groups: put creates or changes the one row', async () => {
      expect(await store().listGroups()).toEqual([]);
      await store().putGroup({ name: 'billing', private: true });
      await store().putGroup({ name: 'data-team', private: false });
      await peer().putGroup({ name: 'billing', private: true });
      expect(await store().listGroups()).toEqual([
        { name: 'billing', private: true },
        { name: 'data-team', private: false },
      ]);
      await peer().putGroup({ name: 'billing', private: false });
      expect(await store().listGroups()).toEqual([
        { name: 'billing', private: false },
        { name: 'data-team', private: false },
      ]);
    });

    it('the audit keeps the role and source address of an entry, null when not given', async () => {
      await store().audit({
        at: T0,
        actor: 'alice',
        role: 'admin',
        address: '10.0.0.7',
        action: 'user.add',
        object: 'user:bob',
      });
      await store().audit({ at: T0 + 1, actor: 'root@vm', action: 'user.remove', object: 'user:bob' });
      expect((await peer().listAudit(5)).map((e) => [e.actor, e.role, e.address])).toEqual([
        ['root@vm', null, null],
        ['alice', 'admin', '10.0.0.7'],
      ]);
    });
  });
}

// `ax users`, `ax groups` and `ax tokens` in team mode (issue 25), the real command on the team's
// MariaDB and Redis: passwords from stdin only (no terminal: it says how), refusals with their
// exit codes (2 bad input, 3 not found, 4 the last admin, 8 a scope beyond the role), a token
// printed once and stored as a hash, and every change in the audit. Solo mode says it has no accounts.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../engine/adapters/crypto/node-crypto.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { GroupRecord, TokenRecord, UserRecord } from '../../engine/api/access.ts';
import { AccessService } from '../../engine/core/access/access-service.ts';
import { ax, type AxResult, childEnv, killAllAx } from '../helpers/ax.ts';
import { SpawnedProcess } from '../helpers/processes.ts';
import { buildBundle } from '../helpers/team/team-process.ts';
import { tempDir } from '../helpers/files.ts';
import {
  createTestDatabase,
  deleteRedisPrefix,
  REDIS_URL,
  teamServicesAvailable,
  uniqueName,
} from '../helpers/services.ts';

const available = await teamServicesAvailable();
const PASSWORD = 'correct horse battery';

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('ax users, groups and tokens in team mode', () => {
  let dir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: SqlStore;
  let bundle: string;
  const prefix = `${uniqueName('axt_users')}:`;

  beforeAll(async () => {
    dir = tempDir('ax-cli-users-');
    // the CLI built once (as the team tests do): each command then starts in about a second
    bundle = await buildBundle();
    database = await createTestDatabase('axt_cli_users');
    store = await openMysqlStore({ url: database.url });
  });
  afterAll(async () => {
    await killAllAx();
    await store?.close();
    await database?.drop();
    await deleteRedisPrefix(prefix);
    fs.rmSync(dir, { recursive: true, force: true });
    if (bundle) fs.rmSync(bundle, { force: true });
  });

  const team = (args: string[], input?: string): Promise<AxResult> => {
    const env = { AX_MODE: 'team', AX_MYSQL_URL: database.url, AX_REDIS_URL: REDIS_URL, AX_REDIS_PREFIX: prefix };
    return new SpawnedProcess(process.execPath, [bundle, ...args], {
      cwd: dir,
      env: childEnv({ dataDir: path.join(dir, 'data'), env }),
      ...(input !== undefined && { input }),
      label: `ax ${args.join(' ')}`,
    }).result(60_000);
  };
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await team(args, input);
    expect(r.code, `ax ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  };
  const json = async <T>(args: string[]): Promise<T> => JSON.parse(await ok(['--json', ...args])) as T;

  it(
    'adds users with a password from stdin, refuses what it must with exit codes, and manages roles, groups and locks',
    { timeout: 360_000 },
    async () => {
      expect(await ok(['users', 'add', 'alice', '--role', 'admin', '--password-stdin'], `${PASSWORD}\n`)).toBe(
        'user alice added: admin\n',
      );
      await ok(['users', 'add', 'bob', '--role', 'viewer', '--groups', 'data-team,ops', '--password-stdin'], PASSWORD);

      const noTerminal = await team(['users', 'add', 'carol', '--role', 'editor']);
      expect([noTerminal.code, noTerminal.stderr]).toEqual([
        2,
        'ax: no terminal to type the password at: give it on stdin with --password-stdin\n',
      ]);
      const short = await team(['users', 'add', 'carol', '--role', 'editor', '--password-stdin'], 'short');
      expect([short.code, short.stderr]).toEqual([2, 'ax: a password needs at least 12 characters\n']);
      const badRole = await team(['users', 'add', 'carol', '--role', 'root', '--password-stdin'], PASSWORD);
      expect(badRole.code).toBe(2);
      expect(badRole.stderr).toContain('role "root": the roles are viewer, operator, editor, admin');
      const twice = await team(['users', 'add', 'bob', '--role', 'viewer', '--password-stdin'], PASSWORD);
      expect([twice.code, twice.stderr]).toEqual([4, 'ax: a user named "bob" exists already\n']);

      const lastAdmin = await team(['users', 'set-role', 'alice', 'viewer']);
      expect(lastAdmin.code).toBe(4);
      expect(lastAdmin.stderr).toContain('alice is the last admin');
      expect(await ok(['users', 'set-role', 'bob', 'operator'])).toBe('bob is now operator\n');
      expect(await ok(['users', 'set-groups', 'bob', 'data-team'])).toBe("bob's groups: data-team\n");
      const missing = await team(['users', 'set-role', 'nobody', 'viewer']);
      expect(missing.code).toBe(3);

      const users = await json<UserRecord[]>(['users', 'ls']);
      expect(users.map((u) => [u.name, u.role, u.groups, u.source, u.disabled])).toEqual([
        ['alice', 'admin', [], 'local', false],
        ['bob', 'operator', ['data-team'], 'local', false],
      ]);
      expect(await ok(['users', 'ls'])).toMatch(
        /^NAME\s+ROLE\s+GROUPS\s+SOURCE\s+STATE\s+LAST SIGN-IN \(UTC\)\nalice\s+admin\s+-\s+local\s+active\s+-\nbob\s+operator\s+data-team\s+local\s+active\s+-$/m,
      );

      // the stored password is an scrypt hash; the service signs in with it; the admin's reset works from stdin
      expect((await store.getUser('bob'))?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
      const access = new AccessService({
        store,
        clock: { now: () => Date.now() },
        crypto: nodeCrypto,
        nodeUser: 'test',
      });
      for (let i = 0; i < 5; i++) await access.signIn('bob', 'not his password', '10.0.0.7');
      expect(await ok(['users', 'ls'])).toMatch(/^bob\s+operator\s+data-team\s+local\s+locked until /m);
      await ok(['users', 'unlock', 'bob']);
      await ok(['users', 'reset-password', 'bob', '--password-stdin'], 'a whole new password\n');
      expect((await access.signIn('bob', 'a whole new password', undefined)).ok).toBe(true);

      await ok(['groups', 'set', 'data-team', '--private']);
      expect(await json<GroupRecord[]>(['groups', 'ls'])).toEqual([{ name: 'data-team', private: true }]);
      expect((await team(['groups', 'set', 'data-team'])).code).toBe(2);

      await ok(['users', 'disable', 'bob']);
      expect(await access.signIn('bob', 'a whole new password', undefined)).toMatchObject({
        ok: false,
        why: 'disabled',
      });
      await ok(['users', 'enable', 'bob']);

      const me = `${os.userInfo().username}@${os.hostname()}`;
      const audit = (await store.listAudit(100)).filter((e) => e.actor === me).map((e) => `${e.action} ${e.object}`);
      expect(audit.reverse()).toEqual([
        'user.add user:alice',
        'user.add user:bob',
        'user.change user:bob',
        'user.change user:bob',
        'user.change user:bob',
        'password.reset user:bob',
        'group.set group:data-team',
        'user.change user:bob',
        'user.change user:bob',
      ]);
    },
  );

  it(
    'creates a token printed once (stored as its hash), lists it with its use, revokes it; scopes beyond the role exit 8',
    { timeout: 240_000 },
    async () => {
      const created = await team([
        'tokens',
        'create',
        'ci',
        '--user',
        'bob',
        '--scope',
        'read,run',
        '--expires',
        '30d',
      ]);
      expect(created.code, created.stderr).toBe(0);
      const token = created.stdout.trim();
      expect(token).toMatch(/^axt_[A-Za-z0-9_-]{43}$/);
      expect(created.stderr).toMatch(
        /^token ci of bob \(read,run\), expires \S+ \S+: keep it now, it is shown only this once\n$/,
      );
      const [row] = await store.listTokens('bob');
      expect(row?.hash).toBe(nodeCrypto.sha256(token));
      expect(JSON.stringify(await store.listTokens())).not.toContain(token);
      expect((row?.expiresAt ?? 0) - (row?.createdAt ?? 0)).toBe(30 * 86_400_000);

      const beyond = await team(['tokens', 'create', 'ops', '--user', 'bob', '--scope', 'admin']);
      expect([beyond.code, beyond.stderr]).toEqual([
        8,
        "ax: scope admin needs the role admin or higher; the token's user is operator (a token never does more than its user)\n",
      ]);
      expect((await team(['tokens', 'create', 'x', '--user', 'bob', '--scope', 'everything'])).code).toBe(2);
      expect(
        (await team(['tokens', 'create', 'x', '--user', 'bob', '--scope', 'read', '--expires', 'soon'])).code,
      ).toBe(2);
      // the node (the database's password) has no account of its own to hold a token
      const mine = await team(['tokens', 'create', 'mine', '--scope', 'read']);
      expect([mine.code, mine.stderr]).toEqual([
        2,
        `ax: a token: this node (${os.userInfo().username}@${os.hostname()}) has no account of its own: name the user (--user NAME)\n`,
      ]);

      const access = new AccessService({
        store,
        clock: { now: () => Date.now() },
        crypto: nodeCrypto,
        nodeUser: 'test',
      });
      expect((await access.tokenPrincipal(token, '10.0.0.8'))?.user).toBe('bob');
      expect(await ok(['tokens', 'ls', '--all'])).toMatch(
        /^ci\s+bob\s+read,run\s+\S+ \S+\s+\S+ \S+\s+\S+ \S+\s+active$/m,
      );

      await ok(['tokens', 'revoke', 'ci', '--user', 'bob']);
      expect(await access.tokenPrincipal(token, undefined)).toBeUndefined();
      const [listed] = await json<TokenRecord[]>(['tokens', 'ls', '--user', 'bob']);
      expect(listed).toMatchObject({ name: 'ci', user: 'bob', scopes: ['read', 'run'] });
      expect(listed?.revokedAt).toBeGreaterThan(0);
      expect(listed?.lastUsedAt).toBeGreaterThan(0);
      expect((await team(['tokens', 'revoke', 'ci', '--user', 'bob'])).code).toBe(3);

      await ok(['users', 'rm', 'bob']);
      expect(await store.listTokens()).toEqual([]);
    },
  );

  it('solo mode has no accounts: it says so', { timeout: 60_000 }, async () => {
    const solo = await ax(['users', 'ls'], { dataDir: path.join(dir, 'solo'), cwd: dir });
    expect(solo.code).toBe(2);
    expect(solo.stderr).toContain('accounts, groups and tokens exist in team mode only');
  });
});

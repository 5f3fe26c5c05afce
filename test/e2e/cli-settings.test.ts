// `ax settings` tells the truth: each key's effective value and where it comes from (a flag, an
// AX_* variable, the data dir's settings file, the default), one spelling per key, and a missing
// team setting names the command that stores it.
import fs from 'node:fs';
import path from 'node:path';
import { sqliteDriver } from '../../engine/adapters/sql/sqlite-driver.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ax, axJson } from '../helpers/ax.ts';
import { tempDir } from '../helpers/files.ts';

let dataDir: string;
beforeAll(() => {
  dataDir = tempDir('ax-cli-settings-');
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

type Shown = {
  dataDir: string;
  settingsFile: string;
  settings: { key: string; value?: string; source?: string; from?: string }[];
};
const file = () => path.join(dataDir, 'settings.json');
const opts = (env: Record<string, string> = {}) => ({ dataDir, env });
const byKey = (shown: Shown) => Object.fromEntries(shown.settings.map((s) => [s.key, [s.value, s.source, s.from]]));

describe('ax settings', () => {
  it('with nothing set: the defaults, said as defaults', async () => {
    const r = await ax(['settings'], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'KEY           VALUE      FROM',
        'mode          solo       default',
        'mysql         (not set)  -',
        'postgres      (not set)  -',
        'redis         (not set)  -',
        'redis-prefix  ax:        default',
        'task-env      inherit    default',
        'run-as        (not set)  -',
        'log-limit     50MB       default',
        `sqlite        ${sqliteDriver().description}`,
        '',
        `flags win over the environment, the environment over ${file()}; "ax settings set KEY VALUE" writes that file`,
        '',
      ].join('\n'),
    );
    // The driver this Node has: node:sqlite from 22.13 on, better-sqlite3 before.
    const builtIn =
      typeof (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule === 'function' &&
      (process as unknown as { getBuiltinModule(id: string): unknown }).getBuiltinModule('node:sqlite') !== undefined;
    expect(r.stdout).toMatch(
      builtIn
        ? /\nsqlite +node:sqlite \(SQLite 3\.\d+\.\d+, built into Node /
        : /\nsqlite +better-sqlite3 \(SQLite 3\.\d+\.\d+, addon 12\.\d+\.\d+, Node /,
    );
    expect(JSON.parse((await ax(['settings', '--json'], opts())).stdout).sqliteDriver).toBe(sqliteDriver().description);
  });

  it('a flag beats the environment, which beats the file, which beats the default; passwords masked', async () => {
    expect((await ax(['settings', 'set', 'mysql', 'mysql://ax:secret@db:3306/ax'], opts())).code).toBe(0);
    expect((await ax(['settings', 'set', 'redis-prefix', 'file:'], opts())).code).toBe(0);
    expect((await ax(['settings', 'set', 'mode', 'team'], opts())).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({
      mysql: 'mysql://ax:secret@db:3306/ax',
      'redis-prefix': 'file:',
      mode: 'team',
    });
    expect(fs.statSync(file()).mode & 0o777).toBe(0o600);

    const shown = await axJson<Shown>(
      ['--json', '--redis-prefix', 'flag:', 'settings'],
      opts({ AX_REDIS_PREFIX: 'env:', AX_MODE: 'solo', AX_REDIS_URL: 'redis://:pw@cache:6379' }),
    );
    expect(byKey(shown)).toEqual({
      mode: ['solo', 'env', 'AX_MODE'],
      mysql: ['mysql://ax:***@db:3306/ax', 'file', file()],
      postgres: [undefined, undefined, undefined],
      redis: ['redis://:***@cache:6379', 'env', 'AX_REDIS_URL'],
      'redis-prefix': ['flag:', 'flag', '--redis-prefix'],
      'task-env': ['inherit', 'default', undefined],
      'run-as': [undefined, undefined, undefined],
      'log-limit': ['50MB', 'default', undefined],
      'oidc-issuer': [undefined, undefined, undefined],
      'oidc-client-id': [undefined, undefined, undefined],
      'oidc-client-secret-file': [undefined, undefined, undefined],
      'oidc-role-map': [undefined, undefined, undefined],
      'oidc-groups-claim': ['groups', 'default', undefined],
      'oidc-username-claim': [undefined, undefined, undefined],
      'oidc-label': ['Sign in with SSO', 'default', undefined],
      'oidc-redirect-url': [undefined, undefined, undefined],
    });
    const plain = await ax(['settings'], opts({ AX_MODE: 'solo' }));
    expect(plain.stdout).toContain('mode          solo                       environment AX_MODE\n');
    expect(plain.stdout).toContain('mysql         mysql://ax:***@db:3306/ax  settings file\n');
    expect(plain.stdout).not.toContain('secret');
    expect((await ax(['settings', 'unset', 'mode'], opts())).code).toBe(0);
    expect(byKey(await axJson<Shown>(['--json', 'settings'], opts())).mode).toEqual(['solo', 'default', undefined]);
  });

  it('a file written with the old spelling redisPrefix is read as redis-prefix, and rewritten so on the next set', async () => {
    fs.writeFileSync(file(), JSON.stringify({ redisPrefix: 'old:' }), { mode: 0o600 });
    expect(byKey(await axJson<Shown>(['--json', 'settings'], opts()))['redis-prefix']).toEqual([
      'old:',
      'file',
      file(),
    ]);
    expect((await ax(['settings', 'set', 'mode', 'solo'], opts())).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({ 'redis-prefix': 'old:', mode: 'solo' });
  });

  it('an unknown key or a bad mode is refused with the known ones; team mode without URLs names ax settings set', async () => {
    const unknown = await ax(['settings', 'set', 'colour', 'blue'], opts());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'ax: unknown setting "colour": known ones are mode, mysql, postgres, redis, redis-prefix, task-env, run-as, log-limit, oidc-issuer, oidc-client-id, oidc-client-secret-file, oidc-role-map, oidc-groups-claim, oidc-username-claim, oidc-label, oidc-redirect-url, alerts\n',
    );
    const mode = await ax(['settings', 'set', 'mode', 'cluster'], opts());
    expect(mode.code).toBe(2);
    expect(mode.stderr).toBe('ax: mode must be solo or team, not "cluster"\n');
    fs.writeFileSync(file(), '{}', { mode: 0o600 });
    const team = await ax(['ls'], opts({ AX_MODE: 'team' }));
    expect(team.code).toBe(2);
    expect(team.stderr).toBe(
      'ax: team mode needs a database: give --mysql mysql://USER:PASSWORD@HOST:3306/DATABASE, AX_MYSQL_URL=mysql://USER:PASSWORD@HOST:3306/DATABASE, or "ax settings set mysql mysql://USER:PASSWORD@HOST:3306/DATABASE"; or for PostgreSQL --postgres postgres://USER:PASSWORD@HOST:5432/DATABASE, AX_POSTGRES_URL=postgres://USER:PASSWORD@HOST:5432/DATABASE, or "ax settings set postgres postgres://USER:PASSWORD@HOST:5432/DATABASE"; and Redis: give --redis redis://HOST:6379, AX_REDIS_URL=redis://HOST:6379, or "ax settings set redis redis://HOST:6379"\n',
    );
    // PostgreSQL instead of MySQL, never both: the two named, passwords masked.
    const both = await ax(
      ['--postgres', 'postgres://ax:pw@pg:5432/ax', 'ls'],
      opts({ AX_MODE: 'team', AX_MYSQL_URL: 'mysql://ax:pw@db:3306/ax', AX_REDIS_URL: 'redis://cache:6379' }),
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      'ax: team mode uses one database, and both are given: MySQL mysql://ax:***@db:3306/ax and PostgreSQL postgres://ax:***@pg:5432/ax; keep one',
    );
    const swapped = await ax(
      ['--mysql', 'postgres://ax@pg:5432/ax', 'ls'],
      opts({ AX_MODE: 'team', AX_REDIS_URL: 'redis://cache:6379' }),
    );
    expect(swapped.stderr).toBe('ax: --mysql postgres://ax@pg:5432/ax is a PostgreSQL URL: give it with --postgres\n');
  });

  it('the SSO settings are checked as they are stored, and the client secret is never one', async () => {
    const refused = async (args: string[], message: string) => {
      const r = await ax(['settings', 'set', ...args], opts());
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`ax: ${message}\n`);
    };
    await refused(
      ['oidc-issuer', 'http://sso.example.com/realms/main'],
      'oidc-issuer must be https:// (plain http is allowed only for a provider on 127.0.0.1 or localhost): "http://sso.example.com/realms/main"',
    );
    await refused(
      ['oidc-role-map', 'platform=root'],
      'oidc-role-map: "root" (for group platform) is not a role: use one of viewer, operator, editor, admin',
    );
    await refused(
      ['oidc-client-secret', 's3cret'],
      'the client secret is never a setting: write it to a private file (umask 077; printf %s "$SECRET" > /etc/ax/oidc-secret) and "ax settings set oidc-client-secret-file /etc/ax/oidc-secret"',
    );
    expect((await ax(['settings', 'set', 'oidc-role-map', 'platform=admin,data-team=editor'], opts())).code).toBe(0);
    // Once one is given, the table shows the SSO keys (defaults included); the JSON always has them.
    const table = (await ax(['settings'], opts())).stdout;
    expect(table).toMatch(/^oidc-role-map +platform=admin,data-team=editor +settings file$/m);
    expect(table).toMatch(/^oidc-label +Sign in with SSO +default$/m);
    expect(byKey(await axJson<Shown>(['--json', 'settings'], opts()))['oidc-role-map']).toEqual([
      'platform=admin,data-team=editor',
      'file',
      file(),
    ]);
  }, 120_000);
});

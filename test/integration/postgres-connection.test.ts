// Bad or unreachable PostgreSQL connection strings get an error naming what failed, as MySQL's do
// (mysql-connection.test.ts); and a team connection takes one database, never both.
import { describe, expect, it } from 'vitest';
import { openPostgresStore, parsePostgresUrl } from '../../engine/adapters/sql/postgres-store.ts';
import { teamConnection } from '../../engine/hosts/node/team.ts';
import { postgresAvailable, POSTGRES_ADMIN_URL } from '../helpers/services.ts';

const available = await postgresAvailable();
const admin = new URL(POSTGRES_ADMIN_URL);

describe('PostgreSQL connection errors', () => {
  it('rejects a string that is not a postgres:// URL, and one without a database', async () => {
    await expect(openPostgresStore({ url: 'mysql://ax@db/ax' })).rejects.toThrow(
      'bad PostgreSQL connection string "mysql://ax@db/ax": it must start with postgres://',
    );
    await expect(openPostgresStore({ url: 'postgres://ax:pw@127.0.0.1:5432' })).rejects.toThrow(
      'PostgreSQL connection string "postgres://ax:***@127.0.0.1:5432" names no database: add /DATABASE at the end',
    );
  });

  it('reads postgresql:// too, with the default user and port', () => {
    expect(parsePostgresUrl('postgresql://db/ax')).toMatchObject({
      host: 'db',
      port: 5432,
      user: 'postgres',
      database: 'ax',
      ssl: undefined,
    });
  });

  it('takes TLS options from the query and refuses unknown ones', () => {
    const verified = { ca: undefined, cert: undefined, key: undefined, rejectUnauthorized: true };
    expect(parsePostgresUrl('postgres://ax@db/ax?sslmode=require').ssl).toEqual(verified);
    expect(parsePostgresUrl('postgres://ax@db/ax?ssl=true').ssl).toEqual(verified);
    expect(parsePostgresUrl('postgres://ax@db/ax?sslmode=disable').ssl).toBeUndefined();
    expect(parsePostgresUrl('postgres://ax@db/ax?ssl-reject-unauthorized=false').ssl).toMatchObject({
      rejectUnauthorized: false,
    });
    expect(() => parsePostgresUrl('postgres://ax@db/ax?ssl-ca=/no/such/ca.pem')).toThrow(
      'ssl-ca=/no/such/ca.pem: cannot read that file',
    );
    expect(() => parsePostgresUrl('postgres://ax:pw@db/ax?sslmode=prefer')).toThrow(
      'sslmode=prefer: use disable, require, verify-ca or verify-full',
    );
    expect(() => parsePostgresUrl('postgres://ax:pw@db/ax?charset=utf8')).toThrow(
      '"postgres://ax:***@db/ax?charset=utf8": unknown option "charset"',
    );
  });

  it('names a refused port', async () => {
    // Port 1 on loopback: nothing listens there.
    await expect(openPostgresStore({ url: 'postgres://postgres@127.0.0.1:1/ax' })).rejects.toThrow(
      'cannot reach PostgreSQL at 127.0.0.1:1: connection refused',
    );
  });

  // Skipped only off CI on a machine without PostgreSQL: under CI=true postgresAvailable() throws instead.
  it.skipIf(!available)('names a wrong user and a missing database', async () => {
    await expect(openPostgresStore({ url: `postgres://no_such_user:x@${admin.host}/test` })).rejects.toThrow(
      /refused user "no_such_user": wrong user or password/,
    );
    await expect(
      openPostgresStore({ url: `postgres://${admin.username || 'postgres'}@${admin.host}/ax_no_such_db_here` }),
    ).rejects.toThrow('has no database "ax_no_such_db_here": create it (CREATE DATABASE "ax_no_such_db_here")');
  });

  it('a team connection is MySQL or PostgreSQL, never both, each under its own flag', () => {
    const redis = 'redis://cache:6379';
    expect(teamConnection({ postgres: 'postgres://ax@pg/ax', redis }).mysqlUrl).toBe('postgres://ax@pg/ax');
    expect(() => teamConnection({ mysql: 'mysql://ax:a@db/ax', postgres: 'postgres://ax:b@pg/ax', redis })).toThrow(
      'team mode uses one database, and both are given: MySQL mysql://ax:***@db/ax and PostgreSQL postgres://ax:***@pg/ax',
    );
    expect(() => teamConnection({ postgres: 'mysql://ax@db/ax', redis })).toThrow(
      '--postgres mysql://ax@db/ax is a MySQL URL: give it with --mysql',
    );
  });
});

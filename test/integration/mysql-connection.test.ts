// Bad or unreachable MySQL connection strings get an error naming what failed.
import { describe, expect, it } from 'vitest';
import { openMysqlStore, parseMysqlUrl, redact } from '../../engine/adapters/sql/mysql-store.ts';
import { mysqlAvailable, MYSQL_ADMIN_URL } from '../helpers/services.ts';

const available = await mysqlAvailable();
const admin = new URL(MYSQL_ADMIN_URL);

describe('MySQL connection errors', () => {
  it('rejects a string that is not a mysql:// URL, and one without a database', async () => {
    await expect(openMysqlStore({ url: 'localhost:3306' })).rejects.toThrow(
      /bad MySQL connection string "localhost:3306": .*mysql:\/\//,
    );
    await expect(openMysqlStore({ url: 'mysql://root@127.0.0.1:3306' })).rejects.toThrow(
      /names no database: add \/DATABASE/,
    );
  });

  it('takes TLS options from the query and refuses unknown ones', () => {
    expect(parseMysqlUrl('mysql://ax@db/ax').ssl).toBeUndefined();
    expect(parseMysqlUrl('mysql://ax@db/ax?ssl=true').ssl).toEqual({
      ca: undefined,
      cert: undefined,
      key: undefined,
      rejectUnauthorized: true,
    });
    expect(parseMysqlUrl('mysql://ax@db/ax?ssl-reject-unauthorized=false').ssl).toMatchObject({
      rejectUnauthorized: false,
    });
    expect(() => parseMysqlUrl('mysql://ax@db/ax?ssl-ca=/no/such/ca.pem')).toThrow(
      'ssl-ca=/no/such/ca.pem: cannot read that file',
    );
    expect(() => parseMysqlUrl('mysql://ax:pw@db/ax?sslmode=require')).toThrow(
      '"mysql://ax:***@db/ax?sslmode=require": unknown option "sslmode"',
    );
  });

  it('never prints the password', () => {
    expect(redact('mysql://ax:s3cret@db:3306/ax')).toBe('mysql://ax:***@db:3306/ax');
  });

  it('names a refused port', async () => {
    // Port 1 on loopback: nothing listens there.
    await expect(openMysqlStore({ url: 'mysql://root@127.0.0.1:1/ax' })).rejects.toThrow(
      'cannot reach MySQL at 127.0.0.1:1: connection refused',
    );
  });

  // Skipped only off CI on a machine without MariaDB: under CI=true mysqlAvailable() throws instead.
  it.skipIf(!available)('names wrong credentials and a missing database', async () => {
    await expect(openMysqlStore({ url: `mysql://no_such_user:x@${admin.host}/test` })).rejects.toThrow(
      /refused user "no_such_user": wrong user or password/,
    );
    await expect(
      openMysqlStore({ url: `mysql://${admin.username || 'root'}@${admin.host}/ax_no_such_db_here` }),
    ).rejects.toThrow(/has no database "ax_no_such_db_here": create it/);
  });
});

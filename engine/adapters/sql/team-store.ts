// The team database, MySQL/MariaDB or PostgreSQL, chosen by its connection string's scheme
// (mysql:// from --mysql, postgres:// from --postgres). Each driver is loaded only when used: a
// MySQL team never loads `pg`, a PostgreSQL one never loads mysql2.
import { AxError } from '../../api/errors.ts';
import type { SqlStore } from './sql-store.ts';

export type TeamDatabaseKind = 'mysql' | 'postgres';

/** Which database a team connection string names; an error for any other scheme. */
export function teamDatabaseKind(url: string): TeamDatabaseKind {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  throw new AxError(
    'validation',
    'the team database must be a mysql://USER:PASSWORD@HOST:3306/DATABASE (--mysql) or a postgres://USER:PASSWORD@HOST:5432/DATABASE (--postgres) connection string',
  );
}

/** Checks the connection string without connecting (a bad one is named before anything opens). */
export async function checkTeamDatabaseUrl(url: string): Promise<void> {
  if (teamDatabaseKind(url) === 'postgres') (await import('./postgres-store.ts')).parsePostgresUrl(url);
  else (await import('./mysql-store.ts')).parseMysqlUrl(url);
}

/**
 * Opens (and migrates) the team database; connectionLimit: its pool's size (default 10); onNote:
 * what a long migration is doing.
 */
export async function openTeamStore(
  url: string,
  options: { connectionLimit?: number; onNote?: (message: string) => void } = {},
): Promise<SqlStore> {
  if (teamDatabaseKind(url) === 'postgres')
    return (await import('./postgres-store.ts')).openPostgresStore({ url, ...options });
  return (await import('./mysql-store.ts')).openMysqlStore({ url, ...options });
}

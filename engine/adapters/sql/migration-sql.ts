// What every migration writes with: the dialect's names for the column types that differ, and
// how a table ends (MySQL: InnoDB, exact string comparison).
import { sql } from 'kysely';

export type SqlDialectName = 'sqlite' | 'mysql';

export function types(dialect: SqlDialectName) {
  return {
    // SQLite's INTEGER is already 64-bit; MySQL needs BIGINT for epoch milliseconds.
    big: dialect === 'mysql' ? sql`bigint` : sql`integer`,
    // A log line may be 64 KiB plus a marker: over MySQL's TEXT limit.
    longText: dialect === 'mysql' ? sql`mediumtext` : sql`text`,
    // Indexed strings need a bounded length in MySQL.
    name: dialect === 'mysql' ? sql`varchar(191)` : sql`text`,
  };
}

/** MySQL compares strings case-insensitively by default; names must compare exactly, as in SQLite. */
export function tableEnd(dialect: SqlDialectName) {
  return dialect === 'mysql' ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``;
}

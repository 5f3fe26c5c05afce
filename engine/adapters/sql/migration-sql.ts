// What every migration writes with: the dialect's names for the column types that differ, how a
// table ends (MySQL: InnoDB, exact string comparison) and how an id counts itself.
import { type ColumnDefinitionBuilder, sql } from 'kysely';

export type SqlDialectName = 'sqlite' | 'mysql' | 'postgres';

export function types(dialect: SqlDialectName) {
  return {
    // SQLite's INTEGER is already 64-bit; MySQL and PostgreSQL need BIGINT for epoch milliseconds.
    big: dialect === 'sqlite' ? sql`integer` : sql`bigint`,
    // A log line may be 64 KiB plus a marker: over MySQL's TEXT limit (PostgreSQL's text has none).
    longText: dialect === 'mysql' ? sql`mediumtext` : sql`text`,
    // Indexed strings need a bounded length in MySQL.
    name: dialect === 'mysql' ? sql`varchar(191)` : sql`text`,
  };
}

/** MySQL compares strings case-insensitively by default; names must compare exactly, as in SQLite. */
export function tableEnd(dialect: SqlDialectName) {
  return dialect === 'mysql' ? sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin` : sql``;
}

/**
 * An integer primary key the database numbers. PostgreSQL has no AUTO_INCREMENT: an identity
 * column, "by default" so that `ax migrate --to team` can copy rows with their ids.
 */
export function autoId(dialect: SqlDialectName) {
  return (col: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

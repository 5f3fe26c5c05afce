// Kysely's SQLite driver prepares every statement on every execution; preparing was ~40% of the
// SQL time in bench/sql-profile.ts. better-sqlite3 statements are reusable, so keep the recent
// ones (bounded: IN-lists of different lengths make distinct SQL).
import type BetterSqlite3 from 'better-sqlite3';

export function cacheStatements(db: BetterSqlite3.Database, max = 500): BetterSqlite3.Database {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (stmt) {
      // Refresh its place: the map's order is the eviction order.
      cache.delete(sql);
    } else {
      stmt = prepare(sql);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, stmt);
    return stmt;
  }) as typeof db.prepare;
  return db;
}

// Kysely's SQLite driver prepares every statement on every execution; preparing was ~40% of the
// SQL time in bench/sql-profile.ts. Statements of both drivers are reusable, so keep the recent
// ones (bounded: IN-lists of different lengths make distinct SQL).
import type { SqliteConnection, SqliteStatement } from './sqlite-driver.ts';

export function cacheStatements(db: SqliteConnection, max = 500): SqliteConnection {
  const cache = new Map<string, SqliteStatement>();
  const prepare = db.prepare.bind(db);
  return {
    driver: db.driver,
    exec: (sql) => db.exec(sql),
    close: () => {
      cache.clear();
      db.close();
    },
    prepare(sql) {
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
    },
  };
}

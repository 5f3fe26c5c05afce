// memoQuery: a statement compiled once runs again with new values in its slots, constants kept,
// whatever the order slots and constants appear in the SQL; each key is its own statement.
import { openSqlite } from '../../engine/adapters/sql/sqlite-driver.ts';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { memoQuery, slot } from '../../engine/adapters/sql/memo-query.ts';
import type { Database as Schema } from '../../engine/adapters/sql/schema.ts';

interface T {
  t: { id: number; kind: string; n: number };
}

const dbs: Kysely<T>[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.destroy();
});

async function table(): Promise<Kysely<T>> {
  const db = new Kysely<T>({ dialect: new SqliteDialect({ database: openSqlite(':memory:') }) });
  dbs.push(db);
  await db.schema
    .createTable('t')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('kind', 'text')
    .addColumn('n', 'integer')
    .execute();
  await db
    .insertInto('t')
    .values([
      { id: 1, kind: 'a', n: 10 },
      { id: 2, kind: 'b', n: 20 },
      { id: 3, kind: 'a', n: 30 },
      { id: 4, kind: 'a', n: 40 },
    ])
    .execute();
  return db;
}

// memoQuery is typed for the engine's schema; these tables are the test's own.
const asEngine = (db: Kysely<T>) => db as unknown as Kysely<Schema>;

describe('memoQuery', () => {
  it('runs one compiled statement with each call’s values, constants in between kept', async () => {
    const db = await table();
    // slot 1 comes before slot 0 in the SQL, with a constant ('a') between them.
    const build = (d: Kysely<Schema>) =>
      (d as unknown as Kysely<T>)
        .selectFrom('t')
        .select('id')
        .where('n', '>', slot(1))
        .where('kind', '=', 'a')
        .where('n', '<', slot(0))
        .orderBy('id');
    const run = async (below: number, above: number) =>
      (await memoQuery(asEngine(db), 'test:range', build as never, [below, above])).rows.map(
        (r) => (r as { id: number }).id,
      );
    expect(await run(35, 5)).toEqual([1, 3]);
    expect(await run(100, 15)).toEqual([3, 4]);
    expect(await run(100, 100)).toEqual([]);
  });

  it('an update reports its affected rows; a different key is a different statement', async () => {
    const db = await table();
    const bump = (kind: string) =>
      memoQuery(
        asEngine(db),
        'test:bump',
        ((d: Kysely<Schema>) =>
          (d as unknown as Kysely<T>).updateTable('t').set({ n: 0 }).where('kind', '=', slot(0))) as never,
        [kind],
      );
    expect(Number((await bump('b')).numAffectedRows)).toBe(1);
    expect(Number((await bump('a')).numAffectedRows)).toBe(3);
    const count = await memoQuery(
      asEngine(db),
      'test:count',
      ((d: Kysely<Schema>) =>
        (d as unknown as Kysely<T>).selectFrom('t').select('id').where('n', '=', slot(0))) as never,
      [0],
    );
    expect(count.rows).toHaveLength(4);
  });
});

// groupCommit: the writes asked for in one turn share a transaction and its one commit, in the
// order asked; one that throws is rolled back alone (the others run again, each by itself).
import { openSqlite, type SqliteConnection } from '../../engine/adapters/sql/sqlite-driver.ts';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { groupCommit } from '../../engine/adapters/sql/group-commit.ts';
import type { Database as Schema } from '../../engine/adapters/sql/schema.ts';

interface T {
  t: { id: number; v: string };
}

const open: Kysely<T>[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.destroy();
});

/** A table, and how many commits its database has run so far. */
async function table() {
  const raw = openSqlite(':memory:');
  let commits = 0;
  const sqlite: SqliteConnection = {
    ...raw,
    driver: raw.driver,
    exec: (sql) => raw.exec(sql),
    close: () => raw.close(),
    prepare: (sql) => {
      if (/^commit/i.test(sql)) commits++;
      return raw.prepare(sql);
    },
  };
  const db = new Kysely<T>({ dialect: new SqliteDialect({ database: sqlite }) });
  open.push(db);
  await db.schema
    .createTable('t')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('v', 'text')
    .execute();
  return { db, engineDb: db as unknown as Kysely<Schema>, commits: () => commits };
}

const insert = (id: number, v: string) => (trx: Kysely<Schema>) =>
  (trx as unknown as Kysely<T>)
    .insertInto('t')
    .values({ id, v })
    .execute()
    .then(() => id);
const rows = async (db: Kysely<T>) =>
  (await db.selectFrom('t').selectAll().orderBy('id').execute()).map((r) => `${r.id}:${r.v}`);

describe('groupCommit', () => {
  it('the writes of one turn: one commit, each caller its own result, in the order asked; a later turn commits again', async () => {
    const { db, engineDb, commits } = await table();
    const before = commits();
    const seen = await Promise.all([1, 2, 3, 4].map((id) => groupCommit(engineDb, insert(id, `v${id}`))));
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(commits() - before).toBe(1);
    // A later write in the group sees the earlier ones (one transaction, in order).
    const [, count] = await Promise.all([
      groupCommit(engineDb, insert(5, 'v5')),
      groupCommit(
        engineDb,
        async (trx) => (await (trx as unknown as Kysely<T>).selectFrom('t').select('id').execute()).length,
      ),
    ]);
    expect(count).toBe(5);
    expect(commits() - before).toBe(2);
    expect(await rows(db)).toEqual(['1:v1', '2:v2', '3:v3', '4:v4', '5:v5']);
  });

  it('one that throws fails alone, its write undone; the others of its turn are kept', async () => {
    const { db, engineDb } = await table();
    const results = await Promise.allSettled([
      groupCommit(engineDb, insert(1, 'a')),
      groupCommit(engineDb, async (trx) => {
        await insert(2, 'half-done')(trx);
        throw new Error('refused');
      }),
      groupCommit(engineDb, insert(3, 'c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('refused'));
    expect(await rows(db)).toEqual(['1:a', '3:c']);
  });
});

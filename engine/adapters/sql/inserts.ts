// Inserts in every dialect. The id of a row just inserted: MySQL and SQLite report it with the
// insert (insertId); PostgreSQL reports nothing unless asked, so there the insert ends with
// `RETURNING id`. And an insert that may break a unique key inside a transaction: MySQL and
// SQLite go on after the error, PostgreSQL aborts the whole transaction unless the statement ran
// in a savepoint.
import { type InsertQueryBuilder, type InsertResult, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from './schema.ts';

/** Whether the database is PostgreSQL (inserts ask for their id, placeholders are numbered). */
export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Runs the insert (one row, into a table with an `id` it numbers) and gives that id. */
export async function insertedId<T extends keyof Database & string>(
  db: Kysely<Database>,
  q: InsertQueryBuilder<Database, T, InsertResult>,
): Promise<number> {
  if (isPostgres(db)) return Number((await q.returning(sql<number>`id`.as('id')).executeTakeFirstOrThrow()).id);
  return Number((await q.executeTakeFirstOrThrow()).insertId);
}

/**
 * Runs `work` (statements that may break a unique key, whose caller catches that and goes on) so
 * that on PostgreSQL its failure leaves the rest of the transaction usable: in a savepoint.
 */
export async function mayCollide<T>(db: Kysely<Database>, work: () => Promise<T>): Promise<T> {
  if (!db.isTransaction || !isPostgres(db)) return work();
  await sql`savepoint ax_may_collide`.execute(db);
  try {
    const result = await work();
    await sql`release savepoint ax_may_collide`.execute(db);
    return result;
  } catch (err) {
    await sql`rollback to savepoint ax_may_collide`.execute(db);
    throw err;
  }
}

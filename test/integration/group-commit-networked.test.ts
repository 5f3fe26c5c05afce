// Group commit on MariaDB and PostgreSQL (groupCommitNetworked): the writes asked for together
// share one transaction; one that throws fails alone; two groups of two connection pools that
// deadlock each other both end with every write applied exactly once (the victim group's writes
// run again, each alone). Real servers; a scratch table in a database of this file's own.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupCommitNetworked } from '../../engine/adapters/sql/group-commit.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import { openPostgresStore } from '../../engine/adapters/sql/postgres-store.ts';
import type { Database } from '../../engine/adapters/sql/schema.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { createPostgresDatabase, createTestDatabase, mysqlAvailable, postgresAvailable } from '../helpers/services.ts';

const servers = [
  {
    name: 'mariadb',
    available: await mysqlAvailable(),
    create: createTestDatabase,
    open: openMysqlStore,
    text: 'char',
  },
  {
    name: 'postgres',
    available: await postgresAvailable(),
    create: createPostgresDatabase,
    open: openPostgresStore,
    text: 'text',
  },
];

const values = async (db: Kysely<Database>) =>
  (await sql<{ id: number; v: string }>`select id, v from gc_t order by id`.execute(db)).rows.map(
    (r) => `${Number(r.id)}:${r.v}`,
  );

for (const server of servers) {
  // Skipped only off CI on a machine without that server: under CI=true mysqlAvailable and
  // postgresAvailable throw instead, so a missing server fails the file.
  describe.skipIf(!server.available)(`groupCommitNetworked on ${server.name}`, () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    let a: SqlStore;
    let b: SqlStore;
    /** Appends `tag` to row `id`'s value: applied twice, the tag would show twice. */
    const append = (db: Kysely<Database>, id: number, tag: string) =>
      sql`update gc_t set v = concat(v, cast(${tag} as ${sql.raw(server.text)})) where id = ${id}`.execute(db);
    beforeAll(async () => {
      database = await server.create('ax_t_gc');
      a = await server.open({ url: database.url });
      b = await server.open({ url: database.url });
      await sql`create table gc_t (id int primary key, v varchar(200) not null)`.execute(a.db);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await database?.drop();
    });
    const reset = async (ids: number[]) => {
      await sql`delete from gc_t`.execute(a.db);
      for (const id of ids) await sql`insert into gc_t (id, v) values (${id}, '')`.execute(a.db);
    };

    it('the writes asked for together: one transaction, each caller its own result, all committed', async () => {
      await reset([1, 2, 3, 4, 5, 6, 7, 8]);
      const transactions = new Set<unknown>();
      const results = await Promise.all(
        [1, 2, 3, 4, 5, 6, 7, 8].map((id) =>
          groupCommitNetworked(a.db, async (trx) => {
            transactions.add(trx);
            await append(trx, id, `w${id}`);
            return id * 10;
          }),
        ),
      );
      expect(results).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
      expect(transactions.size).toBe(1);
      expect(await values(b.db)).toEqual(['1:w1', '2:w2', '3:w3', '4:w4', '5:w5', '6:w6', '7:w7', '8:w8']);
    });

    it("a later write of a group reads what another connection committed after an earlier write's read", async () => {
      await reset([1, 2]);
      let seen: string | undefined;
      await Promise.all([
        groupCommitNetworked(a.db, async (trx) => {
          // a plain read first: under REPEATABLE READ it would pin the group's snapshot here
          await sql`select v from gc_t where id = 2`.execute(trx);
          await append(trx, 1, 'x');
        }),
        groupCommitNetworked(a.db, async (trx) => {
          await append(b.db, 2, 'other'); // committed meanwhile, by a connection of another pool
          seen = (await sql<{ v: string }>`select v from gc_t where id = 2`.execute(trx)).rows[0]?.v;
        }),
      ]);
      expect(seen).toBe('other');
      expect(await values(b.db)).toEqual(['1:x', '2:other']);
    });

    it('one that throws fails alone, its write undone; the others of its group are kept', async () => {
      await reset([1, 2, 3]);
      const results = await Promise.allSettled([
        groupCommitNetworked(a.db, (trx) => append(trx, 1, 'a')),
        groupCommitNetworked(a.db, async (trx) => {
          await append(trx, 2, 'half-done');
          throw new Error('refused');
        }),
        groupCommitNetworked(a.db, (trx) => append(trx, 3, 'c')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await values(b.db)).toEqual(['1:a', '2:', '3:c']);
    });

    it('two groups through two pools locking rows in opposite orders: every write applied exactly once', async () => {
      await reset([1, 2]);
      const pause = () => new Promise((resolve) => setTimeout(resolve, 300));
      // Group A locks row 1 then (after a pause) row 2; group B row 2 then row 1: a deadlock the
      // database breaks by rolling one group back, whose writes then run again, each alone.
      const groupOf = (db: Kysely<Database>, first: number, second: number, tag: string) => [
        groupCommitNetworked(db, (trx) => append(trx, first, `${tag}1`)),
        groupCommitNetworked(db, async (trx) => {
          await pause();
          await append(trx, second, `${tag}2`);
        }),
      ];
      const results = await Promise.allSettled([...groupOf(a.db, 1, 2, 'A'), ...groupOf(b.db, 2, 1, 'B')]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const [row1, row2] = (await values(a.db)).map((v) => v.split(':')[1] as string);
      // Each row holds its two writers' tags once each, in whichever order they committed.
      expect([...(row1?.match(/[AB]\d/g) ?? [])].sort()).toEqual(['A1', 'B2']);
      expect([...(row2?.match(/[AB]\d/g) ?? [])].sort()).toEqual(['A2', 'B1']);
    });
  });
}

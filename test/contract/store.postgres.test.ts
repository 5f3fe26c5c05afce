// The Store contract on PostgreSQL: one database for this file, migrated once; each test starts
// from empty tables (the contract asserts on whole listings). And nodes starting together on a
// new database: Kysely's migration lock (a PostgreSQL advisory lock) lets one migrate it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_TABLES } from '../../engine/adapters/sql/copy-store.ts';
import { openPostgresStore } from '../../engine/adapters/sql/postgres-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { createPostgresDatabase, postgresAvailable, POSTGRES_ADMIN_URL } from '../helpers/services.ts';
import { storeContract } from './store.contract.ts';

const available = await postgresAvailable();

if (!available) {
  describe('Store contract: postgres', () => {
    // Not under CI (postgresAvailable throws there): a developer machine without PostgreSQL.
    it.skip(`needs PostgreSQL at ${POSTGRES_ADMIN_URL} (set AX_TEST_POSTGRES_URL)`, () => undefined);
  });
} else {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let store: SqlStore;
  let peer: SqlStore;
  beforeAll(async () => {
    database = await createPostgresDatabase('ax_t_store');
    store = await openPostgresStore({ url: database.url });
    peer = await openPostgresStore({ url: database.url });
  });
  afterAll(async () => {
    await store?.close();
    await peer?.close();
    await database?.drop();
  });

  storeContract('postgres', async () => {
    for (const t of [...STORE_TABLES].reverse()) await store.db.deleteFrom(t).execute();
    // The store outlives each test; the file's afterAll closes it.
    return { store, peer, teardown: async () => undefined };
  });

  describe('migrations on PostgreSQL', () => {
    it('three nodes opening a new database at once: it is migrated once, and all three use it', async () => {
      const fresh = await createPostgresDatabase('ax_t_migrate');
      const stores: SqlStore[] = [];
      try {
        stores.push(...(await Promise.all([1, 2, 3].map(() => openPostgresStore({ url: fresh.url })))));
        const applied = await stores[0]?.db
          .selectFrom('kysely_migration' as never)
          .select('name' as never)
          .execute();
        const names = (applied as { name: string }[]).map((r) => r.name);
        expect(new Set(names).size).toBe(names.length);
        expect(names).toContain('0001_initial');
        for (const s of stores) expect(await s.listWorkflows()).toEqual([]);
      } finally {
        for (const s of stores) await s.close();
        await fresh.drop();
      }
    });
  });
}

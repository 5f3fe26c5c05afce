// The Store contract on PostgreSQL: one database for this file, migrated once; each test starts
// from empty tables (the contract asserts on whole listings).
import { afterAll, beforeAll, describe, it } from 'vitest';
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
}

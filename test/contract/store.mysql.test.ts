// The Store contract on MariaDB/MySQL: one database for this file, migrated once; each test
// starts from empty tables (the contract asserts on whole listings).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { STORE_TABLES } from '../../engine/adapters/sql/copy-store.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { createTestDatabase, mysqlAvailable, MYSQL_ADMIN_URL } from '../helpers/services.ts';
import { storeContract } from './store.contract.ts';

const available = await mysqlAvailable();

if (!available) {
  describe('Store contract: mysql', () => {
    // Not under CI (mysqlAvailable throws there): a developer machine without MariaDB.
    it.skip(`needs MariaDB/MySQL at ${MYSQL_ADMIN_URL} (set AX_TEST_MYSQL_URL)`, () => undefined);
  });
} else {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: SqlStore;
  let peer: SqlStore;
  beforeAll(async () => {
    database = await createTestDatabase('ax_store');
    store = await openMysqlStore({ url: database.url });
    peer = await openMysqlStore({ url: database.url });
  });
  afterAll(async () => {
    await store?.close();
    await peer?.close();
    await database?.drop();
  });

  storeContract('mysql', async () => {
    for (const t of [...STORE_TABLES].reverse()) await store.db.deleteFrom(t).execute();
    // The store outlives each test; the file's afterAll closes it.
    return { store, peer, teardown: async () => undefined };
  });
}

// The Store contract on PostgreSQL: one database for this file, migrated once; each test starts
// from empty tables (the contract asserts on whole listings). And nodes starting together on a
// new database: Kysely's migration lock (a PostgreSQL advisory lock) lets one migrate it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_TABLES } from '../../engine/adapters/sql/copy-store.ts';
import { openPostgresStore } from '../../engine/adapters/sql/postgres-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { createPostgresDatabase, postgresAvailable, POSTGRES_ADMIN_URL } from '../helpers/services.ts';
import { addInstance, mustGet, runOn, seedRun, T0 } from './store-fixtures.ts';
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

  describe('task heartbeats on PostgreSQL', () => {
    it('a beat skips a row another step holds locked rather than wait for it (a deadlock with a group commit)', async () => {
      for (const t of [...STORE_TABLES].reverse()) await store.db.deleteFrom(t).execute();
      const seed = await seedRun(store);
      const held = await runOn(store, await addInstance(store, seed, 'a'), 'w1');
      const free = await runOn(store, await addInstance(store, seed, 'b'), 'w1');
      const beats = [held, free].map((i) => ({ instanceId: i.id, attempt: i.attempt, at: T0 + 30_000 }));
      // Another node's step (a pid write, say in a group commit) holds held's row until the beat is over.
      let release = () => undefined as void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked = () => undefined as void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const step = peer.db.transaction().execute(async (trx) => {
        await trx.updateTable('task_instance').set({ pid: 4242 }).where('id', '=', held.id).execute();
        locked();
        await released;
      });
      await isLocked;
      const beat = store.recordTaskHeartbeats('w1', beats);
      // Waiting for the lock, the beat would end only with the step: a generous bound, not a timing.
      const first = await Promise.race([
        beat.then(() => 'beat'),
        new Promise((resolve) => setTimeout(() => resolve('waited for the lock'), 10_000)),
      ]);
      release();
      await step;
      expect(first).toBe('beat');
      // Both still run on w1: owned; the free row has its beat, the locked one keeps its last.
      expect(await beat).toEqual(new Set([held.id, free.id]));
      expect((await mustGet(store, free.id)).heartbeatAt).toBe(T0 + 30_000);
      expect(await mustGet(store, held.id)).toMatchObject({ heartbeatAt: held.heartbeatAt, pid: 4242 });
    });
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

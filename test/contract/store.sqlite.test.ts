import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { storeContract } from './store.contract.ts';

// A fresh file per test: WAL and the migrations run as they do in the app's data dir.
storeContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ax-store-'));
  const store = await openSqliteStore(join(dir, 'ax.db'));
  const peer = await openSqliteStore(join(dir, 'ax.db'));
  return {
    store,
    peer,
    teardown: async () => {
      try {
        await store.close();
        await peer.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
});

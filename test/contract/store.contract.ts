// The one suite every Store passes (SQLite now, MySQL later). It sees only the port: each test
// gets a fresh, empty store from `open`, and tests assert on whole listings, so a MySQL setup
// that shares one database per test file must empty its tables in `open`.
// The cases live in one file per concept; this file owns the lifecycle.
import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../engine/ports/store.ts';
import { alertsContract } from './store-alerts.contract.ts';
import { applyManyContract } from './store-apply-many.contract.ts';
import { claimsContract } from './store-claims.contract.ts';
import { definitionsContract } from './store-definitions.contract.ts';
import { eventKeysContract } from './store-event-keys.contract.ts';
import { externalRunsContract } from './store-external.contract.ts';
import { finishContract } from './store-finish.contract.ts';
import { flagsContract } from './store-flags.contract.ts';
import { instancesContract } from './store-instances.contract.ts';
import { loadContract } from './store-load.contract.ts';
import { recordsContract } from './store-records.contract.ts';
import { rerunContract } from './store-rerun.contract.ts';
import { runsContract } from './store-runs.contract.ts';
import { transitionsContract } from './store-transitions.contract.ts';

export interface StoreFixture {
  store: Store;
  /** a second store on the same database, through its own connection: a second dispatcher */
  peer: Store;
  /** closes the store and removes whatever `open` created */
  teardown: () => Promise<void>;
}

export function storeContract(name: string, open: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}`, () => {
    let fx: StoreFixture | undefined;

    beforeEach(async () => {
      fx = await open();
    });

    afterEach(async () => {
      const current = fx;
      fx = undefined;
      await current?.teardown();
    });

    const store = (): Store => {
      if (!fx) throw new Error('the store is only open inside a test');
      return fx.store;
    };
    const peer = (): Store => {
      if (!fx) throw new Error('the store is only open inside a test');
      return fx.peer;
    };

    definitionsContract(store);
    applyManyContract(store);
    runsContract(store);
    externalRunsContract(store);
    rerunContract(store);
    instancesContract(store);
    recordsContract(store);
    claimsContract(store, peer);
    loadContract(store);
    flagsContract(store, peer, name === 'sqlite' ? store : peer);
    eventKeysContract(store, name === 'sqlite' ? store : peer);
    alertsContract(store, name === 'sqlite' ? store : peer);
    // Multi-statement steps race through two connections on MySQL. SQLite has one writer, and
    // better-sqlite3 is synchronous: two connections of one thread cannot interleave their
    // transactions (the second's upgrade to a writer fails at once rather than wait on a thread
    // that cannot run), so there the race is between two callers of one store, whose driver
    // queues the transactions: the case of a solo engine, the only process writing its data dir.
    transitionsContract(store, name === 'sqlite' ? store : peer);
    finishContract(store, name === 'sqlite' ? store : peer);
  });
}

// The one suite every Store passes (SQLite now, MySQL later). It sees only the port: each test
// gets a fresh, empty store from `open`, and tests assert on whole listings, so a MySQL setup
// that shares one database per test file must empty its tables in `open`.
// The cases live in one file per concept; this file owns the lifecycle.
import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../engine/ports/store.ts';
import { accountsContract } from './store-accounts.contract.ts';
import { alertsContract } from './store-alerts.contract.ts';
import { callsContract } from './store-calls.contract.ts';
import { applyManyContract } from './store-apply-many.contract.ts';
import { backfillsContract } from './store-backfills.contract.ts';
import { claimsContract } from './store-claims.contract.ts';
import { definitionsContract } from './store-definitions.contract.ts';
import { eventKeysContract } from './store-event-keys.contract.ts';
import { externalRunsContract } from './store-external.contract.ts';
import { finishContract } from './store-finish.contract.ts';
import { flagsContract } from './store-flags.contract.ts';
import { instancesContract } from './store-instances.contract.ts';
import { loadContract } from './store-load.contract.ts';
import { logChunksContract } from './store-log-chunks.contract.ts';
import { outputsContract } from './store-outputs.contract.ts';
import { recordsContract } from './store-records.contract.ts';
import { rerunContract } from './store-rerun.contract.ts';
import { rulesContract } from './store-rules.contract.ts';
import { rerunFailedContract } from './store-rerun-failed.contract.ts';
import { runsContract } from './store-runs.contract.ts';
import { runListContract } from './store-run-list.contract.ts';
import { transitionsContract } from './store-transitions.contract.ts';
import { waitsContract } from './store-waits.contract.ts';
import { trendsContract } from './store-trends.contract.ts';

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
    runListContract(store);
    waitsContract(store);
    externalRunsContract(store);
    rerunContract(store);
    callsContract(store);
    outputsContract(store);
    rerunFailedContract(store);
    instancesContract(store);
    recordsContract(store);
    logChunksContract(store);
    trendsContract(store);
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
    rulesContract(store, name === 'sqlite' ? store : peer);
    backfillsContract(store, name === 'sqlite' ? store : peer);
    accountsContract(store, peer);
  });
}

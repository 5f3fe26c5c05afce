// The Store: the source of truth, as one port per aggregate (definitions, runs with their
// compound steps, instances, logs, workers, alerts, read models, audit and flags). A service
// takes only the ports it uses; `Store` is all of them, what an adapter implements and a host
// passes around. One contract, one suite (test/contract/store.contract.ts), every adapter.
import type { AccountStore } from './store-accounts.ts';
import type { AlertStore } from './store-alerts.ts';
import type { BackfillStore } from './store-backfills.ts';
import type { DefinitionStore } from './store-definitions.ts';
import type { AuditStore, EventKeyStore, FlagStore } from './store-flags.ts';
import type { InstanceStore } from './store-instances.ts';
import type { LogStore } from './store-logs.ts';
import type { RunStore } from './store-runs.ts';
import type { ReadModelStore } from './store-views.ts';
import type { WorkerStore } from './store-workers.ts';

export type { AccountStore, GroupRow, SessionRow, TokenRow, UserRow } from './store-accounts.ts';
export type { AlertStore } from './store-alerts.ts';
export type { BackfillRow, BackfillStore, NewBackfill } from './store-backfills.ts';
export type { DefinitionStore } from './store-definitions.ts';
export type { AuditStore, EventKeyStore, FlagStore } from './store-flags.ts';
export type { InstanceStore } from './store-instances.ts';
export type { LogStore } from './store-logs.ts';
export type { RunStore } from './store-runs.ts';
export type { FinishedRunDurations, ReadModelStore } from './store-views.ts';
export type { WorkerStore } from './store-workers.ts';
export * from './store-types.ts';
export type * from './store-transitions.ts';

export interface Store
  extends
    DefinitionStore,
    RunStore,
    InstanceStore,
    LogStore,
    ReadModelStore,
    WorkerStore,
    AuditStore,
    FlagStore,
    EventKeyStore,
    AlertStore,
    BackfillStore,
    AccountStore {
  close(): Promise<void>;
}

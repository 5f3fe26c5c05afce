// Audit and flags: the audit log, the pause of all scheduling, event triggers' idempotency keys.
import type { Actor } from '../api/actor.ts';
import type { AuditEntry, SchedulingPause } from '../api/types.ts';
import type { EventKeyClaim } from './store-types.ts';

/** The audit log. */
export interface AuditStore {
  audit(entry: Omit<AuditEntry, 'id'>): Promise<void>;
  listAudit(limit: number): Promise<AuditEntry[]>;
}

/** The pause of all scheduling. */
export interface FlagStore {
  /** the pause of all scheduling, while there is one (read by the leading scheduler every scan) */
  getSchedulingPause(): Promise<SchedulingPause | undefined>;
  /**
   * Pauses (at `at`, by `actor`) or resumes all scheduling, with its audit entry
   * (`scheduling.pause` / `scheduling.resume`) in the same transaction. Pausing what is paused
   * keeps the first pause's time and actor; either way round, no change writes nothing and
   * returns false.
   */
  setSchedulingPause(paused: boolean, at: number, actor: Actor): Promise<boolean>;
}

/** Event triggers' Idempotency-Keys. */
export interface EventKeyStore {
  /**
   * Claims an event trigger's Idempotency-Key: the first caller gets `claimed`; a
   * later one gets the runs the first started, or (`since`) that the first is still under way. A
   * key older than retentionMs is new again; a claim left unsettled for staleMs (its engine died)
   * is taken over.
   */
  claimEventKey(event: string, key: string, now: number, retentionMs: number, staleMs: number): Promise<EventKeyClaim>;
  /** Records the runs a claimed key's request started; undefined: it failed, the key is free again. */
  settleEventKey(event: string, key: string, runIds: number[] | undefined): Promise<void>;
  /** Forgets keys claimed before `before`; returns how many. */
  purgeEventKeys(before: number): Promise<number>;
}

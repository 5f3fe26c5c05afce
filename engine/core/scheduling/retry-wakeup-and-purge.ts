// The leader's upkeep between fires: a wake-up for the retry whose backoff ends before the next
// tick, and the hourly purge of logs and alerts past their retention and of event Idempotency-Keys past theirs.
import type { Clock } from '../../ports/clock.ts';
import type { InstanceStore, LogStore, EventKeyStore, AlertStore } from '../../ports/store.ts';
import type { EngineConfig } from '../model/config.ts';
import type { Dispatcher } from '../dispatch/dispatcher.ts';
import { EVENT_KEY_RETENTION_MS } from './event-triggers.ts';

const PURGE_EVERY_MS = 3_600_000;

export class RetryWakeupAndPurge {
  private cancelRetryTimer: (() => void) | undefined;
  private lastPurge = 0;

  constructor(
    private readonly store: InstanceStore & LogStore & EventKeyStore & AlertStore,
    private readonly clock: Clock,
    private readonly config: EngineConfig,
    private readonly wakeDispatcher: Dispatcher['wake'],
  ) {}

  /** A retry's backoff rarely ends on a tick: dispatch it when it ends, not up to a tick later. */
  async wakeForRetries(): Promise<void> {
    const at = await this.store.nextWaitingAt();
    const now = this.clock.now();
    if (at === undefined || at <= now || at - now >= this.config.tickMs) return;
    this.cancelRetryTimer?.();
    this.cancelRetryTimer = this.clock.setTimer(at - now, () => this.wakeDispatcher());
  }

  async purgeLogs(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    await this.store.purgeLogs(now - this.config.logRetentionMs);
    await this.store.purgeEventKeys(now - EVENT_KEY_RETENTION_MS);
    // Alerts say what happened to runs: kept as long as their logs.
    await this.store.purgeAlerts(now - this.config.logRetentionMs);
  }

  stop(): void {
    this.cancelRetryTimer?.();
  }
}

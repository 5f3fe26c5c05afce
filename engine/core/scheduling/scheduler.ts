// The scheduler's tick: every tickMs, and once at start, the leader runs its parts in order —
// lease (and the start-up check of runs on taking it; at start-up the `on: engine_start` runs),
// cron firing, backfills' runs, backstops, a dispatch pass, retry wake-ups and log purge. Reactions to finished instances are not here: whoever records an
// outcome records its follow-ups in the same store step (RunManager.finish). A scheduler that does not lead only bids for the lease. WAITING
// instances other processes create (a client's `ax run`, a worker advancing a run) reach the
// leader as events; this process's own wake its dispatcher directly (Dispatcher.wake).
import { INSTANCE_STATES } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { BackstopPass } from './backstop-pass.ts';
import type { EngineConfig } from '../model/config.ts';
import type { CronFiring, CronScan } from './cron-firing.ts';
import type { Dispatcher } from '../dispatch/dispatcher.ts';
import type { LeaderLease } from './leader-lease.ts';
import type { RetryWakeupAndPurge } from './retry-wakeup-and-purge.ts';

export interface SchedulerParts {
  lease: LeaderLease;
  cron: CronFiring;
  /** the start-up check of runs (recovery.ts), run on taking the lead */
  checkRuns: () => Promise<void>;
  backstops: BackstopPass;
  dispatcher: Dispatcher;
  retryWakeupAndPurge: RetryWakeupAndPurge;
  /** fails instances whose wait for another workflow passed its wait_timeout (RunManager.expireWaits) */
  expireWaits: () => Promise<void>;
  /** the runs of the workflows with `on: engine_start` (engine-start.ts): once, at the first tick, if it leads */
  engineStart: () => Promise<unknown>;
  /** monitors' fires past their grace: met by a reported run, or missed (monitor-check.ts) */
  checkMonitors: () => Promise<void>;
  /** each RUNNING backfill topped up to its maxParallel live runs, ended when done (backfill-pump.ts) */
  topUpBackfills: () => Promise<void>;
}

/** A tick's timer this much late or more means this process was not run meanwhile. */
const STALL_SLACK_MS = 500;

/** What another node's instance event wakes the dispatcher for: new work, or a slot freed. */
const WAKING_STATES = INSTANCE_STATES.filter((s) => s !== 'DISPATCHED' && s !== 'RUNNING');

export class Scheduler {
  private cancelTick: (() => void) | undefined;
  private stopped = true;
  private ticking: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  /** what the cron scan of the latest tick did; undefined when it did not scan (not leading, a failure) */
  private lastScan: CronScan | undefined;
  /** from start() until its first tick has renewed the lease: that tick decides the engine-start runs */
  private starting = false;
  /** the engine-start runs are due (the first tick led) and not started yet: a tick that failed tries again */
  private engineStartDue = false;

  constructor(
    private readonly parts: SchedulerParts,
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    private readonly config: EngineConfig,
    private readonly alert: (message: string) => void,
  ) {}

  async start(): Promise<void> {
    const { dispatcher } = this.parts;
    // Another node's instance events wake the leader's dispatcher: new work (WAITING), and a
    // worker's slot freed (any state but DISPATCHED and RUNNING: an outcome, a cancel) — without
    // the latter a team's workers waited for the next tick (1 s) for their next task.
    this.unsubscribe = await this.coordinator.subscribe(
      (e) => {
        // the coordinator passes only WAKING_STATES' instance events
        if (e.type === 'instance') dispatcher.wake();
      },
      { fromOthers: true, instanceStates: WAKING_STATES },
    );
    this.stopped = false;
    this.starting = true;
    this.parts.lease.start();
    await this.tick();
  }

  /** One pass; also runs every tickMs. Exposed so tests can drive it with a fake clock. */
  tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    const { lease, cron, checkRuns, backstops, dispatcher, retryWakeupAndPurge } = this.parts;
    this.ticking = (async () => {
      this.lastScan = undefined;
      try {
        const { held, taken } = await lease.renew();
        // Only the tick at start-up decides: a standby taking the lead later is a failover, not a start.
        const started = this.starting;
        this.starting = false;
        if (!held) {
          // the lead lost before they started: whoever leads now is not starting
          this.engineStartDue = false;
          return;
        }
        // A one-shot engine (`ax run` without a server) fires nothing of its own: a long-running one only.
        if (started && taken && this.config.fireSchedules) this.engineStartDue = true;
        // Leading from now on (start-up, or taking over from a dead leader): the start-up check.
        if (taken) await checkRuns();
        if (this.engineStartDue) {
          await this.parts.engineStart();
          this.engineStartDue = false;
        }
        if (this.config.fireSchedules) {
          this.lastScan = await cron.scanSchedules();
          await this.parts.checkMonitors();
          // Paused: a backfill's runs wait like cron's (a manual run is what a person starts now).
          if (!this.lastScan.paused) await this.parts.topUpBackfills();
        }
        await backstops.checkRunning();
        await this.parts.expireWaits();
        await dispatcher.runPass();
        await retryWakeupAndPurge.wakeForRetries();
        await retryWakeupAndPurge.purgeLogs();
      } catch (err) {
        backstops.blind();
        this.alert(`scheduler: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        this.ticking = undefined;
        if (!this.stopped) {
          this.cancelTick?.();
          const due = this.clock.now() + this.config.tickMs;
          this.cancelTick = this.clock.setTimer(this.config.tickMs, () => {
            // Fired late: this process was not run meanwhile (the machine stalled or slept, or
            // the event loop was held), and what it sees of the workers' heartbeats now may be
            // that much older than their silence is (see BackstopPass.notRun).
            const late = this.clock.now() - due;
            if (late >= STALL_SLACK_MS) backstops.notRun(late);
            void this.tick();
          });
        }
      }
    })();
    return this.ticking;
  }

  /**
   * A tick now rather than at the next interval, begun after this call (one under way may have
   * begun before what the caller knows of, e.g. the machine waking from sleep): every schedule's
   * missed fires are dealt with by its misfire policy at once. Returns what its cron scan did,
   * or undefined when it did not scan (this scheduler does not lead, does not fire schedules, or
   * the tick failed: the alert says why).
   */
  async catchUp(): Promise<CronScan | undefined> {
    if (this.stopped) return undefined;
    await this.ticking;
    await this.tick();
    return this.lastScan;
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.stopped = true;
    this.parts.lease.stop();
    this.cancelTick?.();
    this.parts.retryWakeupAndPurge.stop();
    this.parts.cron.stop();
    await this.ticking;
    await this.parts.lease.release();
  }
}

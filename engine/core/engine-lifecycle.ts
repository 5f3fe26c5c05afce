// An engine's life: start (recovery of what a dead engine left, then the worker, the presence,
// the scheduler and the alert sweeps), stop (a drain), dispose (the adapters closed). Built by
// engine-wiring.ts; the Engine delegates to it.
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type { ProcessRunner } from '../ports/process-runner.ts';
import type { Store } from '../ports/store.ts';
import type { AlertCenter } from './alerts/alert-center.ts';
import type { EngineDeps } from './engine-deps.ts';
import type { Worker } from './execution/worker.ts';
import type { LiveEvents } from './live-events.ts';
import type { LogWriter } from './logs/log-writer.ts';
import type { EngineConfig } from './model/config.ts';
import type { RunManager } from './runs/run-manager.ts';
import type { NodePresenceBeat } from './scheduling/node-presence.ts';
import { recoverOrphans, type RecoveryReport } from './scheduling/recovery.ts';
import type { Scheduler } from './scheduling/scheduler.ts';

/** The parts a life cycle starts and stops (named here, not taken from the wiring that builds them). */
interface LifeParts {
  deps: EngineDeps;
  config: EngineConfig;
  store: Store;
  coordinator: Coordinator;
  runner: ProcessRunner;
  clock: Clock;
  runs: RunManager;
  worker: Worker | undefined;
  /** the embedded worker and its more identities (ax serve --simulate) */
  workers: Worker[];
  presence: NodePresenceBeat | undefined;
  scheduler: Scheduler;
  logs: LogWriter;
  alerts: AlertCenter;
  live: LiveEvents;
}

export class EngineLifecycle {
  /** between start() and stop(): the loops run */
  started = false;

  constructor(private readonly parts: LifeParts) {}

  /** Recovers what a dead engine left, then starts the worker and the scheduler. */
  async start(): Promise<RecoveryReport> {
    const { deps, worker, workers } = this.parts;
    const scope = deps.recovery ?? 'all';
    const step = deps.onStartStep ?? (() => undefined);
    // Recovery acts on what this worker id left: only once the id is this process's (two nodes
    // under one id would otherwise kill each other's tasks here).
    step('claiming the worker id in the database');
    for (const w of workers) await w.claim();
    step('recovering what this worker id left running');
    const { store, runner, runs, clock, config, coordinator } = this.parts;
    // team mode: what each of this process's worker ids left (more than one: ax serve --simulate)
    const own = workers.map((w) => w.id);
    const report =
      scope === 'all' || worker
        ? scope === 'own'
          ? await recoverOrphans(store, runner, runs, clock, config.killGraceMs, own, (id, attempt) =>
              coordinator.clearStartLock(id, attempt),
            )
          : await recoverOrphans(store, runner, runs, clock, config.killGraceMs)
        : { failed: 0, requeued: 0, killed: 0 };
    step('registering the worker (first heartbeat to the database and Redis)');
    for (const w of workers) await w.start();
    if (deps.runScheduler !== false) {
      step('starting the scheduler');
      await this.parts.presence?.start();
      await this.parts.scheduler.start();
    }
    this.parts.alerts.start();
    this.started = true;
    return report;
  }

  /** Drain: no new fires or dispatches; running tasks get drainTimeoutMs; logs are flushed. */
  async stop(drainTimeoutMs: number): Promise<void> {
    if (!this.started) return;
    await this.parts.scheduler.stop();
    // Best effort: with Redis away the presence expires by its TTL.
    await this.parts.presence?.stop().catch(() => undefined);
    await Promise.all(this.parts.workers.map((w) => w.drain(drainTimeoutMs)));
    await this.parts.logs.flush();
    await this.parts.alerts.stop();
    this.started = false;
  }

  /** Closes the store and the coordinator (after stop()). */
  async dispose(): Promise<void> {
    const { live, store, coordinator, runner, deps } = this.parts;
    live.close();
    await store.close();
    await coordinator.close();
    runner.dispose?.();
    deps.onDispose?.();
  }
}

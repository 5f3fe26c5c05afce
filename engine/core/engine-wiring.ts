// Every part of an engine built and connected in one place, in dependency order, so no part
// needs another that does not exist yet: the dispatcher and the leader lease first, then the
// leader's dispatch wake-up, which every part that makes work calls directly (RunManager for new
// WAITING instances, backstops, retry timers); then RunManager, the scheduler's parts and the
// worker, which records each outcome with its follow-ups through RunManager.finish.
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type { EngineMetrics } from '../ports/metrics.ts';
import type { ProcessRunner } from '../ports/process-runner.ts';
import type { Store } from '../ports/store.ts';
import type { AlertHooks } from './alerts/alert-rules.ts';
import { BackstopPass } from './backstop-pass.ts';
import { type EngineConfig, workerLostAfterMs } from './config.ts';
import { CronFiring } from './cron-firing.ts';
import { Dispatcher } from './dispatcher.ts';
import { instanceEvent } from './events.ts';
import { LeaderLease, leaderDispatch } from './leader-lease.ts';
import { LogWriter } from './log-writer.ts';
import { Maintenance } from './maintenance.ts';
import { checkRuns } from './recovery.ts';
import { Router } from './routing.ts';
import { RunManager } from './run-manager.ts';
import { Scheduler } from './scheduler.ts';
import { Worker, type WorkerOptions } from './worker.ts';
import { WorkflowCache } from './workflow-cache.ts';

export interface WiringDeps {
  store: Store;
  coordinator: Coordinator;
  runner: ProcessRunner;
  clock: Clock;
  config: EngineConfig;
  /** identity of this engine for the leader lease */
  nodeId: string;
  /** the embedded worker; omit for a scheduler-only or client-only engine */
  worker?: Omit<WorkerOptions, 'workerHeartbeatMs' | 'taskHeartbeatMs' | 'killGraceMs' | 'maxLineBytes' | 'maxConcurrency' | 'metrics'> & { maxConcurrency?: number };
  /** `ax drain` reached this node's worker */
  onDrainRequested?: () => void;
  alert: (message: string) => void;
  /** the structured alert rules (alerts/alert-rules.ts) */
  alerts: AlertHooks;
  /** what the parts count as they work (task starts and ends, runs, log lines) */
  metrics: EngineMetrics;
}

export interface EngineParts {
  workflows: WorkflowCache;
  runs: RunManager;
  scheduler: Scheduler;
  logs: LogWriter;
  worker: Worker | undefined;
}

export function wireEngine(deps: WiringDeps): EngineParts {
  const { store, coordinator, clock, config, alert, alerts, metrics } = deps;
  const workflows = new WorkflowCache(store, () => clock.now());
  const secretMask = deps.worker?.secretMask;
  const dispatcher = new Dispatcher(
    store,
    coordinator,
    workflows,
    clock,
    new Router(),
    { staleAfterMs: workerLostAfterMs(config), queueAlertThreshold: config.queueAlertThreshold, batch: 500, onQueueLong: (w, n, t) => alerts.queueLong(w, n, t) },
    (id, taskName, runId, attempt) =>
      void coordinator.publish(instanceEvent({ id, runId, taskName, attempt, state: 'DISPATCHED' }, clock.now())).catch(() => undefined),
    // RunManager needs the wake-up, which needs this dispatcher: reached at call time.
    (inst, guard, to, patch) => runs.finish(inst, guard, to, patch),
  );
  const lease = new LeaderLease(coordinator, deps.nodeId, 3 * config.workerHeartbeatMs);
  // Only the leading scheduler dispatches: in a process that does not lead, this does nothing,
  // and the leader hears of the work by the events RunManager publishes.
  const kick = leaderDispatch(lease, dispatcher, alert);
  const runs = new RunManager(store, coordinator, workflows, clock, kick, { max: config.maxFailovers, alert }, alerts, metrics);
  const logs = new LogWriter(store, clock, {
    batchLines: config.logBatchLines,
    flushMs: config.logFlushMs,
    maxBufferBytes: config.logBufferBytes,
    giveUpMs: config.logGiveUpMs,
    maxOutputBytes: config.maxOutputBytes,
    // Published once stored, so a follower that reads the store after an event finds the line.
    onLines: (lines) => {
      metrics.logLinesStored(lines.length);
      for (const l of lines) void coordinator.publish({ type: 'log', ...l }).catch(() => undefined);
    },
    onDropped: () => metrics.logLinesDropped(1),
    ...(secretMask && { mask: (text: string) => secretMask.mask(text) }),
  });
  const worker =
    deps.worker &&
    new Worker(
      store,
      coordinator,
      deps.runner,
      logs,
      workflows,
      clock,
      {
        ...deps.worker,
        maxConcurrency: deps.worker.maxConcurrency ?? config.maxConcurrency,
        workerHeartbeatMs: config.workerHeartbeatMs,
        taskHeartbeatMs: config.taskHeartbeatMs,
        killGraceMs: config.killGraceMs,
        maxLineBytes: config.maxLineBytes,
        onDrainRequested: deps.onDrainRequested,
        metrics,
      },
      (inst, guard, to, patch) => runs.finish(inst, guard, to, patch),
      kick,
      alert,
    );
  const backstops = new BackstopPass(store, coordinator, workflows, clock, config, runs, kick, alert, worker && (() => worker.record()), alerts);
  const scheduler = new Scheduler(
    {
      lease,
      cron: new CronFiring(store, runs, workflows, clock, config, lease, alert, alerts),
      checkRuns: () => checkRuns(store, runs),
      backstops,
      dispatcher,
      maintenance: new Maintenance(store, clock, config, kick),
      expireWaits: () => runs.expireWaits(),
      kick,
    },
    coordinator,
    clock,
    config,
    alert,
  );
  return { workflows, runs, scheduler, logs, worker };
}

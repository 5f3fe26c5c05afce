// Every part of an engine built and connected in one place, in dependency order; the Engine class
// (engine.ts) only holds the parts and delegates to them. The order: the secret mask and the
// masked store every part writes through, the alerts, then the workflow cache, the leader lease
// and RunManager, then the dispatcher, whose wake-up (Dispatcher.wake) every part that makes work
// or frees a slot calls directly (RunManager for new WAITING instances, the worker for each
// outcome, backstops, retry timers); the worker, which records each outcome with its follow-ups
// through RunManager.finish; the scheduler's parts; last the read side (views, events, live).
import { type Actor, actorColumns } from '../api/actor.ts';
import type { EngineEvent } from '../api/events.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import { type EngineMetrics, noMetrics } from '../ports/metrics.ts';
import type { ProcessRunner } from '../ports/process-runner.ts';
import type { Store } from '../ports/store.ts';
import type { AlertCenter } from './alerts/alert-center.ts';
import type { AlertRules } from './alerts/alert-rules.ts';
import { engineAlerts } from './alerts/engine-alerts.ts';
import { BackfillPump } from './scheduling/backfill-pump.ts';
import { Backfills } from './runs/backfills.ts';
import { BackstopPass } from './scheduling/backstop-pass.ts';
import { DEFAULT_CONFIG, type EngineConfig, workerLostAfterMs } from './model/config.ts';
import { CronFiring } from './scheduling/cron-firing.ts';
import { Dispatcher } from './dispatch/dispatcher.ts';
import type { EngineDeps } from './engine-deps.ts';
import { EngineLifecycle } from './engine-lifecycle.ts';
import { fireEngineStart } from './scheduling/engine-start.ts';
import { EventTriggers } from './scheduling/event-triggers.ts';
import { MonitorCheck } from './scheduling/monitor-check.ts';
import { ExternalRuns } from './runs/external-runs.ts';
import { instanceEvent } from './model/instance-event.ts';
import { LeaderLease } from './scheduling/leader-lease.ts';
import { LiveEvents } from './live-events.ts';
import { LogWriter } from './logs/log-writer.ts';
import { RetryWakeupAndPurge } from './scheduling/retry-wakeup-and-purge.ts';
import { maskedStore } from './secrets/masked-store.ts';
import { MetricsGauges } from './metrics-gauges.ts';
import { NodePresenceBeat } from './scheduling/node-presence.ts';
import { checkRuns } from './scheduling/recovery.ts';
import { Router } from './model/routing.ts';
import { RunManager } from './runs/run-manager.ts';
import { Scheduler } from './scheduling/scheduler.ts';
import { SecretMask } from './secrets/secret-mask.ts';
import { TeamSecrets } from './secrets/team-secrets.ts';
import { EngineViews } from './read-models.ts';
import { Worker } from './execution/worker.ts';
import { WorkflowCache } from './workflow/workflow-cache.ts';
import { workflowIdOf } from './workflow/workflow-id.ts';

/** Records who did what (the audit log), now. */
export type Audit = (actor: Actor, action: string, object: string, detail?: string) => Promise<void>;

export interface EngineParts {
  /** the deps as the parts use them: the store masked, the worker's secrets watched by the mask */
  deps: EngineDeps;
  config: EngineConfig;
  store: Store;
  coordinator: Coordinator;
  runner: ProcessRunner;
  clock: Clock;
  metrics: EngineMetrics;
  secretMask: SecretMask;
  workflows: WorkflowCache;
  runs: RunManager;
  /** backfills as the API asks for them; the scheduler's BackfillPump creates their runs */
  backfills: Backfills;
  /** a monitor's runs as pinged from outside (design.md §13) */
  externalRuns: ExternalRuns;
  scheduler: Scheduler;
  logs: LogWriter;
  worker: Worker | undefined;
  /** the embedded worker first, then the identities of moreWorkerIds (ax serve --simulate); empty without a worker */
  workers: Worker[];
  views: EngineViews;
  events: EventTriggers;
  live: LiveEvents;
  presence: NodePresenceBeat | undefined;
  alerts: AlertCenter;
  alertRules: AlertRules;
  audit: Audit;
  /** team mode only: the team secrets (set, list, remove, resolve for a task) */
  teamSecrets: TeamSecrets | undefined;
  workflowId: (name: string) => Promise<number>;
  lifecycle: EngineLifecycle;
}

export function wireEngine(hostDeps: EngineDeps): EngineParts {
  const config: EngineConfig = { ...DEFAULT_CONFIG, ...hostDeps.config };
  // One masking step for every secret the node resolves: the store keeps no text unmasked,
  // and the worker masks its tasks' lines before their cut.
  const secretMask = hostDeps.secretMask ?? new SecretMask();
  const mask = (text: string) => secretMask.mask(text);
  const hostWorker = hostDeps.worker;
  const workerDeps = hostWorker && {
    ...hostWorker,
    secretMask,
    ...(hostWorker.secrets && { secrets: secretMask.watch(hostWorker.secrets) }),
  };
  const deps: EngineDeps = { ...hostDeps, store: maskedStore(hostDeps.store, mask), worker: workerDeps };
  const { store, coordinator, clock, runner, random } = deps;
  const metrics = deps.metrics ?? noMetrics;
  const runsScheduler = deps.runScheduler !== false;

  const { center: alerts, rules: alertRules } = engineAlerts({
    ...deps,
    config,
    scheduler: runsScheduler,
    onError: deps.onAlert && ((message) => deps.onAlert?.(mask(message))),
    mask,
    onDelivered: (channel, outcome) => metrics.alertDelivered(channel, outcome),
  });
  /**
   * The engine's free-text alerts go to live followers, to the host (stderr) and to the audit
   * log, and, as the `engine` rule, to the alert channels that ask for it.
   */
  const alert = (raw: string): void => {
    const message = mask(raw);
    alertRules.engine(message);
    const at = clock.now();
    void coordinator.publish({ type: 'alert', message, at }).catch(() => undefined);
    const object = workerDeps ? `worker:${workerDeps.id}` : 'scheduler';
    void store.audit({ at, actor: deps.nodeId, action: 'alert', object, detail: message }).catch(() => undefined);
    deps.onAlert?.(message);
  };
  const audit: Audit = (actor, action, object, detail) =>
    store.audit({ at: clock.now(), ...actorColumns(actor), action, object, detail });
  const workflowId = (name: string) => workflowIdOf(store, name);
  const teamSecrets =
    deps.teamSecrets && new TeamSecrets(deps.teamSecrets, clock, audit, (values) => secretMask.add(values));

  const workflows = new WorkflowCache(store, () => clock.now(), deps.nextTurn);
  const lease = new LeaderLease(coordinator, deps.nodeId, 3 * config.workerHeartbeatMs, () => clock.now());
  // RunManager wakes the dispatcher, which ends through RunManager what can never run: the
  // dispatcher, built next, is reached at call time.
  const wakeDispatcher: Dispatcher['wake'] = () => dispatcher.wake();
  const runs = new RunManager(
    store,
    coordinator,
    workflows,
    clock,
    wakeDispatcher,
    { max: config.maxFailovers, alert },
    alertRules,
    metrics,
  );
  const recordOutcome: RunManager['finish'] = runs.finish.bind(runs);
  const dispatcher = new Dispatcher(
    store,
    coordinator,
    workflows,
    clock,
    new Router(random),
    {
      staleAfterMs: workerLostAfterMs(config),
      queueAlertThreshold: config.queueAlertThreshold,
      batch: 500,
      onQueueLong: (w, n, t) => alertRules.queueLong(w, n, t),
    },
    (id, taskName, runId, attempt) =>
      void coordinator
        .publish(instanceEvent({ id, runId, taskName, attempt, state: 'DISPATCHED' }, clock.now()))
        .catch(() => undefined),
    recordOutcome,
    // Only the leading scheduler dispatches: in a process that does not lead, a wake-up does
    // nothing, and the leader hears of the work by the events RunManager publishes.
    lease,
    alert,
    (inst, task) => runs.calls.start(inst, task),
  );
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
    ...(workerDeps && { mask }),
  });
  const workerOf = (id: string): Worker | undefined =>
    workerDeps &&
    new Worker(
      store,
      coordinator,
      runner,
      logs,
      workflows,
      clock,
      {
        ...workerDeps,
        id,
        maxConcurrency: workerDeps.maxConcurrency ?? config.maxConcurrency,
        workerHeartbeatMs: config.workerHeartbeatMs,
        taskHeartbeatMs: config.taskHeartbeatMs,
        killGraceMs: config.killGraceMs,
        maxLineBytes: config.maxLineBytes,
        onDrainRequested: deps.onDrainRequested,
        metrics,
        random,
        ...((workerDeps.teamSecrets ?? teamSecrets) && { teamSecrets: workerDeps.teamSecrets ?? teamSecrets }),
      },
      recordOutcome,
      wakeDispatcher,
      alert,
    );
  const worker = workerDeps && workerOf(workerDeps.id);
  const workers = worker
    ? [worker, ...(deps.moreWorkerIds ?? []).map((id) => workerOf(id) as Worker)]
    : ([] as Worker[]);
  const backstops = new BackstopPass(
    store,
    coordinator,
    workflows,
    clock,
    config,
    runs,
    wakeDispatcher,
    alert,
    worker && (() => worker.record()),
    alertRules,
  );
  const monitors = new MonitorCheck(store, runs, clock, config.maxCatchUp, alertRules, alert);
  const externalRuns = new ExternalRuns(store, runs, workflows, coordinator, clock, (run) =>
    alertRules.externalRunEnded(run),
  );
  const publishEvent = (event: EngineEvent): void => void coordinator.publish(event).catch(() => undefined);
  const backfillPump = new BackfillPump({
    store,
    workflows,
    clock,
    startRun: (input) => runs.startRun(input),
    rerunTask: (runId, task) => runs.rerun(runId, task),
    publish: publishEvent,
    alert,
  });
  const backfills = new Backfills({
    store,
    workflows,
    clock,
    workflowId,
    audit,
    publish: publishEvent,
    cancelRun: async (runId, reason) => {
      // this node's own worker stops the processes at once; others at their next heartbeat
      for (const i of await runs.cancel(runId, undefined, reason))
        if (i.state === 'CANCELLED' && worker && i.workerId === worker.id) worker.stopCancelled(i.id);
    },
  });
  const scheduler = new Scheduler(
    {
      lease,
      cron: new CronFiring(store, runs, workflows, clock, config, lease, alert, alertRules),
      checkRuns: () => checkRuns(store, runs),
      backstops,
      dispatcher,
      retryWakeupAndPurge: new RetryWakeupAndPurge(store, clock, config, wakeDispatcher),
      expireWaits: () => runs.expireWaits(),
      engineStart: () => fireEngineStart(store, runs, workflows, clock, deps.nodeId, alert),
      checkMonitors: () => monitors.check(),
      topUpBackfills: () => backfillPump.topUp(),
    },
    coordinator,
    clock,
    config,
    alert,
  );

  const views = new EngineViews(
    store,
    coordinator,
    clock,
    workflowId,
    workerLostAfterMs(config),
    deps.zone,
    deps.nextTurn,
  );
  const events = new EventTriggers(store, clock, runs, config.maxEventPayloadBytes, audit);
  const gauges = new MetricsGauges(store, coordinator, clock, () => views.listWorkers());
  metrics.gaugesFrom(() => gauges.read());
  const live = new LiveEvents(coordinator, clock, () => views.listWorkers(), config.workerHeartbeatMs);
  const presence =
    deps.node && runsScheduler
      ? new NodePresenceBeat(coordinator, clock, config.workerHeartbeatMs, {
          nodeId: deps.nodeId,
          ...deps.node,
          ...(workerDeps && { workerId: workerDeps.id }),
        })
      : undefined;
  const parts = {
    deps,
    config,
    store,
    coordinator,
    runner,
    clock,
    metrics,
    secretMask,
    workflows,
    runs,
    backfills,
    externalRuns,
    scheduler,
    logs,
    worker,
    workers,
    views,
    events,
    live,
    presence,
    alerts,
    alertRules,
    teamSecrets,
    audit,
    workflowId,
  };
  return { ...parts, lifecycle: new EngineLifecycle(parts) };
}

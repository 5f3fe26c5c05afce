// What a host gives an engine: its adapters, its identity, its settings, and what pure core may
// not reach for itself (the machine's time zone, randomness, a turn of the event loop: the Node
// hosts give theirs, see hosts/node/host-defaults.ts).
import type { AccessApi } from '../api/access.ts';
import type { Authenticator } from './access/authenticator.ts';
import type { EngineInfo } from '../api/engine-api.ts';
import type { CronUser } from '../api/import-report.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type { EngineMetrics } from '../ports/metrics.ts';
import type { ProcessRunner } from '../ports/process-runner.ts';
import type { Store } from '../ports/store.ts';
import type { EngineAlertsDeps } from './alerts/engine-alerts.ts';
import type { EngineConfig } from './model/config.ts';
import type { SecretMask } from './secrets/secret-mask.ts';
import type { TeamSecretsDeps } from './secrets/team-secrets.ts';
import type { CwdCheck } from './workflow/spec-warnings.ts';
import type { WorkerOptions } from './execution/worker.ts';
import type { NextTurn } from './workflow/workflow-cache.ts';

/** What the host knows and the engine does not: shown by engineInfo (the settings screen). */
export type HostInfo = Partial<
  Omit<
    EngineInfo,
    | 'logRetentionDays'
    | 'workerHeartbeatMs'
    | 'taskHeartbeatMs'
    | 'queueAlertThreshold'
    | 'nodeId'
    | 'timezone'
    | 'schedulingPaused'
  >
>;

/** The embedded worker's options as the host gives them: the rest comes from the engine's config and deps. */
export type EmbeddedWorkerOptions = Omit<
  WorkerOptions,
  'workerHeartbeatMs' | 'taskHeartbeatMs' | 'killGraceMs' | 'maxLineBytes' | 'maxConcurrency' | 'metrics' | 'random'
> & {
  maxConcurrency?: number;
};

export interface EngineDeps {
  store: Store;
  coordinator: Coordinator;
  runner: ProcessRunner;
  clock: Clock;
  config?: Partial<EngineConfig>;
  /** the embedded worker; omit for a scheduler-only or client-only engine */
  worker?: EmbeddedWorkerOptions;
  /**
   * More identities of the embedded worker in this process (ax serve --simulate N): each a Worker
   * of its own (its id, heartbeat, queue and slots) with the embedded worker's other options,
   * over the same store, coordinator, runner and log writer.
   */
  moreWorkerIds?: string[];
  /** identity of this engine for the leader lease */
  nodeId: string;
  /**
   * Where this engine runs: with it, a scheduler engine announces itself (see node-presence.ts)
   * so that `ax workers` lists it and can mark the leader. Team hosts give it.
   */
  node?: { host: string; pid: number; version: string };
  /** run the scheduler (cron, dispatch, backstops); false for worker-only and client nodes */
  runScheduler?: boolean;
  /**
   * What start-up recovery may claim: `all` in solo mode (this engine holds the data dir, so
   * every active instance is an orphan); `own` in team mode (only what this worker id left).
   */
  recovery?: 'all' | 'own';
  onAlert?: (message: string) => void;
  /** alert routing (settings.json `alerts`) and the channels built from it; none: alerts are recorded, not sent */
  alerts?: EngineAlertsDeps['alerts'];
  /** `ax drain` reached this node's worker */
  onDrainRequested?: () => void;
  /** told what start() is waiting for at each of its steps, so a start that hangs can say where */
  onStartStep?: (step: string) => void;
  /** host resources to release with the engine */
  onDispose?: () => void;
  /** mode, version, connections, data dir: for engineInfo */
  hostInfo?: HostInfo;
  /** solo hosts: whether a task's cwd can be entered here, for validate's warnings */
  checkCwd?: CwdCheck;
  /** what the engine counts and exports (GET /metrics); default: nothing */
  metrics?: EngineMetrics;
  /** the node's masking step (the host shares it with its alert channels); default one of the engine's own */
  secretMask?: SecretMask;
  /** the host's alert settings and channels read again (settings.json); none: they are fixed at start */
  reloadAlerts?: () => NonNullable<EngineAlertsDeps['alerts']>;
  /**
   * The time zone of the host's machine (an IANA name), asked each time it is needed: the
   * default zone of a workflow file that names none, of a fire preview, and engineInfo's.
   */
  zone: () => string;
  /**
   * The user this node's tasks run as (the run-as setting, else the node's own user): a crontab
   * pasted into the UI is converted as theirs (cron's HOME and LOGNAME). None: a node that runs
   * no tasks, whose imports name no user.
   */
  /** the people API (issue 25): the team's accounts service; default soloAccess() (one local admin) */
  access?: AccessApi;
  /**
   * team mode: how the server finds who a request is (sessions, tokens, sign-in); the same
   * accounts service as `access`. The server reads it as `engine.authenticator`.
   */
  authenticator?: Authenticator;
  /**
   * team mode: the team secrets' table and this node's key (hosts/node/team-secret-key.ts); the
   * embedded worker resolves its tasks' team secrets through them unless its options bring a
   * resolver of their own (a token-only worker's). None: solo, where the methods say "team mode only".
   */
  teamSecrets?: TeamSecretsDeps;
  taskUser?: CronUser;
  /** the host's randomness, in [0, 1): the `random` routing strategy, claim tokens, test alerts' keys */
  random: () => number;
  /** a turn of the host's event loop, between the slices of a large graph's indexing */
  nextTurn: NextTurn;
}

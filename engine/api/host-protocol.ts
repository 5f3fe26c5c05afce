// The messages between the engine host (a utility process of the desktop app, or any Node
// process forked with IPC) and its parent: the protocol is described at the top of
// engine/hosts/port/engine-host.ts. Here as types, so the desktop shell, which imports only
// engine/api, speaks it too.
import type { AlertRecord } from './alerts.ts';

/** What a new engine found that a dead one had left (its start-up recovery). */
export interface HostRecovery {
  /** RUNNING instances failed: "engine restarted" solo (retried where retries remain), failed over in team mode (no retry spent) */
  failed: number;
  /** DISPATCHED instances that never started, back to WAITING */
  requeued: number;
  /** leftover task process groups killed */
  killed: number;
}

export interface HostReady {
  type: 'ready';
  pid: number;
  dataDir: string;
  version: string;
  recovery: HostRecovery;
  /**
   * the local API's port on 127.0.0.1 when the host was started with `--local-api` (the desktop
   * app's setting): `ax` commands and a browser reach this engine there, with the data dir's token
   */
  apiPort?: number;
}

/** What a desktop notification needs of an alert (engine/api/alerts.ts). */
export type DesktopAlert = Pick<
  AlertRecord,
  'id' | 'rule' | 'severity' | 'title' | 'message' | 'kind' | 'workflow' | 'runId' | 'instanceId' | 'repeats'
>;

/** Host → parent. */
export type HostMessage =
  | HostReady
  /** the engine could not start; the host exits non-zero. code: an AxErrorCode (conflict: another engine holds the data dir) */
  | { type: 'failed'; code: string; message: string }
  | { type: 'alert'; message: string }
  /** an alert routed to the `desktop` channel: the shell shows it as a notification */
  | { type: 'desktop-alert'; alert: DesktopAlert }
  /** the team worker's state changed (after a team-join or team-leave, a drain asked by the team, a failure) */
  | HostTeamStatus
  /** a reply or an event for IPC client `client` */
  | { type: 'api'; client: number; message: unknown }
  /** IPC client `client` is closed by the host (the engine stops, or it was never opened) */
  | { type: 'closed'; client: number; reason: string };

/** Parent → host. */
export type ParentMessage =
  /** utilityProcess: the one transferred MessagePort becomes a client */
  | { type: 'connect' }
  /** IPC: client `client` (a number the parent picks) opens, speaks, leaves */
  | { type: 'open'; client: number }
  | { type: 'api'; client: number; message: unknown }
  | { type: 'close'; client: number }
  /** drain (running tasks get up to drainTimeoutMs, default 30 s), stop, exit 0 */
  | { type: 'stop'; drainTimeoutMs?: number }
  /**
   * join the team as a temporary worker, through the server with the token (or, without them, with
   * the database connection strings) of DESKTOP_SECRETS_ENV or the last 'team-secrets'; labels
   * default DEFAULT_TEAM_LABELS (through a server: the token's)
   */
  | ({ type: 'team-join' } & TeamJoinOptions)
  /** the team worker drains (running tasks get up to drainTimeoutMs, default 30 s), deregisters, closes */
  | { type: 'team-leave'; drainTimeoutMs?: number }
  /** the desktop app's task secrets changed: all of them, decrypted, replacing what the host had */
  | { type: 'task-secrets'; values: Record<string, string> }
  /** the desktop app's team connection changed (server, token, CA file, MySQL, Redis): all of it, used from the next join */
  | { type: 'team-secrets'; values: Record<string, string> };

/**
 * This machine as a temporary worker of a team, beside the solo engine (design.md §6): left (not a
 * member), joining, joined (taking tasks labelled for it), leaving (draining), or failed (could
 * not join, or was pushed out: message says what to fix).
 */
/**
 * What a joining laptop takes: tasks whose labels are all among `labels` (default "laptop"),
 * and, only when the person says so, tasks without labels too (design.md §12: nothing unlabelled
 * by default: any teammate's unlabelled task would run here).
 */
export interface TeamJoinOptions {
  labels?: string[];
  acceptUnlabelled?: boolean;
}

export type TeamWorkerState = 'left' | 'joining' | 'joined' | 'leaving' | 'failed';

export interface TeamWorkerStatus {
  state: TeamWorkerState;
  workerId?: string;
  /** the labels it offers: it takes only tasks whose labels are all among them */
  labels?: string[];
  /** it also takes tasks without labels (the person chose so when joining) */
  acceptUnlabelled?: boolean;
  /** tasks it runs now (joined) */
  running?: number;
  /** joined through this team node's server (an edge worker: no database credentials here); absent: straight to the database */
  server?: string;
  /** failed: what went wrong and what to fix */
  message?: string;
  /** failed: the AxError code, when there is one (unavailable: a server could not be reached) */
  code?: string;
  /** left because the team asked (`ax drain WORKER`): the shell stops wanting to be in the team */
  drainedByTeam?: boolean;
}

export interface HostTeamStatus extends TeamWorkerStatus {
  type: 'team';
}

/** What a laptop offers when its owner names no labels: it takes tasks labelled "laptop", nothing unlabelled. */
export const DEFAULT_TEAM_LABELS: readonly string[] = ['laptop'];

/** How long running tasks may finish when the host stops without being told (parent gone, SIGTERM). */
export const HOST_DRAIN_TIMEOUT_MS = 30_000;

/**
 * The environment variable that carries the desktop app's decrypted team connection strings to
 * the engine host, as JSON ({"server": "https://…", "token": "…", "caFile": "/…",
 * "mysql": "...", "redis": "...", "tasks": {"api-token": "..."}}): never on the command line (which
 * every user of the machine can list), never in a message that could be logged. The host takes
 * it out of its environment first thing, so its tasks and launchers never inherit it.
 */
export const DESKTOP_SECRETS_ENV = 'AX_DESKTOP_SECRETS';

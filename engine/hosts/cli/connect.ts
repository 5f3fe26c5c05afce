// How a command reaches the engine: through a server it signed in to (`ax login`, --server,
// AX_SERVER: remote-target.ts), through `ax serve` when one runs on the data dir, otherwise
// directly on the data dir (an engine that answers the API but runs no loops), or, for
// commands that must execute work, an embedded engine that holds the data dir meanwhile.
import fs from 'node:fs';
import os from 'node:os';
import type { EngineApi } from '../../api/engine-api.ts';
import { AxError } from '../../api/errors.ts';
import { notRetryable } from '../../core/support/store-retry.ts';
import { connectApi, type TlsTrust } from '../../server/ws-client.ts';
import { apiToken, readEngineLock, resolveDataDir } from '../node/data-dir.ts';
import { type HeldEngine, holdSoloEngine } from '../node/held-engine.ts';
import { effectiveSettings } from '../node/settings.ts';
import { openSoloEngine } from '../node/solo.ts';
import { openTeamEngine, teamConnection } from '../node/team.ts';
import { EXIT } from './exit-codes.ts';
import { apiUrlOf, type RemoteTarget, remoteTarget } from './remote-target.ts';

export interface GlobalOptions {
  dataDir?: string;
  /** solo (default) or team; env AX_MODE */
  mode?: string;
  mysql?: string;
  /** the team database when it is PostgreSQL; env AX_POSTGRES_URL */
  postgres?: string;
  redis?: string;
  redisPrefix?: string;
  /** --redis-cluster: the Redis is a Redis Cluster (else AX_REDIS_CLUSTER, else asked of the server) */
  redisCluster?: boolean;
  /** what tasks get of this node's environment: inherit or clean (task-env.ts); env AX_TASK_ENV */
  taskEnv?: string;
  /** the user a root node runs its tasks as; env AX_RUN_AS */
  runAs?: string;
  /** --server URL (or "local"); env AX_SERVER */
  server?: string;
  /** set by withSettings: --data-dir, --mode, --mysql or --postgres was given as a flag (this machine, not the default server) */
  localFlags?: boolean;
}

/** The flags of the node settings a command's engine takes as they are (task-env.ts reads the rest). */
export const taskEnvFlags = (options: GlobalOptions) => ({ 'task-env': options.taskEnv, 'run-as': options.runAs });

/** Fills what neither a flag nor the environment gives from DATA_DIR/settings.json (see effectiveSettings). */
export function withSettings<T extends GlobalOptions>(options: T): T {
  const localFlags =
    options.dataDir !== undefined ||
    options.mode !== undefined ||
    options.mysql !== undefined ||
    options.postgres !== undefined;
  const flags = {
    mode: options.mode,
    mysql: options.mysql,
    postgres: options.postgres,
    redis: options.redis,
    'redis-prefix': options.redisPrefix,
  };
  const value = new Map(effectiveSettings(cliDataDir(options.dataDir), flags).map((s) => [s.key, s.value]));
  return {
    ...options,
    localFlags,
    mode: value.get('mode'),
    mysql: value.get('mysql'),
    postgres: value.get('postgres'),
    redis: value.get('redis'),
    redisPrefix: value.get('redis-prefix'),
  };
}

export function modeOf(options: GlobalOptions): 'solo' | 'team' {
  const mode = options.mode ?? process.env.AX_MODE ?? 'solo';
  if (mode !== 'solo' && mode !== 'team') throw new AxError('validation', `unknown mode "${mode}": use solo or team`);
  return mode;
}

/**
 * The data dir of a command, made and checked; when AX had to make it private, the line saying
 * so goes to stderr (this happens once: the dir stays private after).
 */
/** The program's global options as a command reads them, with --json. */
export type Globals = () => GlobalOptions & { json?: boolean };

/** Where a server's runs go on after Ctrl-C stops waiting for them. */
export const serverSide = (g: GlobalOptions) => {
  const remote = remoteOf(g);
  return remote ? `on ${remote.origin}` : modeOf(g) === 'team' ? "on the team's workers" : 'in ax serve';
};

/** The server a command goes through, or undefined for this machine (remote-target.ts). */
export function remoteOf(g: GlobalOptions): RemoteTarget | undefined {
  return remoteTarget({ server: g.server, local: g.localFlags === true });
}

export const cliDataDir = (flag?: string): string => resolveDataDir(flag, (line) => process.stderr.write(`${line}\n`));

export const actor = (): string => `${os.userInfo().username}@${os.hostname()}`;

/** remote: the work runs elsewhere (a running `ax serve`, or the team's workers). */
export type Connection = { api: EngineApi; remote: boolean; close(): Promise<void> };

/** How this machine reaches the `ax serve` of a data dir: ws, or wss pinned to its --tls-cert file. */
export function localServer(port: number, tlsCert: string | undefined): { origin: string; trust?: TlsTrust } {
  if (!tlsCert) return { origin: `http://127.0.0.1:${port}` };
  let pinnedCert: string;
  try {
    pinnedCert = fs.readFileSync(tlsCert, 'utf8');
  } catch (err) {
    throw new AxError(
      'unavailable',
      `the ax serve on port ${port} uses TLS with ${tlsCert}, which cannot be read here (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  return { origin: `https://127.0.0.1:${port}`, trust: { pinnedCert } };
}

export async function connect(options: GlobalOptions): Promise<Connection> {
  const remote = remoteOf(options);
  if (remote) {
    const { origin, token, trust } = remote;
    const api = await connectApi(apiUrlOf(origin), token, trust);
    return { api, remote: true, close: async () => api.close() };
  }
  if (modeOf(options) === 'team') {
    // Straight to the team's database and Redis, as a client: the team's schedulers and workers run the work.
    // Its data dir's team key (team-secret-key.ts) encrypts what `ax secrets set --team` sends.
    const engine = await openTeamEngine({
      ...teamConnection(options),
      role: 'client',
      dataDir: cliDataDir(options.dataDir),
    });
    return { api: engine, remote: true, close: () => engine.dispose() };
  }
  const dir = cliDataDir(options.dataDir);
  const holder = readEngineLock(dir);
  if (holder?.port) {
    const local = localServer(holder.port, holder.tlsCert);
    const api = await connectApi(apiUrlOf(local.origin), apiToken(dir), local.trust);
    return { api, remote: true, close: async () => api.close() };
  }
  const engine = await openSoloEngine(dir, { taskEnvFlags: taskEnvFlags(options) });
  return { api: engine, remote: false, close: () => engine.dispose() };
}

export async function withApi<T>(
  options: GlobalOptions,
  fn: (api: EngineApi, remote: boolean) => Promise<T>,
): Promise<T> {
  const c = await connect(options);
  try {
    return await fn(c.api, c.remote);
  } finally {
    await c.close();
  }
}

/**
 * An engine in this process that runs work: it holds the data dir until released. Should its
 * ax.db be deleted or replaced meanwhile, it says so on stderr, takes no more work (the store
 * refuses every write, so API clients are refused too), lets running tasks finish for up to
 * drainTimeoutMs, printing the outcomes it cannot record, and ends the process with exit 6.
 */
export async function embeddedEngine(
  options: GlobalOptions & {
    concurrency?: number;
    fireSchedules?: boolean;
    onDrainRequested?: () => void;
    drainTimeoutMs?: number;
  },
  command: string,
): Promise<HeldEngine> {
  const drainMs = options.drainTimeoutMs ?? 30_000;
  return holdSoloEngine(cliDataDir(options.dataDir), command, {
    config: { fireSchedules: options.fireSchedules ?? true },
    maxConcurrency: options.concurrency,
    taskEnvFlags: taskEnvFlags(options),
    onAlert: (message) => process.stderr.write(`ax: ${message}\n`),
    onDrainRequested: options.onDrainRequested,
    onStoreLost: (error, release) => {
      process.exitCode = EXIT.storage;
      process.stderr.write(
        `ax: ${error.message}; running tasks may finish for up to ${drainMs / 1000}s, their outcomes printed here\n`,
      );
      void release(drainMs)
        .catch((err: unknown) => {
          // The same refusal again (a last heartbeat, a flush) is no news.
          if (!notRetryable(err))
            process.stderr.write(`ax: while stopping: ${err instanceof Error ? err.message : String(err)}\n`);
        })
        .finally(() => process.exit(EXIT.storage));
    },
  });
}

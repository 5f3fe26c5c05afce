// How a command reaches the engine: through `ax serve` when one runs on the data dir, otherwise
// directly on the data dir (an engine that answers the API but runs no loops), or, for
// commands that must execute work, an embedded engine that holds the data dir meanwhile.
import os from 'node:os';
import type { EngineApi } from '../../api/engine-api.ts';
import { AxError } from '../../api/errors.ts';
import type { Engine } from '../../core/engine.ts';
import { connectApi } from '../../server/ws-client.ts';
import { acquireEngineLock, apiToken, type EngineLock, readEngineLock, resolveDataDir } from '../node/data-dir.ts';
import { readSettings } from '../node/settings.ts';
import { openSoloEngine } from '../node/solo.ts';
import { openTeamEngine, teamConnection } from '../node/team.ts';

export interface GlobalOptions {
  dataDir?: string;
  /** solo (default) or team; env AX_MODE */
  mode?: string;
  mysql?: string;
  redis?: string;
  redisPrefix?: string;
}

/** Fills what neither a flag nor the environment gives from DATA_DIR/settings.json. */
export function withSettings<T extends GlobalOptions>(options: T): T {
  const s = readSettings(resolveDataDir(options.dataDir));
  const env = process.env;
  return {
    ...options,
    mode: options.mode ?? env.AX_MODE ?? s.mode,
    mysql: options.mysql ?? env.AX_MYSQL_URL ?? s.mysql,
    redis: options.redis ?? env.AX_REDIS_URL ?? s.redis,
    redisPrefix: options.redisPrefix ?? env.AX_REDIS_PREFIX ?? s.redisPrefix,
  };
}

export function modeOf(options: GlobalOptions): 'solo' | 'team' {
  const mode = options.mode ?? process.env.AX_MODE ?? 'solo';
  if (mode !== 'solo' && mode !== 'team') throw new AxError('validation', `unknown mode "${mode}": use solo or team`);
  return mode;
}

export const actor = (): string => `${os.userInfo().username}@${os.hostname()}`;

/** remote: the work runs elsewhere (a running `ax serve`, or the team's workers). */
export type Connection = { api: EngineApi; remote: boolean; close(): Promise<void> };

export async function connect(options: GlobalOptions): Promise<Connection> {
  if (modeOf(options) === 'team') {
    // Straight to the team's MySQL and Redis, as a client: the team's schedulers and workers run the work.
    const engine = await openTeamEngine({ ...teamConnection(options), role: 'client' });
    return { api: engine, remote: true, close: () => engine.dispose() };
  }
  const dir = resolveDataDir(options.dataDir);
  const holder = readEngineLock(dir);
  if (holder?.port) {
    const api = await connectApi(`ws://127.0.0.1:${holder.port}/api`, apiToken(dir));
    return { api, remote: true, close: async () => api.close() };
  }
  const engine = await openSoloEngine(dir);
  return { api: engine, remote: false, close: () => engine.dispose() };
}

export async function withApi<T>(options: GlobalOptions, fn: (api: EngineApi, remote: boolean) => Promise<T>): Promise<T> {
  const c = await connect(options);
  try {
    return await fn(c.api, c.remote);
  } finally {
    await c.close();
  }
}

/** An engine in this process that runs work: it holds the data dir until released. */
export async function embeddedEngine(
  options: GlobalOptions & { concurrency?: number; fireSchedules?: boolean; onDrainRequested?: () => void },
  command: string,
): Promise<{ engine: Engine; dir: string; lock: EngineLock; release(drainTimeoutMs: number): Promise<void> }> {
  const dir = resolveDataDir(options.dataDir);
  const lock = acquireEngineLock(dir, command);
  try {
    const engine = await openSoloEngine(dir, {
      config: { fireSchedules: options.fireSchedules ?? true },
      maxConcurrency: options.concurrency,
      onAlert: (message) => process.stderr.write(`ax: ${message}\n`),
      onDrainRequested: options.onDrainRequested,
    });
    await engine.start();
    return {
      engine,
      dir,
      lock,
      async release(drainTimeoutMs: number) {
        await engine.stop(drainTimeoutMs);
        await engine.dispose();
        lock.release();
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

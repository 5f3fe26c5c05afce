// Wiring for team mode: MySQL store, Redis coordinator, and the node's role.
import os from 'node:os';
import { NodeProcessRunner } from '../../adapters/process/node-process-runner.ts';
import { RedisCoordinator } from '../../adapters/redis/redis-coordinator.ts';
import { openMysqlStore } from '../../adapters/sql/mysql-store.ts';
import { systemClock } from '../../adapters/system-clock.ts';
import { AxError } from '../../api/errors.ts';
import { DEFAULT_CONFIG, type EngineConfig } from '../../core/config.ts';
import { OrphanWatchdog } from '../../adapters/process/orphan-watchdog.ts';
import { Engine } from '../../core/engine.ts';
import { configFromEnv } from './config-env.ts';
import { VERSION } from './version.ts';

export type TeamRole = 'scheduler' | 'worker' | 'client';

export interface TeamOptions {
  mysqlUrl: string;
  redisUrl: string;
  redisPrefix?: string;
  role: TeamRole;
  /** a scheduler node also works unless told not to */
  schedulerWorks?: boolean;
  workerId?: string;
  labels?: string[];
  /**
   * A temporary worker (a laptop joining) accepts only tasks labelled for it; `accept` widens
   * that: "unlabelled", or workflow names.
   */
  temporary?: boolean;
  acceptUnlabelled?: boolean;
  acceptWorkflows?: string[];
  maxConcurrency?: number;
  config?: Partial<EngineConfig>;
  onAlert?: (message: string) => void;
  onDrainRequested?: () => void;
}

export interface TeamConnection {
  mysqlUrl: string;
  redisUrl: string;
  redisPrefix: string;
}

/** Connection settings from flags, then env (AX_MYSQL_URL, AX_REDIS_URL, AX_REDIS_PREFIX). */
export function teamConnection(flags: { mysql?: string; redis?: string; redisPrefix?: string }): TeamConnection {
  const mysqlUrl = flags.mysql ?? process.env.AX_MYSQL_URL;
  const redisUrl = flags.redis ?? process.env.AX_REDIS_URL;
  const missing = [!mysqlUrl && 'MySQL (--mysql URL or AX_MYSQL_URL)', !redisUrl && 'Redis (--redis URL or AX_REDIS_URL)'].filter(Boolean);
  if (missing.length) throw new AxError('validation', `team mode needs ${missing.join(' and ')}`);
  return { mysqlUrl: mysqlUrl as string, redisUrl: redisUrl as string, redisPrefix: flags.redisPrefix ?? process.env.AX_REDIS_PREFIX ?? 'ax:' };
}

export async function openTeamEngine(options: TeamOptions): Promise<Engine> {
  const config = { ...configFromEnv(), ...options.config };
  const store = await openMysqlStore({ url: options.mysqlUrl });
  const coordinator = new RedisCoordinator({
    url: options.redisUrl,
    prefix: options.redisPrefix,
    onConnectionError: (err) => options.onAlert?.(`redis: ${err.message}`),
  });
  const works = options.role === 'worker' || (options.role === 'scheduler' && options.schedulerWorks !== false);
  const workerId = options.workerId ?? os.hostname();
  // If this worker dies, its tasks must not run on beside the re-runs fail-over starts elsewhere.
  const watchdog = works ? new OrphanWatchdog(process.pid, config.killGraceMs ?? DEFAULT_CONFIG.killGraceMs) : undefined;
  watchdog?.start();
  return new Engine({
    store,
    coordinator,
    runner: new NodeProcessRunner({ watchdog }),
    onDispose: () => watchdog?.stop(),
    clock: systemClock,
    config,
    nodeId: `${workerId}:${process.pid}`,
    runScheduler: options.role === 'scheduler',
    recovery: 'own',
    onAlert: options.onAlert,
    onDrainRequested: options.onDrainRequested,
    worker: works
      ? {
          id: workerId,
          host: os.hostname(),
          pid: process.pid,
          version: VERSION,
          labels: options.labels ?? [],
          acceptUnlabelled: options.acceptUnlabelled ?? !options.temporary,
          acceptWorkflows: options.acceptWorkflows,
          role: options.role,
          maxConcurrency: options.maxConcurrency,
          baseEnv: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
        }
      : undefined,
  });
}

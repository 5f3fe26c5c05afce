// Wiring for team mode: the team database (MySQL or PostgreSQL), Redis coordinator, and the node's role.
import os from 'node:os';
import { PromMetrics } from '../../adapters/metrics/prom-metrics.ts';
import { systemClock } from '../../adapters/system-clock.ts';
import { clusterPrefix } from '../../adapters/redis/redis-keys.ts';
import { checkClusterUrl, checkRedisUrl, clusterSetting } from '../../adapters/redis/redis-url.ts';
import { checkTeamDatabaseUrl, openTeamStore, teamDatabaseKind } from '../../adapters/sql/team-store.ts';
import { AxError } from '../../api/errors.ts';
import { DEFAULT_CONFIG, type EngineConfig } from '../../core/model/config.ts';
import { Engine } from '../../core/engine.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import { configFromEnv } from './config-env.ts';
import { howToSet, maskUrl, nodeLogLimit, type Settings } from './settings.ts';
import { nodeTaskEnv, taskUserOf } from './task-env.ts';
import { resolveDataDir } from './data-dir.ts';
import { defaultWorkerId, holderGoneHere, nodeKey } from './node-identity.ts';
import { taskRunner } from './task-runner.ts';
import { SimulatedProcessRunner } from '../../adapters/process/simulated-process-runner.ts';
import { SecretsFile } from './secrets-file.ts';
import { teamCipher } from './team-secret-key.ts';
import { SecretMask, urlPassword } from '../../core/secrets/secret-mask.ts';
import { type AlertOptions, loadAlerts } from './alert-channels.ts';
import { VERSION } from './version.ts';
import { invalidEventReporter } from './invalid-events.ts';
import { nodeHostDefaults } from './host-defaults.ts';
import { AccessService } from '../../core/access/access-service.ts';
import { nodeCrypto } from '../../adapters/crypto/node-crypto.ts';

export type TeamRole = 'scheduler' | 'worker' | 'client';

/** the most identities one simulating process holds (ax serve --simulate) */
export const MAX_SIMULATED_WORKERS = 1_000;

export interface TeamOptions {
  /** the team database: a mysql:// URL, or a postgres:// one (given by --postgres): team-store.ts */
  mysqlUrl: string;
  redisUrl: string;
  redisPrefix?: string;
  /** the Redis is a Redis Cluster (true) or a single Redis (false); default: asked of the server */
  redisCluster?: boolean;
  role: TeamRole;
  /** a scheduler node also works unless told not to */
  schedulerWorks?: boolean;
  /** default: the host name plus a suffix kept in the data dir (see node-identity.ts) */
  workerId?: string;
  /** where the default worker id's suffix and slots live; default the resolved data dir */
  dataDir?: string;
  labels?: string[];
  /**
   * A temporary worker (a laptop joining) accepts only tasks labelled for it; `accept` widens
   * that: "unlabelled", or workflow names.
   */
  temporary?: boolean;
  acceptUnlabelled?: boolean;
  acceptWorkflows?: string[];
  maxConcurrency?: number;
  /**
   * A worker node only: this many simulated worker identities, `<worker id>-sim-1..N`, whose tasks
   * spawn nothing (adapters/process/simulated-process-runner.ts): a capacity-planning tool.
   */
  simulate?: number;
  config?: Partial<EngineConfig>;
  onAlert?: (message: string) => void;
  onDrainRequested?: () => void;
  /** told what the opening and the engine's start wait for at each step (ax serve says it when a start hangs) */
  onStartStep?: (step: string) => void;
  /** another node took this worker's id (this one was judged lost) */
  onIdentityLost?: () => void;
  /** this node's task secrets; default the data dir's (secrets-file.ts): never the team's store */
  secrets?: SecretSource;
  /** alert channels the host adds, and settings for tests; default the data dir's settings.json */
  alerts?: AlertOptions;
  /** task-env and run-as as given by flags; else AX_TASK_ENV / AX_RUN_AS, else settings.json (task-env.ts) */
  taskEnvFlags?: Settings;
}

export interface TeamConnection {
  /** the team database: a mysql:// URL, or a postgres:// one (given by --postgres) */
  mysqlUrl: string;
  redisUrl: string;
  redisPrefix: string;
  redisCluster?: boolean;
}

/**
 * Connection settings from flags, then env (AX_MYSQL_URL or AX_POSTGRES_URL, AX_REDIS_URL,
 * AX_REDIS_PREFIX, AX_REDIS_CLUSTER). The team database is MySQL or PostgreSQL, never both: given
 * both, it says so.
 */
export function teamConnection(flags: {
  mysql?: string;
  postgres?: string;
  redis?: string;
  redisPrefix?: string;
  redisCluster?: boolean;
}): TeamConnection {
  const mysqlUrl = flags.mysql ?? process.env.AX_MYSQL_URL;
  const postgresUrl = flags.postgres ?? process.env.AX_POSTGRES_URL;
  const redisUrl = flags.redis ?? process.env.AX_REDIS_URL;
  if (mysqlUrl && postgresUrl)
    throw new AxError(
      'validation',
      `team mode uses one database, and both are given: MySQL ${maskUrl(mysqlUrl)} and PostgreSQL ${maskUrl(postgresUrl)}; keep one (--mysql or AX_MYSQL_URL or "ax settings set mysql", --postgres or AX_POSTGRES_URL or "ax settings set postgres")`,
    );
  if (mysqlUrl && teamDatabaseKind(mysqlUrl) === 'postgres')
    throw new AxError('validation', `--mysql ${maskUrl(mysqlUrl)} is a PostgreSQL URL: give it with --postgres`);
  if (postgresUrl && teamDatabaseKind(postgresUrl) === 'mysql')
    throw new AxError('validation', `--postgres ${maskUrl(postgresUrl)} is a MySQL URL: give it with --mysql`);
  const databaseUrl = mysqlUrl ?? postgresUrl;
  const missing = [
    !databaseUrl &&
      `a database: give ${howToSet('mysql', 'mysql://USER:PASSWORD@HOST:3306/DATABASE')}; or for PostgreSQL ${howToSet('postgres', 'postgres://USER:PASSWORD@HOST:5432/DATABASE')}`,
    !redisUrl && `Redis: give ${howToSet('redis', 'redis://HOST:6379')}`,
  ].filter(Boolean);
  if (missing.length) throw new AxError('validation', `team mode needs ${missing.join('; and ')}`);
  return {
    mysqlUrl: databaseUrl as string,
    redisUrl: redisUrl as string,
    redisPrefix: flags.redisPrefix ?? process.env.AX_REDIS_PREFIX ?? 'ax:',
    redisCluster: flags.redisCluster ?? clusterSetting(process.env.AX_REDIS_CLUSTER),
  };
}

export async function openTeamEngine(options: TeamOptions): Promise<Engine> {
  checkSimulate(options);
  // Without a data dir given (the CLI's team commands), the default one; made private, it says so.
  const dataDir = options.dataDir ?? resolveDataDir(undefined, (line) => process.stderr.write(`${line}\n`));
  const config = { maxOutputBytes: nodeLogLimit(dataDir), ...configFromEnv(), ...options.config };
  // The node's one masking step: every secret resolved here (tasks', alert channels') is masked
  // in whatever leaves the engine (core/secrets/secret-mask.ts).
  const secretMask = new SecretMask();
  const secrets = secretMask.watch(options.secrets ?? new SecretsFile(dataDir));
  // The connection strings' passwords are secrets too: a driver's error may quote them.
  secretMask.add([options.mysqlUrl, ...options.redisUrl.split(',')].flatMap(urlPassword));
  const alerts = loadAlerts(dataDir, secrets, options.alerts);
  const works = options.role === 'worker' || (options.role === 'scheduler' && options.schedulerWorks !== false);
  const taskEnv = works ? nodeTaskEnv(dataDir, options.taskEnvFlags) : undefined;
  // This node's identity on its data dir, before anything is opened: a refusal here must not
  // leave a pool or a Redis connection keeping the process alive after its error.
  const key = works ? nodeKey(dataDir) : undefined;
  const slot = works && !options.workerId ? defaultWorkerId(dataDir) : undefined;
  // Loaded here, not at the top: a solo engine never loads mysql2, pg and ioredis (about 20 MB).
  // (team-store.ts loads the database's driver when it opens it.)
  const [{ RedisCoordinator }, { detectRedisCluster }] = await Promise.all([
    import('../../adapters/redis/redis-coordinator.ts'),
    import('../../adapters/redis/redis-open.ts'),
  ]);
  // What is open so far, closed again if the start is refused: a pool or a Redis connection left
  // open would keep the process alive, silent, after its error.
  const opened: Array<() => unknown> = [() => slot?.release()];
  try {
    // Both strings checked before either is opened: a bad Redis URL must not leave a database pool open (the command would hang after its error).
    await checkTeamDatabaseUrl(options.mysqlUrl);
    checkRedisUrl(options.redisUrl);
    const say = options.onAlert ?? ((message: string) => process.stderr.write(`ax: ${message}\n`));
    const forcedCluster = options.redisCluster ?? clusterSetting(process.env.AX_REDIS_CLUSTER);
    options.onStartStep?.('opening the team database (and upgrading its schema if this version is newer)');
    const store = await openTeamStore(options.mysqlUrl, { onNote: say });
    opened.push(() => store.close());
    options.onStartStep?.('asking Redis whether it is a cluster');
    // A Redis Cluster when told, or when the server says so (INFO cluster): see redis-open.ts. A
    // client (an `ax` command) keeps quiet when Redis cannot be asked, as it did before clusters.
    const cluster = await detectRedisCluster(
      options.redisUrl,
      forcedCluster,
      options.role === 'client' ? undefined : say,
    );
    if (cluster) {
      checkClusterUrl(options.redisUrl);
      clusterPrefix(options.redisPrefix ?? 'ax:');
    }
    const { SqlTeamSecretStore } = await import('../../adapters/sql/team-secret-queries.ts');
    const metrics = new PromMetrics();
    const coordinator = new RedisCoordinator({
      url: options.redisUrl,
      prefix: options.redisPrefix,
      cluster,
      onConnectionError: (err) => options.onAlert?.(`redis: ${err.message}`),
      onInvalidEvent: invalidEventReporter({ metrics, say, source: `Redis (prefix ${options.redisPrefix ?? 'ax:'})` }),
    });
    opened.push(() => coordinator.close());
    // The team's people (issue 25): accounts in the team database, scrypt and tokens by node:crypto.
    // A call straight to this engine (the CLI on this node, with the database's password) is an admin.
    const access = new AccessService({ store, clock: systemClock, crypto: nodeCrypto, nodeUser: nodeUserName() });
    const baseId = options.workerId ?? slot?.id ?? os.hostname();
    const simulated = simulatedIds(options, baseId);
    const workerId = simulated?.[0] ?? baseId;
    const killGraceMs = config.killGraceMs ?? DEFAULT_CONFIG.killGraceMs;
    return new Engine({
      // The machine's zone, randomness and event loop, which pure core does not reach for itself.
      ...nodeHostDefaults(),
      access,
      authenticator: access,
      store,
      coordinator,
      // If this worker dies, its tasks must not run on beside the re-runs fail-over starts
      // elsewhere: the launchers kill them (see launcher-main.mjs).
      runner: simulated ? new SimulatedProcessRunner() : taskRunner(killGraceMs, options.onAlert, taskEnv?.runAs),
      ...(simulated && { moreWorkerIds: simulated.slice(1) }),
      onDispose: () => slot?.release(),
      // tasks of a node that runs none run elsewhere, as users this node cannot know
      ...(taskEnv && { taskUser: taskUserOf(taskEnv.runAs) }),
      clock: systemClock,
      config,
      nodeId: `${workerId}:${process.pid}`,
      node: { host: os.hostname(), pid: process.pid, version: VERSION },
      runScheduler: options.role === 'scheduler',
      recovery: 'own',
      metrics,
      onAlert: options.onAlert,
      alerts,
      secretMask,
      // Team secrets: in the team database, decrypted with this node's DATA_DIR/team-secret-key.
      teamSecrets: { store: new SqlTeamSecretStore(store.db), cipher: teamCipher(dataDir) },
      reloadAlerts: () => loadAlerts(dataDir, secrets, options.alerts),
      onDrainRequested: options.onDrainRequested,
      onStartStep: options.onStartStep,
      hostInfo: {
        version: VERSION,
        mode: 'team',
        role: works || options.role !== 'scheduler' ? options.role : 'scheduler (no work)',
        [teamDatabaseKind(options.mysqlUrl)]: maskUrl(options.mysqlUrl),
        redis: maskUrl(options.redisUrl),
        redisPrefix: options.redisPrefix,
        settings: {},
      },
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
            holderGone: holderGoneHere,
            nodeKey: key as string,
            onIdentityLost: options.onIdentityLost,
            secrets,
            // Never AX's own variables (the connection strings, the data dir): see task-env.ts.
            baseEnv: taskEnv?.baseEnv ?? {},
          }
        : undefined,
    });
  } catch (error) {
    for (const close of opened.reverse())
      await Promise.resolve()
        .then(close)
        .catch(() => undefined);
    throw error;
  }
}

/** The ids of a simulating worker node's identities, `<base>-sim-1..N`; none for a real node. */
function simulatedIds(options: TeamOptions, baseId: string): string[] | undefined {
  const n = options.simulate;
  return n === undefined ? undefined : Array.from({ length: n }, (_, i) => `${baseId}-sim-${i + 1}`);
}

/** --simulate checked before anything is opened (a refusal must not leave a pool open). */
function checkSimulate(options: TeamOptions): void {
  const n = options.simulate;
  if (n === undefined) return;
  if (options.role !== 'worker')
    throw new AxError('validation', `--simulate is for a worker node only: add --role worker (got ${options.role})`);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SIMULATED_WORKERS)
    throw new AxError(
      'validation',
      `--simulate takes a number of workers from 1 to ${MAX_SIMULATED_WORKERS} (got ${n})`,
    );
}

/** who the CLI on this node is in the audit of people changes: the OS user at this host */
function nodeUserName(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no passwd entry for this uid (a container): the host alone names the node
  }
  return `${user}@${os.hostname()}`;
}

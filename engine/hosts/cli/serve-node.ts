// ax serve's node, solo (scheduler + worker on a data dir) or team (a scheduler, worker or client
// on the shared MySQL + Redis): started, its API and UI served on 127.0.0.1, and stopped by a
// signal or a drain after letting running tasks finish.
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { Engine } from '../../core/engine.ts';
import { retrying } from '../../core/support/retry.ts';
import { systemClock } from '../../adapters/system-clock.ts';
import { checkTokenFiles, type LocalApi, metricsAuth, startLocalApi } from '../node/local-api.ts';
import { onHangup } from './hangup.ts';
import { announceUiNode } from './ui-nodes.ts';
import { checkSsoSettings } from '../node/sso.ts';
import { openTeamEngine, type TeamRole, teamConnection } from '../node/team.ts';
import { cliDataDir, embeddedEngine, type GlobalOptions, taskEnvFlags } from './connect.ts';
import { checkMetricsAddress, type MetricsAddress, serveMetricsAddress } from './metrics-address.ts';
import { apiUrl, type ListenFlags, listenNote, type ServeAddress, serveAddress } from './serve-listen.ts';

/** ax serve's options, as commander parses them. */
export interface ServeOptions extends ListenFlags {
  concurrency?: number;
  drainTimeout: number;
  role: string;
  work: boolean;
  workerId?: string;
  labels?: string;
  /** team, --role worker: this many simulated worker identities (a capacity-planning tool) */
  simulate?: number;
  temporary?: boolean;
  accept?: string;
  metricsAddress?: MetricsAddress;
  /** an edge worker's (serve-edge.ts) */
  server?: string;
  token?: string;
  tokenFile?: string;
  caFile?: string;
}

const ROLES: TeamRole[] = ['scheduler', 'worker', 'client'];
const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/**
 * Stops on SIGTERM/SIGINT (drain up to the timeout) or on `ax drain` (drain until done); SIGHUP
 * drains too on a terminal, and reloads the settings as a service (hangup.ts).
 */
export function stopOn(
  stop: (reason: string, drainMs: number) => void,
  drainTimeoutMs: number,
  reload: () => string[] = () => [],
): () => void {
  process.on('SIGTERM', () => stop('SIGTERM', drainTimeoutMs));
  process.on('SIGINT', () => stop('SIGINT', drainTimeoutMs));
  onHangup({ drain: () => stop('SIGHUP', drainTimeoutMs), reload });
  // Engine timers are unref'd so that one-shot commands can exit; this keeps serve alive (until
  // the returned function lets go: a start that failed after the engine opened).
  const alive = setInterval(() => undefined, 1 << 30);
  return () => clearInterval(alive);
}

/** What is serving: the stop closes whatever of it exists by then. */
interface Serving {
  api?: LocalApi;
  metrics?: Awaited<ReturnType<typeof serveMetricsAddress>>;
}

/**
 * The metrics listener and the API, started after the engine: when either fails (the port in use,
 * a certificate that will not load), the engine is released and the error ends the command (with
 * its exit code), never a serve that hangs on with no API.
 */
async function serveOrRelease(
  engine: Engine,
  dir: string,
  opts: ServeOptions,
  address: ServeAddress,
  serving: Serving,
  startLine: (api: string) => string,
  keepAlive: () => void,
  release: () => Promise<unknown>,
): Promise<LocalApi> {
  try {
    serving.metrics = await serveMetricsAddress(engine, dir, opts.metricsAddress);
    return (serving.api = await serveApi(engine, dir, address, startLine));
  } catch (err) {
    keepAlive();
    await serving.metrics?.close().catch(() => undefined);
    await release().catch(() => undefined);
    throw err;
  }
}

/** What the pages of a stopping `ax serve` are told (they say it instead of "reconnecting"). */
function stoppedBecause(reason: string): string {
  if (reason === 'drain requested')
    return 'This node was drained (ax drain, or Drain on the Workers page), so ax serve stopped';
  return `Its ax serve stopped (${reason.startsWith('SIG') ? `${reason} received` : reason})`;
}

function stopper(
  release: (drainMs: number) => Promise<void>,
  before: (reason: string) => Promise<void> = async () => undefined,
) {
  let stopping = false;
  return (reason: string, drainMs: number) => {
    if (stopping) return;
    stopping = true;
    const limit = Number.isFinite(drainMs) ? `for up to ${drainMs / 1000}s` : 'for as long as they take';
    const why = reason.startsWith('SIG') ? `${reason} received` : reason;
    console.log(`ax serve: ${why}: taking no new tasks and letting running ones finish (${limit})`);
    void (async () => {
      await before(stoppedBecause(reason));
      await release(drainMs);
      console.log('ax serve: stopped');
      process.exit(process.exitCode ?? 0);
    })();
  };
}

/** SIGHUP as a service: the alert settings and channels, and the API token, read again. */
function reloadSettings(engine: Engine, api: LocalApi | undefined): string[] {
  // the certificate first: a bad one stops the reload before anything else changed
  api?.reloadTls();
  const alerts = engine.reloadSettings();
  api?.reloadToken();
  return [alerts, 'API token', 'TLS certificate', 'webhook and metrics tokens are read on every request'];
}

/** The UI and the API (127.0.0.1 unless --listen; see local-api.ts), and the lines that say how to reach them. */
async function serveApi(
  engine: Engine,
  dir: string,
  address: ServeAddress,
  startLine: (api: string) => string,
): Promise<LocalApi> {
  const server = await startLocalApi(engine, dir, address.port, 'ax serve', address);
  const note = listenNote(address);
  if (note) console.log(`ax serve: ${note}`);
  const webhookFile = path.join(dir, 'webhook-token');
  console.log(startLine(apiUrl(address, server.port)));
  const origin = apiUrl(address, server.port)
    .replace(/^ws/, 'http')
    .replace(/\/api$/, '');
  console.log(`open ${server.signInUrl()}`);
  console.log('  (a single-use sign-in link for the UI, valid for 2 minutes; "ax open" makes a fresh one)');
  if (engine.authenticator)
    console.log(
      `accounts: people sign in at ${origin}/ with their own name and password (ax users add NAME --role ROLE makes one)`,
    );
  if (server.ssoLabel !== undefined)
    console.log(`single sign-on: "${server.ssoLabel}" on the sign-in page (oidc-* settings; README "Single sign-on")`);
  const metrics = metricsAuth(dir, 'ax serve')();
  console.log(
    `metrics: GET ${origin}/metrics (Prometheus text format; ${'token' in metrics ? `token required: the text of ${path.join(dir, 'metrics-token')}` : 'refused' in metrics ? metrics.refused : `no token: put one in ${path.join(dir, 'metrics-token')} to require it`})`,
  );
  console.log(
    server.webhooksOn()
      ? `webhooks on: POST ${origin}/events/EVENT with "Authorization: Bearer SECRET", SECRET being the text of ${webhookFile}`
      : `webhooks off: put a secret of at least 16 characters in ${webhookFile} to turn them on (read on every request: no restart needed)`,
  );
  return server;
}

export async function serveSolo(g: GlobalOptions, opts: ServeOptions): Promise<void> {
  const address = serveAddress(opts);
  checkTokenFiles(cliDataDir(g.dataDir));
  checkMetricsAddress(cliDataDir(g.dataDir), opts.metricsAddress);
  // The drain callback exists before the engine does; it is bound once the engine runs.
  const later: { stop?: (reason: string, drainMs: number) => void } = {};
  const embedded = await embeddedEngine(
    {
      ...g,
      concurrency: opts.concurrency,
      drainTimeoutMs: opts.drainTimeout * 1000,
      onDrainRequested: () => later.stop?.('drain requested', Infinity),
    },
    'ax serve',
  );
  const { engine, dir } = embedded;
  // what is serving: the stop closes whatever of it exists by then
  const serving: Serving = {};
  // Bound before the link is printed: whoever waits for the link (a supervisor, npm start, a
  // test) may send SIGTERM at once, and it must find the drain, not the default (death).
  later.stop = stopper(
    (ms) => embedded.release(ms),
    async (why) => {
      // While it drains, other commands use the data dir directly instead of a closing API.
      embedded.lock.update({ port: undefined });
      await Promise.all([serving.api?.close(why), serving.metrics?.close()]);
    },
  );
  const keepAlive = stopOn(later.stop, opts.drainTimeout * 1000, () => reloadSettings(engine, serving.api));
  const server = await serveOrRelease(
    engine,
    dir,
    opts,
    address,
    serving,
    (api) => `ax serve: solo engine on ${dir}, API ${api} (pid ${process.pid})`,
    keepAlive,
    async () => {
      await embedded.release(0);
    },
  );
  // The port in the lock is what tells other commands (and scripts) that the engine is ready.
  embedded.lock.update({
    port: server.port,
    ...(address.transport.tls && { tlsCert: path.resolve(address.transport.tls.certFile) }),
  });
}

/**
 * A server that is down or unreachable at start is waited for (with the reason printed and
 * backoff up to 30 s) rather than fatal: a team node may boot before its database. A wrong
 * connection string (validation) still stops at once.
 */
function untilReachable<T>(open: () => Promise<T>): Promise<T> {
  return retrying(systemClock, open, {
    firstMs: 1_000,
    maxMs: 30_000,
    retryable: (err) => err instanceof AxError && err.code === 'unavailable',
    onRetry: (err, delay) =>
      process.stderr.write(`ax serve: ${(err as Error).message}; retrying in ${delay / 1000}s\n`),
  });
}

/** Said on stderr as a simulating node starts: what it is, and that it is no production mode. */
function simulateNote(opts: ServeOptions, engine: Engine): string {
  const n = opts.simulate as number;
  const first = engine.worker?.id ?? '';
  const ids = n === 1 ? first : `${first}..${first.replace(/-sim-1$/, `-sim-${n}`)}`;
  const slots = engine.worker?.record().maxConcurrency;
  return `ax serve: simulating ${n} workers (${ids}, ${slots} slots each; their tasks spawn nothing and last their simulate: duration): a capacity-planning tool, not for production`;
}

/**
 * Every 15 s until done(), says on stderr what a team node's start is still waiting for: a node
 * that hangs at start (a database lock, a Redis that does not answer) says where, not nothing.
 */
function startWatch(): { step: (step: string) => void; done: () => void } {
  const began = Date.now();
  let current = 'opening the team database and Redis';
  const timer = setInterval(() => {
    const s = Math.round((Date.now() - began) / 1000);
    process.stderr.write(`ax serve: still starting after ${s}s: ${current}\n`);
  }, 15_000);
  timer.unref();
  return { step: (step) => (current = step), done: () => clearInterval(timer) };
}

export async function serveTeam(g: GlobalOptions, opts: ServeOptions): Promise<void> {
  if (!ROLES.includes(opts.role as TeamRole))
    throw new AxError('validation', `unknown role "${opts.role}": use scheduler, worker or client`);
  const address = serveAddress(opts);
  const accept = list(opts.accept) ?? [];
  const later: { stop?: (reason: string, drainMs: number) => void } = {};
  const dir = cliDataDir(g.dataDir);
  checkTokenFiles(dir);
  checkMetricsAddress(dir, opts.metricsAddress);
  checkSsoSettings(dir);
  if (opts.simulate !== undefined && opts.role !== 'worker')
    throw new AxError(
      'validation',
      `--simulate is for a worker node only: add --role worker (got --role ${opts.role})`,
    );
  const acceptWorkflows = accept
    .filter((a) => a.startsWith('workflow:'))
    .map((a) => a.slice('workflow:'.length))
    .filter(Boolean);
  const watch = startWatch();
  const engine: Engine = await untilReachable(() =>
    openTeamEngine({
      ...teamConnection(g),
      role: opts.role as TeamRole,
      schedulerWorks: opts.work,
      workerId: opts.workerId,
      labels: list(opts.labels),
      temporary: opts.temporary,
      acceptUnlabelled: accept.includes('unlabelled') ? true : undefined,
      acceptWorkflows: acceptWorkflows.length ? acceptWorkflows : undefined,
      maxConcurrency: opts.concurrency,
      ...(opts.simulate !== undefined && { simulate: opts.simulate }),
      taskEnvFlags: taskEnvFlags(g),
      onAlert: (m) => process.stderr.write(`ax: ${m}\n`),
      onDrainRequested: () => later.stop?.('drain requested', Infinity),
      onIdentityLost: () => {
        process.exitCode = 4;
        later.stop?.('another node took this worker id', 0);
      },
      dataDir: dir,
      onStartStep: watch.step,
    }),
  ).catch((err: unknown) => {
    watch.done();
    throw err;
  });
  if (opts.simulate !== undefined) process.stderr.write(`${simulateNote(opts, engine)}\n`);
  try {
    await engine.start();
  } catch (err) {
    watch.done();
    // Refused (its worker id is held by a live worker) or failed: nothing of it may linger.
    await engine.dispose().catch(() => undefined);
    throw err;
  }
  watch.step('opening the API (and the metrics address, if set)');
  const worker = engine.worker ? `, worker id ${engine.worker.id}` : '';
  // Every team node serves the UI and the API on this machine; MySQL and Redis stay the truth.
  let unannounce = () => undefined as void;
  // what is serving: the stop closes whatever of it exists by then
  const serving: Serving = {};
  // As in serveSolo: the stop is bound before the link is printed.
  later.stop = stopper(
    async (ms) => {
      await engine.stop(ms);
      await engine.dispose();
    },
    async (why) => {
      unannounce();
      await Promise.all([serving.api?.close(why), serving.metrics?.close()]);
    },
  );
  const keepAlive = stopOn(later.stop, opts.drainTimeout * 1000, () => reloadSettings(engine, serving.api));
  const server = await serveOrRelease(
    engine,
    dir,
    opts,
    address,
    serving,
    (api) => `ax serve: team ${opts.role}${worker} (pid ${process.pid}), API ${api}`,
    keepAlive,
    async () => {
      await engine.stop(0);
      await engine.dispose();
    },
  ).finally(watch.done);
  unannounce = announceUiNode(dir, {
    port: server.port,
    ...(address.transport.tls && { tlsCert: path.resolve(address.transport.tls.certFile) }),
    role: opts.role,
    ...(engine.worker && { workerId: engine.worker.id }),
  });
}

// ax serve: the engine as a long-running process. Solo: scheduler + worker on a data dir, with
// the API on 127.0.0.1. Team: a node of the team (scheduler, worker or client) on the shared
// MySQL + Redis; other ax commands reach the team through those directly.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import type { Engine } from '../../core/engine.ts';
import { retrying } from '../../core/support/retry.ts';
import { systemClock } from '../../adapters/system-clock.ts';
import { apiToken, readEngineLock } from '../node/data-dir.ts';
import { checkTokenFiles, type LocalApi, metricsAuth, startLocalApi } from '../node/local-api.ts';
import { onHangup } from './hangup.ts';
import { announceUiNode, describeUiNode, uiNodes } from './ui-nodes.ts';
import { type MetricsServer, startMetricsServer } from '../../server/metrics-server.ts';
import { openTeamEngine, type TeamRole, teamConnection } from '../node/team.ts';
import { cliDataDir, embeddedEngine, type GlobalOptions, modeOf, taskEnvFlags } from './connect.ts';
import { intArg, MAX_CONCURRENCY, MAX_SECONDS } from './int-arg.ts';

type Globals = () => GlobalOptions & { json?: boolean };

interface ServeOptions {
  port: number;
  concurrency?: number;
  drainTimeout: number;
  role: string;
  work: boolean;
  workerId?: string;
  labels?: string;
  temporary?: boolean;
  accept?: string;
  metricsAddress?: MetricsAddress;
}

interface MetricsAddress {
  host: string;
  port: number;
}

/** --metrics-address HOST:PORT ([IPv6]:PORT); the port 0-65535. */
function metricsAddressArg(value: string): MetricsAddress {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new AxError(
      'validation',
      `--metrics-address must be HOST:PORT, e.g. 127.0.0.1:9464, 0.0.0.0:9464 or [::]:9464, not "${value}"`,
    );
  return { host: (m[1] ?? m[2]) as string, port };
}

const loopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * Metrics on an address other machines can reach need the metrics token: they name workflows and
 * workers. Checked before the engine starts, so a refused serve changes nothing.
 */
function checkMetricsAddress(dir: string, address: MetricsAddress | undefined): void {
  if (!address || loopback(address.host)) return;
  const auth = metricsAuth(dir, 'ax serve')();
  if ('token' in auth) return;
  const file = path.join(dir, 'metrics-token');
  const why = 'refused' in auth ? auth.refused : `put a secret of at least 16 characters in ${file} first`;
  throw new AxError(
    'validation',
    `--metrics-address ${address.host}:${address.port} lets other machines scrape this node: ${why} (Prometheus sends it as a bearer token)`,
  );
}

/** The metrics-only listener of --metrics-address, if asked for; said on stdout. */
async function serveMetricsAddress(
  engine: Engine,
  dir: string,
  address: MetricsAddress | undefined,
): Promise<MetricsServer | undefined> {
  if (!address) return undefined;
  const server = await startMetricsServer({ metrics: engine.metrics, auth: metricsAuth(dir, 'ax serve'), ...address });
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  console.log(`metrics also on http://${host}:${server.port}/metrics (nothing else is served there)`);
  return server;
}

const ROLES: TeamRole[] = ['scheduler', 'worker', 'client'];
/** The team node on this machine that serves the UI for this data dir (ax settings' restart note). */
export function readTeamUi(dir: string): { pid: number; port: number } | undefined {
  return uiNodes(dir)[0];
}
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
function stopOn(stop: (reason: string, drainMs: number) => void, drainTimeoutMs: number, reload: () => string[]): void {
  process.on('SIGTERM', () => stop('SIGTERM', drainTimeoutMs));
  process.on('SIGINT', () => stop('SIGINT', drainTimeoutMs));
  onHangup({ drain: () => stop('SIGHUP', drainTimeoutMs), reload });
  // Engine timers are unref'd so that one-shot commands can exit; this keeps serve alive.
  setInterval(() => undefined, 1 << 30);
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
  const alerts = engine.reloadSettings();
  api?.reloadToken();
  return [alerts, 'API token', 'webhook and metrics tokens are read on every request'];
}

/** The UI and the API on 127.0.0.1 (see local-api.ts), and the lines that say how to reach them. */
async function serveApi(
  engine: Engine,
  dir: string,
  port: number,
  startLine: (port: number) => string,
): Promise<LocalApi> {
  const server = await startLocalApi(engine, dir, port, 'ax serve');
  const webhookFile = path.join(dir, 'webhook-token');
  console.log(startLine(server.port));
  console.log(`open ${server.signInUrl()}`);
  console.log('  (a single-use sign-in link for the UI, valid for 2 minutes; "ax open" makes a fresh one)');
  const metrics = metricsAuth(dir, 'ax serve')();
  console.log(
    `metrics: GET http://127.0.0.1:${server.port}/metrics (Prometheus text format; ${'token' in metrics ? `token required: the text of ${path.join(dir, 'metrics-token')}` : 'refused' in metrics ? metrics.refused : `no token: put one in ${path.join(dir, 'metrics-token')} to require it`})`,
  );
  console.log(
    server.webhooksOn()
      ? `webhooks on: POST http://127.0.0.1:${server.port}/events/EVENT with "Authorization: Bearer SECRET", SECRET being the text of ${webhookFile}`
      : `webhooks off: put a secret of at least 16 characters in ${webhookFile} to turn them on (read on every request: no restart needed)`,
  );
  return server;
}

async function serveSolo(g: GlobalOptions, opts: ServeOptions): Promise<void> {
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
  const serving: { api?: LocalApi; metrics?: Awaited<ReturnType<typeof serveMetricsAddress>> } = {};
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
  stopOn(later.stop, opts.drainTimeout * 1000, () => reloadSettings(engine, serving.api));
  serving.metrics = await serveMetricsAddress(engine, dir, opts.metricsAddress);
  const server = (serving.api = await serveApi(
    engine,
    dir,
    opts.port,
    (port) => `ax serve: solo engine on ${dir}, API ws://127.0.0.1:${port}/api (pid ${process.pid})`,
  ));
  // The port in the lock is what tells other commands (and scripts) that the engine is ready.
  embedded.lock.update({ port: server.port });
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

async function serveTeam(g: GlobalOptions, opts: ServeOptions): Promise<void> {
  if (!ROLES.includes(opts.role as TeamRole))
    throw new AxError('validation', `unknown role "${opts.role}": use scheduler, worker or client`);
  const accept = list(opts.accept) ?? [];
  const later: { stop?: (reason: string, drainMs: number) => void } = {};
  const dir = cliDataDir(g.dataDir);
  checkTokenFiles(dir);
  checkMetricsAddress(dir, opts.metricsAddress);
  const acceptWorkflows = accept
    .filter((a) => a.startsWith('workflow:'))
    .map((a) => a.slice('workflow:'.length))
    .filter(Boolean);
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
      taskEnvFlags: taskEnvFlags(g),
      onAlert: (m) => process.stderr.write(`ax: ${m}\n`),
      onDrainRequested: () => later.stop?.('drain requested', Infinity),
      onIdentityLost: () => {
        process.exitCode = 4;
        later.stop?.('another node took this worker id', 0);
      },
      dataDir: dir,
    }),
  );
  try {
    await engine.start();
  } catch (err) {
    // Refused (its worker id is held by a live worker) or failed: nothing of it may linger.
    await engine.dispose().catch(() => undefined);
    throw err;
  }
  const worker = engine.worker ? `, worker id ${engine.worker.id}` : '';
  // Every team node serves the UI and the API on this machine; MySQL and Redis stay the truth.
  let unannounce = () => undefined as void;
  // what is serving: the stop closes whatever of it exists by then
  const serving: { api?: LocalApi; metrics?: Awaited<ReturnType<typeof serveMetricsAddress>> } = {};
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
  stopOn(later.stop, opts.drainTimeout * 1000, () => reloadSettings(engine, serving.api));
  serving.metrics = await serveMetricsAddress(engine, dir, opts.metricsAddress);
  const server = (serving.api = await serveApi(
    engine,
    dir,
    opts.port,
    (port) => `ax serve: team ${opts.role}${worker} (pid ${process.pid}), API ws://127.0.0.1:${port}/api`,
  ));
  unannounce = announceUiNode(dir, {
    port: server.port,
    role: opts.role,
    ...(engine.worker && { workerId: engine.worker.id }),
  });
}

/** Hands a URL to the desktop's browser; says so when there is none (a server without a desktop). */
function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  const child = spawn(cmd as string, args as string[], { detached: true, stdio: 'ignore' });
  child.on('error', () =>
    process.stderr.write(`ax open: no browser could be started here (${cmd} failed): open the link above yourself\n`),
  );
  child.unref();
}

export function serveCommand(program: Command, globals: Globals): void {
  program
    .command('serve')
    .description('run the engine until stopped; in solo mode other ax commands then go through it')
    .option(
      '--port <port>',
      'port of the UI and API on 127.0.0.1, 0-65535; 0 takes any free port',
      intArg('--port', 0, 65535),
      0,
    )
    .option(
      '--concurrency <n>',
      `worker slots, 1-${MAX_CONCURRENCY} (default 8)`,
      intArg('--concurrency', 1, MAX_CONCURRENCY),
    )
    .option(
      '--drain-timeout <seconds>',
      'on SIGTERM/SIGINT, how long running tasks may finish before they are killed',
      intArg('--drain-timeout', 0, MAX_SECONDS),
      30,
    )
    .option('--role <role>', 'team: scheduler (schedules and, unless --no-work, works), worker, or client', 'scheduler')
    .option('--no-work', 'team: a scheduler that runs no tasks itself')
    .option(
      '--worker-id <id>',
      "team: this worker's id, unique among live workers (default: the host name plus a suffix kept in the data dir)",
    )
    .option('--labels <list>', 'team: labels this worker offers, e.g. gpu,laptop')
    .option('--temporary', 'team: a laptop joining: accept only tasks labelled for it')
    .option('--accept <list>', 'team: widen what a --temporary worker takes: "unlabelled", "workflow:NAME"')
    .option(
      '--metrics-address <host:port>',
      'also serve GET /metrics (and nothing else) there, e.g. 0.0.0.0:9464; beyond loopback it needs DATA_DIR/metrics-token',
      metricsAddressArg,
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ ax serve',
        '  $ AX_DATA_DIR=/srv/ax ax serve --concurrency 16 --drain-timeout 120',
        '  $ export AX_MODE=team AX_MYSQL_URL=mysql://ax:secret@db:3306/ax AX_REDIS_URL=redis://cache:6379',
        '  $ ax serve --role scheduler',
        '  $ ax serve --role worker --worker-id laptop-anna --labels laptop --temporary',
        '  $ ax serve --metrics-address 0.0.0.0:9464    # with a secret in DATA_DIR/metrics-token',
      ].join('\n'),
    )
    .action(async (opts: ServeOptions) => {
      const g = globals();
      if (modeOf(g) === 'team') await serveTeam(g, opts);
      else await serveSolo(g, opts);
    });

  program
    .command('open')
    .description('open the UI of the running engine in the browser, signed in by a fresh single-use link')
    .option('--print', 'only print the link (e.g. to open it on another screen of this machine)')
    .addHelpText('after', '\nExamples:\n  $ ax open\n  $ ax open --print')
    .action(async (opts: { print?: boolean }) => {
      const { requestSignInCode } = await import('../../server/ws-client.ts');
      const dir = cliDataDir(globals().dataDir);
      const solo = readEngineLock(dir)?.port;
      const [node, ...others] = solo ? [] : uiNodes(dir);
      const port = solo ?? node?.port;
      if (!port)
        throw new AxError(
          'unavailable',
          `no engine is serving ${dir}: start one with "ax serve", which prints a sign-in link too`,
        );
      // which one, on stderr: stdout stays the link alone (scripts read it)
      if (node) {
        const also = others.length ? `; also serving this data dir: ${others.map(describeUiNode).join(', ')}` : '';
        process.stderr.write(`ax open: the UI of ${describeUiNode(node)}${also}\n`);
      }
      const url = `http://127.0.0.1:${port}/#code=${await requestSignInCode(port, apiToken(dir))}`;
      console.log(url);
      if (!opts.print) openInBrowser(url);
    });

  program
    .command('drain')
    .argument('[worker]', 'worker id (see "ax workers"); default: the only worker, in solo mode')
    .description('ask a worker to take nothing new, finish what runs and deregister')
    .addHelpText('after', '\nExample:\n  $ ax --mode team drain laptop-anna')
    .action(async (workerId: string | undefined) => {
      const { actor, withApi } = await import('./connect.ts');
      await withApi(globals(), async (api) => {
        const id = workerId ?? (modeOf(globals()) === 'solo' ? 'local' : undefined);
        if (!id) throw new AxError('validation', 'name the worker to drain: see "ax workers"');
        const { running } = await api.drainWorker(id, actor());
        console.log(
          `drain requested for worker ${id}: it takes nothing new, finishes its ${running} running task(s) and leaves`,
        );
      });
    });
}

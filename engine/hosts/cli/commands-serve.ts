// ax serve, ax open and ax drain: the commands and their options. ax serve runs the engine as a
// long-running process (serve-node.ts): solo, scheduler + worker on a data dir, with the API on
// 127.0.0.1; team, a node of the team (scheduler, worker or client) on the shared MySQL + Redis,
// which other ax commands reach directly.
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import { apiToken, readEngineLock } from '../node/data-dir.ts';
import { describeUiNode, uiNodes } from './ui-nodes.ts';
import { cliDataDir, type GlobalOptions, localServer, modeOf } from './connect.ts';
import { intArg, MAX_CONCURRENCY, MAX_SECONDS } from './int-arg.ts';
import { metricsAddressArg } from './metrics-address.ts';
import { openInBrowser } from './open-browser.ts';
import { parseTrustProxy } from '../../server/listen.ts';
import { type ServeOptions, serveSolo, serveTeam, stopOn } from './serve-node.ts';
import { isEdgeWorker, serveEdge } from './serve-edge.ts';
import { MAX_SIMULATED_WORKERS } from '../node/team.ts';

type Globals = () => GlobalOptions & { json?: boolean };

/** The team node on this machine that serves the UI for this data dir (ax settings' restart note). */
export function readTeamUi(dir: string): { pid: number; port: number } | undefined {
  return uiNodes(dir)[0];
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
      '--listen <host:port>',
      'where the UI and API listen instead, e.g. 0.0.0.0:8443 or [::]:8443; beyond 127.0.0.1 plain HTTP is refused: add --tls-cert/--tls-key or a TLS proxy',
    )
    .option('--tls-cert <file>', 'serve https and wss with this certificate (PEM, with its chain); re-read on SIGHUP')
    .option('--tls-key <file>', "the certificate's private key (PEM)")
    .option(
      '--trust-proxy <cidrs>',
      "reverse proxies (e.g. 127.0.0.1/32,10.0.0.0/8) whose X-Forwarded-For/-Proto/-Host are believed; nobody else's",
      parseTrustProxy,
    )
    .option(
      '--allow-plain-http',
      'answer plain HTTP from other machines too (a network you trust; sign-ins cross it in the clear)',
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
    .option(
      '--simulate <n>',
      `team, --role worker: run N simulated workers (ids WORKER-sim-1..N) whose tasks spawn nothing, for capacity planning (1-${MAX_SIMULATED_WORKERS}; not for production)`,
      intArg('--simulate', 1, MAX_SIMULATED_WORKERS),
    )
    .option('--temporary', 'team: a laptop joining: accept only tasks labelled for it')
    .option('--accept <list>', 'team: widen what a --temporary worker takes: "unlabelled", "workflow:NAME"')
    .option(
      '--token <token>',
      'edge worker: its worker token (env AX_TOKEN; --token-file keeps it out of the process list)',
    )
    .option('--token-file <file>', 'edge worker: a file only you can read holding its worker token')
    .option('--ca-file <file>', "edge worker: the PEM of a private CA that signed the server's certificate")
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
        '  $ ax serve --listen 0.0.0.0:8443 --tls-cert /etc/ax/cert.pem --tls-key /etc/ax/key.pem',
        '  $ ax serve --listen 127.0.0.1:8080 --trust-proxy 127.0.0.1/32   # behind Caddy or nginx (README)',
        '  $ AX_TOKEN=axt_… ax serve --role worker --server https://scheduler:8443 --labels laptop',
        '  $ ax serve --role worker --simulate 100 --concurrency 20    # capacity planning: 100 simulated workers',
      ].join('\n'),
    )
    .action(async (opts: ServeOptions) => {
      const g = globals();
      // --server is the program's option (every command's server; ax login), so it lands in globals
      const edge = { ...opts, server: g.server && g.server !== 'local' ? g.server : undefined };
      const team = modeOf(g) === 'team';
      if (opts.simulate !== undefined && (!team || isEdgeWorker(g, edge)))
        throw new AxError(
          'validation',
          '--simulate runs simulated workers on the team database: use it with --mode team (AX_MODE=team), AX_MYSQL_URL and AX_REDIS_URL, and --role worker',
        );
      if (isEdgeWorker(g, edge)) await serveEdge(g, edge, stopOn);
      else if (team) await serveTeam(g, opts);
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
      const lock = readEngineLock(dir);
      const solo = lock?.port;
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
      const { origin, trust } = localServer(port, solo ? lock?.tlsCert : node?.tlsCert);
      const url = `${origin}/#code=${await requestSignInCode(origin, apiToken(dir), trust)}`;
      console.log(url);
      if (!opts.print) openInBrowser(url, 'ax open');
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

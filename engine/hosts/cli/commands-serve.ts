// ax serve: the engine as a long-running process. Solo: scheduler + worker on a data dir, with
// the API on 127.0.0.1. Team: a node of the team (scheduler, worker or client) on the shared
// MySQL + Redis; other ax commands reach the team through those directly.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import type { Engine } from '../../core/engine.ts';
import { startApiServer } from '../../server/ws-server.ts';
import { apiToken } from '../node/data-dir.ts';
import { openTeamEngine, type TeamRole, teamConnection } from '../node/team.ts';
import { embeddedEngine, type GlobalOptions, modeOf } from './connect.ts';

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
}

const ROLES: TeamRole[] = ['scheduler', 'worker', 'client'];
const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

/** Stops on SIGTERM/SIGINT (drain up to the timeout) or on `ax drain` (drain until done). */
function stopOn(stop: (reason: string, drainMs: number) => void, drainTimeoutMs: number): void {
  process.on('SIGTERM', () => stop('SIGTERM', drainTimeoutMs));
  process.on('SIGINT', () => stop('SIGINT', drainTimeoutMs));
  // Engine timers are unref'd so that one-shot commands can exit; this keeps serve alive.
  setInterval(() => undefined, 1 << 30);
}

function stopper(release: (drainMs: number) => Promise<void>, before: () => Promise<void> = async () => undefined) {
  let stopping = false;
  return (reason: string, drainMs: number) => {
    if (stopping) return;
    stopping = true;
    const limit = Number.isFinite(drainMs) ? `up to ${drainMs / 1000}s` : 'until they finish';
    console.log(`ax serve: ${reason}: draining (${limit} for running tasks)`);
    void (async () => {
      await before();
      await release(drainMs);
      console.log('ax serve: stopped');
      process.exit(0);
    })();
  };
}

async function serveSolo(g: GlobalOptions, opts: ServeOptions): Promise<void> {
  // The drain callback exists before the engine does; it is bound once the engine runs.
  const later: { stop?: (reason: string, drainMs: number) => void } = {};
  const embedded = await embeddedEngine(
    { ...g, concurrency: opts.concurrency, onDrainRequested: () => later.stop?.('drain requested', Infinity) },
    'ax serve',
  );
  const { engine, dir } = embedded;
  const webhookFile = path.join(dir, 'webhook-token');
  const server = await startApiServer({
    api: engine,
    subscribe: (h) => engine.subscribe(h),
    token: apiToken(dir),
    webhookToken: fs.existsSync(webhookFile) ? fs.readFileSync(webhookFile, 'utf8').trim() : undefined,
    port: opts.port,
  });
  embedded.lock.update({ port: server.port });
  console.log(`ax serve: solo engine on ${dir}, API ws://127.0.0.1:${server.port}/api (pid ${process.pid})`);
  later.stop = stopper(
    (ms) => embedded.release(ms),
    async () => {
      // While it drains, other commands use the data dir directly instead of a closing API.
      embedded.lock.update({ port: undefined });
      await server.close();
    },
  );
  stopOn(later.stop, opts.drainTimeout * 1000);
}

/**
 * A server that is down or unreachable at start is waited for (with the reason printed and
 * backoff up to 30 s) rather than fatal: a team node may boot before its database. A wrong
 * connection string (validation) still stops at once.
 */
async function untilReachable<T>(open: () => Promise<T>): Promise<T> {
  for (let delay = 1_000; ; delay = Math.min(delay * 2, 30_000)) {
    try {
      return await open();
    } catch (err) {
      if (!(err instanceof AxError) || err.code !== 'unavailable') throw err;
      process.stderr.write(`ax serve: ${err.message}; retrying in ${delay / 1000}s\n`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

async function serveTeam(g: GlobalOptions, opts: ServeOptions): Promise<void> {
  if (!ROLES.includes(opts.role as TeamRole)) throw new AxError('validation', `unknown role "${opts.role}": use scheduler, worker or client`);
  const accept = list(opts.accept) ?? [];
  const later: { stop?: (reason: string, drainMs: number) => void } = {};
  const engine: Engine = await untilReachable(() => openTeamEngine({
    ...teamConnection(g),
    role: opts.role as TeamRole,
    schedulerWorks: opts.work,
    workerId: opts.workerId,
    labels: list(opts.labels),
    temporary: opts.temporary,
    acceptUnlabelled: accept.includes('unlabelled') ? true : undefined,
    acceptWorkflows: accept.filter((a) => a.startsWith('workflow:')).map((a) => a.slice('workflow:'.length)).filter(Boolean).length
      ? accept.filter((a) => a.startsWith('workflow:')).map((a) => a.slice('workflow:'.length))
      : undefined,
    maxConcurrency: opts.concurrency,
    onAlert: (m) => process.stderr.write(`ax: ${m}\n`),
    onDrainRequested: () => later.stop?.('drain requested', Infinity),
  }));
  await engine.start();
  const worker = engine.worker ? `, worker id ${engine.worker.id}` : '';
  console.log(`ax serve: team ${opts.role}${worker} (pid ${process.pid})`);
  later.stop = stopper(async (ms) => {
    await engine.stop(ms);
    await engine.dispose();
  });
  stopOn(later.stop, opts.drainTimeout * 1000);
}

export function serveCommand(program: Command, globals: Globals): void {
  program
    .command('serve')
    .description('run the engine until stopped; in solo mode other ax commands then go through it')
    .option('--port <port>', 'solo: API port on 127.0.0.1 (default: any free port)', (v) => Number(v), 0)
    .option('--concurrency <n>', 'worker slots (default 8)', (v) => Number(v))
    .option('--drain-timeout <seconds>', 'on SIGTERM/SIGINT, how long running tasks may finish before they are killed', (v) => Number(v), 30)
    .option('--role <role>', 'team: scheduler (schedules and, unless --no-work, works), worker, or client', 'scheduler')
    .option('--no-work', 'team: a scheduler that runs no tasks itself')
    .option('--worker-id <id>', 'team: this worker\'s id (default: the host name); keep it stable across restarts')
    .option('--labels <list>', 'team: labels this worker offers, e.g. gpu,laptop')
    .option('--temporary', 'team: a laptop joining: accept only tasks labelled for it')
    .option('--accept <list>', 'team: widen what a --temporary worker takes: "unlabelled", "workflow:NAME"')
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
      ].join('\n'),
    )
    .action(async (opts: ServeOptions) => {
      const g = globals();
      if (modeOf(g) === 'team') await serveTeam(g, opts);
      else await serveSolo(g, opts);
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
        await api.drainWorker(id, actor());
        console.log(`drain requested for worker ${id}: it takes nothing new and leaves when its tasks are done`);
      });
    });
}

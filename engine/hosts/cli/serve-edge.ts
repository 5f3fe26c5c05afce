// ax serve --role worker --server URL --token T: an edge worker (hosts/node/edge-worker.ts) that
// needs only a server's URL and a worker token, no database credentials. It waits for a server
// that cannot be reached yet, stops at once when its token is refused, drains on SIGTERM/SIGINT
// and on `ax drain`, and exits 4 when another process took its worker id.
import fs from 'node:fs';
import { AxError } from '../../api/errors.ts';
import { openEdgeWorker } from '../node/edge-worker.ts';
import { readPrivateFile } from '../node/private-file.ts';
import { cliDataDir, type GlobalOptions, taskEnvFlags } from './connect.ts';

export interface EdgeServeOptions {
  server?: string;
  token?: string;
  tokenFile?: string;
  caFile?: string;
  workerId?: string;
  labels?: string;
  accept?: string;
  concurrency?: number;
  drainTimeout: number;
}

/** Whether `ax serve` is an edge worker: --server, or a worker role with AX_SERVER and no database given. */
export function isEdgeWorker(g: GlobalOptions, opts: { role: string; server?: string }): boolean {
  if (opts.server) return true;
  const database = g.mysql ?? process.env.AX_MYSQL_URL ?? g.postgres ?? process.env.AX_POSTGRES_URL;
  return opts.role === 'worker' && !!process.env.AX_SERVER && !database;
}

/** The worker token: --token-file (a private file), --token, or AX_TOKEN. */
export function edgeToken(opts: EdgeServeOptions): string {
  if (opts.tokenFile) {
    const text = readPrivateFile(opts.tokenFile)?.trim();
    if (!text) throw new AxError('validation', `--token-file ${opts.tokenFile} is missing or empty`);
    return text;
  }
  if (opts.token)
    process.stderr.write(
      'ax serve: warning: --token puts the worker token in the command line, which every local user reads with ps: prefer AX_TOKEN or --token-file\n',
    );
  const token = opts.token ?? process.env.AX_TOKEN;
  if (!token)
    throw new AxError(
      'validation',
      'an edge worker needs a worker token: --token-file FILE (a file only you can read), AX_TOKEN, or --token T; an admin makes one with "ax tokens create NAME --scope worker --worker-id ID --labels L"',
    );
  return token;
}

const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

export async function serveEdge(
  g: GlobalOptions,
  opts: EdgeServeOptions,
  stopOn: (stop: (reason: string, drainMs: number) => void, drainMs: number) => void,
): Promise<void> {
  const server = opts.server ?? process.env.AX_SERVER;
  if (!server) throw new AxError('validation', 'an edge worker needs --server https://HOST:PORT (or AX_SERVER)');
  const token = edgeToken(opts);
  let ca: Buffer | undefined;
  if (opts.caFile) {
    try {
      ca = fs.readFileSync(opts.caFile);
    } catch (err) {
      throw new AxError('validation', `--ca-file ${opts.caFile}: ${(err as Error).message}`);
    }
  }
  const accept = list(opts.accept) ?? [];
  const acceptWorkflows = accept.filter((a) => a.startsWith('workflow:')).map((a) => a.slice('workflow:'.length));
  const later: { stop?: (reason: string, drainMs: number) => void } = {};
  const edge = await openEdgeWorker({
    server,
    token,
    ...(ca && { ca }),
    workerId: opts.workerId,
    labels: list(opts.labels),
    acceptUnlabelled: accept.includes('unlabelled') || undefined,
    ...(acceptWorkflows.length > 0 && { acceptWorkflows }),
    maxConcurrency: opts.concurrency,
    dataDir: cliDataDir(g.dataDir),
    taskEnvFlags: taskEnvFlags(g),
    onAlert: (m) => process.stderr.write(`ax: ${m}\n`),
    onDrainRequested: () => later.stop?.('drain requested', Infinity),
    onIdentityLost: () => {
      process.exitCode = 4;
      later.stop?.('another node took this worker id', 0);
    },
    onRefused: (m) => {
      process.stderr.write(`ax serve: ${m}\n`);
      process.exitCode = 9;
      // It can report nothing more: its tasks are stopped, not left running unreported.
      later.stop?.('the server refused its token', 0);
    },
  });
  let stopping = false;
  later.stop = (reason, drainMs) => {
    if (stopping) return;
    stopping = true;
    const limit = Number.isFinite(drainMs) ? `for up to ${drainMs / 1000}s` : 'for as long as they take';
    console.log(
      `ax serve: ${reason.startsWith('SIG') ? `${reason} received` : reason}: taking no new tasks and letting running ones finish (${limit})`,
    );
    void edge
      .stop(drainMs)
      .catch((err: unknown) => process.stderr.write(`ax serve: ${(err as Error).message}\n`))
      .finally(() => {
        console.log('ax serve: stopped');
        process.exit(process.exitCode ?? 0);
      });
  };
  stopOn(later.stop, opts.drainTimeout * 1000);
  await edge.start();
  const { workerId, labels, server: node } = edge.welcome;
  console.log(
    `ax serve: team edge worker, worker id ${workerId} (pid ${process.pid}), server ${server} (node ${node}), labels ${labels.join(',') || 'none'}: no database credentials on this machine`,
  );
}

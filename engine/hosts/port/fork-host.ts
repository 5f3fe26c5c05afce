// The parent's side of the engine host without Electron: forks engine-host.ts with Node IPC and
// gives out ApiClients multiplexed over that channel, each the same client the UI and the CLI
// use over WebSocket. What the tests use, and what a Node shell could.
import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ApiClient, createApiClient } from '../../api/client.ts';
import type { DesktopAlert, HostMessage, HostReady, ParentMessage } from '../../api/host-protocol.ts';

export interface ForkHostOptions {
  dataDir: string;
  /** the host's entry: default engine-host.ts beside this file; the desktop app runs the bundle, dist/engine-host.mjs */
  entry?: string;
  /** the host's environment; default this process's */
  env?: NodeJS.ProcessEnv;
  /** Node options of the host; default `--import tsx` for the TypeScript entry, else none */
  execArgv?: string[];
  /** more arguments of the host, e.g. `--local-api` */
  args?: string[];
  onAlert?: (message: string) => void;
  /** an alert routed to the host's `desktop` channel (what the desktop app shows as a notification) */
  onDesktopAlert?: (alert: DesktopAlert) => void;
}

export interface HostExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ForkedEngineHost {
  readonly child: ChildProcess;
  /** resolves when the engine runs; rejects with the host's message when it could not start */
  readonly ready: Promise<HostReady>;
  /** a new API client (before `ready` too: its requests wait until the engine runs) */
  connect(): ApiClient;
  /** drains (running tasks get up to drainTimeoutMs), stops the engine; resolves when the host has exited */
  stop(drainTimeoutMs?: number): Promise<HostExit>;
  readonly exited: Promise<HostExit>;
  /** what the host wrote to stderr (its last 64 KiB) */
  stderr(): string;
}

const ENTRY = fileURLToPath(new URL('./engine-host.ts', import.meta.url));
const STDERR_KEPT = 64 * 1024;

/** tsx by absolute URL, so the host starts from the sources whatever the working directory. */
function tsxImport(): string[] {
  return ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
}

export function forkEngineHost(options: ForkHostOptions): ForkedEngineHost {
  const entry = options.entry ?? ENTRY;
  const child = fork(entry, ['--data-dir', options.dataDir, ...(options.args ?? [])], {
    env: options.env ?? process.env,
    execArgv: options.execArgv ?? (entry.endsWith('.ts') ? tsxImport() : []),
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_KEPT)));

  const exited = new Promise<HostExit>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const clients = new Map<number, { receive(message: unknown): void; closed(reason: string): void }>();
  let nextClient = 1;
  const post = (message: ParentMessage) => {
    // With a callback, a send on a closed channel is dropped instead of raising an 'error' event.
    if (child.connected) child.send(message, () => undefined);
  };
  const end = (client: number, reason: string) => {
    const entry = clients.get(client);
    clients.delete(client);
    entry?.closed(reason);
  };

  let settle: { resolve(info: HostReady): void; reject(err: Error): void } | undefined;
  const ready = new Promise<HostReady>((resolve, reject) => (settle = { resolve, reject }));
  // A test or shell may never await `ready`: its rejection is also the exit's, not an unhandled one.
  ready.catch(() => undefined);

  child.on('message', (raw) => {
    const message = raw as HostMessage;
    if (message.type === 'ready') settle?.resolve(message);
    else if (message.type === 'failed')
      settle?.reject(new Error(`the engine host could not start: ${message.message}`));
    else if (message.type === 'alert') options.onAlert?.(message.message);
    else if (message.type === 'desktop-alert') options.onDesktopAlert?.(message.alert);
    else if (message.type === 'api') clients.get(message.client)?.receive(message.message);
    else if (message.type === 'closed') end(message.client, message.reason);
  });
  child.on('disconnect', () => {
    for (const client of [...clients.keys()]) end(client, 'the engine host exited');
  });
  void exited.then(({ code, signal }) =>
    settle?.reject(
      new Error(`the engine host exited (${signal ?? `code ${code}`}) before it was ready: ${stderr.trim()}`),
    ),
  );

  return {
    child,
    ready,
    exited,
    stderr: () => stderr,
    connect() {
      const client = nextClient++;
      let onMessage: (message: unknown) => void = () => undefined;
      let onClose: (reason: string) => void = () => undefined;
      clients.set(client, { receive: (message) => onMessage(message), closed: (reason) => onClose(reason) });
      post({ type: 'open', client });
      if (!child.connected) queueMicrotask(() => end(client, 'the engine host has exited'));
      return createApiClient({
        send: (message) => post({ type: 'api', client, message }),
        onMessage: (handler) => (onMessage = handler),
        onClose: (handler) => (onClose = handler),
        close() {
          if (!clients.has(client)) return;
          post({ type: 'close', client });
          end(client, 'closed by the client');
        },
      });
    },
    stop(drainTimeoutMs) {
      post({ type: 'stop', drainTimeoutMs });
      return exited;
    },
  };
}

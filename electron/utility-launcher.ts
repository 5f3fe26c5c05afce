// Starts the engine host (dist/engine-host.mjs) as an Electron utilityProcess and presents it as
// the shell's EngineProcess. Its stderr is piped for the supervisor's crash report; stdout is
// inherited (the terminal of a developer who started the app from one).
import fs from 'node:fs';
import type { ParentMessage } from '../engine/api/host-protocol.ts';
import type { EngineLauncher, EngineProcess, PortMain } from './shell-surface.ts';

/** The part of Electron's UtilityProcess used here. */
export interface UtilityProcessLike {
  readonly pid: number | undefined;
  readonly stderr: NodeJS.ReadableStream | null;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(message: unknown, transfer?: never[]): void;
  kill(): boolean;
}

export interface UtilityForker {
  fork(
    modulePath: string,
    args: string[],
    options: { serviceName: string; stdio: ('ignore' | 'inherit' | 'pipe')[]; env: NodeJS.ProcessEnv },
  ): UtilityProcessLike;
}

export interface HostLaunchOptions {
  /** dist/engine-host.mjs */
  entry: string;
  /** --data-dir; undefined: the host's own default (AX_DATA_DIR, else the CLI's default data dir) */
  dataDir?: string;
  /** more arguments, e.g. --local-api; a function is asked at each start (a setting may change them) */
  args?: string[] | (() => string[]);
  /** the host's environment, or a function giving it at each start (the desktop's secrets are decrypted then) */
  env?: NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv);
}

export function hostArgs(options: HostLaunchOptions): string[] {
  const args = typeof options.args === 'function' ? options.args() : (options.args ?? []);
  return [...(options.dataDir ? ['--data-dir', options.dataDir] : []), ...args];
}

export function utilityLauncher(utilityProcess: UtilityForker, options: HostLaunchOptions): EngineLauncher {
  return () => {
    if (!fs.existsSync(options.entry))
      throw new Error(`the engine host is not built (${options.entry} is missing): run "npm run build"`);
    const child = utilityProcess.fork(options.entry, hostArgs(options), {
      serviceName: 'AX engine',
      stdio: ['ignore', 'inherit', 'pipe'],
      env: (typeof options.env === 'function' ? options.env() : options.env) ?? process.env,
    });
    const proc: EngineProcess = {
      get pid() {
        return child.pid;
      },
      onMessage: (listener) => child.on('message', listener),
      // A utility process reports only its exit code; a signal shows as that code.
      onExit: (listener) => child.once('exit', (code) => listener({ code, signal: null })),
      onStderr(listener) {
        child.stderr?.setEncoding('utf8');
        child.stderr?.on('data', (chunk: string) => listener(chunk));
      },
      postMessage: (message: ParentMessage, transfer?: PortMain[]) =>
        child.postMessage(message, transfer as never[] | undefined),
      kill: () => void child.kill(),
    };
    return proc;
  };
}

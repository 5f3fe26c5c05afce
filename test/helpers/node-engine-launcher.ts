// The shell's EngineLauncher over child_process.fork instead of Electron's utilityProcess: the
// supervisor's tests run it on real processes (a fixture that crashes on purpose, or the real
// engine host). IPC cannot transfer ports, so a message's ports are refused here.
import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { EngineLauncher, EngineProcess } from '../../electron/shell-surface.ts';

export interface NodeLauncherOptions {
  script: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** every child started, for the test's clean-up */
  children?: ChildProcess[];
}

export function nodeEngineLauncher(options: NodeLauncherOptions): EngineLauncher {
  const execArgv = options.script.endsWith('.ts')
    ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href]
    : [];
  return () => {
    const child = fork(options.script, options.args ?? [], {
      env: options.env ?? process.env,
      execArgv,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    options.children?.push(child);
    child.stderr?.setEncoding('utf8');
    const proc: EngineProcess = {
      pid: child.pid,
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => child.once('exit', (code, signal) => listener({ code, signal })),
      onStderr: (listener) => child.stderr?.on('data', (text: string) => listener(text)),
      postMessage(message, transfer) {
        if (transfer?.length) throw new Error('child_process IPC cannot transfer ports');
        if (child.connected) child.send(message, () => undefined);
      },
      kill: () => void child.kill('SIGKILL'),
    };
    return proc;
  };
}

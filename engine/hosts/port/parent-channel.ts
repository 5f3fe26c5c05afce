// The engine host's link to its parent: Electron's `process.parentPort` in a utilityProcess, else
// the Node IPC channel of child_process.fork. Engine code does not depend on Electron's types:
// the few members used are described here.
import type { HostMessage } from '../../api/host-protocol.ts';

/** The part of Electron's MessagePortMain the host uses. */
export interface PortLike {
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
  postMessage(message: unknown): void;
  close(): void;
}

/** The part of Electron's `process.parentPort` the host uses. */
interface ParentPortLike {
  on(event: 'message', listener: (event: { data: unknown; ports?: PortLike[] }) => void): unknown;
  postMessage(message: unknown): void;
}

export interface ParentChannel {
  readonly kind: 'parentPort' | 'ipc';
  post(message: HostMessage): void;
  /** every message from the parent, with the ports it transferred (none over IPC) */
  onMessage(handler: (message: unknown, ports: PortLike[]) => void): void;
  /** the parent is gone: the IPC channel closed, or this process was re-parented */
  onGone(handler: () => void): void;
  /** true while messages pile up unsent: live events are then dropped, replies still go */
  backlogged(): boolean;
  /** resolves once what was posted has left this process (before it exits) */
  flushed(): Promise<void>;
}

/** Past this many IPC messages not yet written, a slow parent's events are dropped (with one notice). */
const MAX_UNSENT = 10_000;
const PARENT_CHECK_MS = 1_000;

export function parentChannel(): ParentChannel | undefined {
  const parentPort = (process as { parentPort?: ParentPortLike }).parentPort;
  if (parentPort) return portChannel(parentPort);
  if (process.send) return ipcChannel();
  return undefined;
}

function portChannel(parentPort: ParentPortLike): ParentChannel {
  return {
    kind: 'parentPort',
    post: (message) => parentPort.postMessage(message),
    onMessage: (handler) => parentPort.on('message', (event) => handler(event.data, event.ports ?? [])),
    onGone(handler) {
      // parentPort has no close event; the shell ending normally kills its utility processes,
      // and this catches the rest: the parent died and this process was handed to another.
      const parent = process.ppid;
      const timer = setInterval(() => {
        if (process.ppid !== parent) {
          clearInterval(timer);
          handler();
        }
      }, PARENT_CHECK_MS);
      timer.unref();
    },
    backlogged: () => false,
    flushed: () => new Promise((resolve) => setImmediate(resolve)),
  };
}

function ipcChannel(): ParentChannel {
  let unsent = 0;
  const waiting: (() => void)[] = [];
  const settle = () => {
    if (unsent === 0 || !process.connected) for (const resolve of waiting.splice(0)) resolve();
  };
  process.on('disconnect', settle);
  return {
    kind: 'ipc',
    post(message) {
      if (!process.connected || !process.send) return;
      unsent++;
      process.send(message, undefined, undefined, () => {
        unsent--;
        settle();
      });
    },
    onMessage: (handler) => process.on('message', (message) => handler(message, [])),
    onGone: (handler) => process.on('disconnect', handler),
    backlogged: () => unsent >= MAX_UNSENT,
    flushed: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        settle();
      }),
  };
}

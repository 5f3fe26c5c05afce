// The desktop app's MessageTransport for createApiClient: a MessagePort to the engine host, asked
// of the shell (window.axDesktop.requestEnginePort) and delivered as a window message, since ports
// cannot cross contextBridge. The engine host reads structured messages off its end (the same
// objects the WebSocket carries as JSON), so nothing is serialised here.
//
// A port's death must be seen for EngineConnection to ask for a new one. Chromium fires 'close' on
// a MessagePort whose other end closed only with the Blink feature MessagePortCloseEvent (off by
// default up to at least Chromium 156), so the shell's status is the signal that always works: a
// status other than 'running', or 'running' with another pid, means the engine behind the port is
// gone.
import type { MessageTransport } from '../../../engine/api/client.ts';
import { ENGINE_PORT_MESSAGE, type DesktopBridge } from '../../../engine/api/desktop-bridge.ts';
import type { EngineStatusStore } from './desktop-status.ts';

/** The part of a DOM MessagePort used here. */
export interface PortLike {
  postMessage(message: unknown): void;
  start(): void;
  close(): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: () => void): void;
}

export interface PortMessageEvent {
  data: unknown;
  origin: string;
  source: unknown;
  ports: readonly PortLike[];
}

/** The part of `window` used here. */
export interface PortWindow {
  readonly location: { readonly origin: string };
  addEventListener(type: 'message', listener: (event: PortMessageEvent) => void): void;
}

/** The engine port message the preload posts, and nothing else: our own window, our own origin. */
export function enginePortOf(event: PortMessageEvent, win: PortWindow): PortLike | undefined {
  if (event.source !== win || event.origin !== win.location.origin) return undefined;
  const data = event.data as { type?: unknown } | null;
  if (!data || typeof data !== 'object' || data.type !== ENGINE_PORT_MESSAGE) return undefined;
  return event.ports[0];
}

/**
 * Hands each engine port that arrives to the oldest request waiting for one. A port nobody waits
 * for (its request timed out) is closed, so the engine host does not keep a client no one reads.
 */
export class PortBroker {
  private waiters: ((port: PortLike) => void)[] = [];

  constructor(
    private readonly bridge: Pick<DesktopBridge, 'requestEnginePort'>,
    win: PortWindow,
  ) {
    win.addEventListener('message', (event) => {
      const port = enginePortOf(event, win);
      if (!port) return;
      const waiter = this.waiters.shift();
      if (waiter) waiter(port);
      else port.close();
    });
  }

  /** asks the shell for a fresh port; rejects when none arrives within `timeoutMs` */
  request(timeoutMs: number): Promise<PortLike> {
    return new Promise((resolve, reject) => {
      const waiter = (port: PortLike) => {
        clearTimeout(timer);
        resolve(port);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`the desktop app sent no engine port within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
      this.bridge.requestEnginePort();
    });
  }
}

/**
 * Wraps a port as a transport to the engine whose process is `pid`. It reports itself closed once:
 * when the port's other end closes (where Chromium says so), when the shell reports the engine
 * not running or running as another process, or when the page closes it.
 */
export function portTransport(
  port: PortLike,
  status: Pick<EngineStatusStore, 'subscribe'>,
  pid: number,
): MessageTransport {
  let closedReason: string | undefined;
  let closeHandler: ((reason: string) => void) | undefined;
  const finish = (reason: string) => {
    if (closedReason !== undefined) return;
    closedReason = reason;
    unsubscribe();
    port.close();
    closeHandler?.(reason);
  };
  const unsubscribe = status.subscribe((next) => {
    if (next.state !== 'running') finish(`the engine is ${next.state}`);
    else if (next.pid !== pid) finish('the engine was restarted');
  });
  port.addEventListener('close', () => finish('the desktop app closed the engine port'));
  return {
    send(message) {
      if (closedReason === undefined) port.postMessage(message);
    },
    onMessage(handler) {
      port.addEventListener('message', (event) => {
        if (closedReason === undefined) handler(event.data);
      });
      // messages queue on the port until start(): none is lost before the handler exists
      port.start();
    },
    onClose(handler) {
      closeHandler = handler;
      if (closedReason !== undefined) handler(closedReason);
    },
    close: () => finish('closed by the page'),
  };
}

export interface PortConnectOptions {
  broker: Pick<PortBroker, 'request'>;
  status: EngineStatusStore;
  /** how long to wait for the shell to deliver a port once the engine runs */
  portTimeoutMs?: number;
}

/**
 * Opens a transport for EngineConnection: waits until the shell says the engine runs (a port asked
 * of a starting or crashed engine would be dead on arrival), then asks for a port.
 */
export async function openPortTransport(options: PortConnectOptions): Promise<MessageTransport> {
  const running = await options.status.whenRunning();
  const port = await options.broker.request(options.portTimeoutMs ?? 10_000);
  const transport = portTransport(port, options.status, running.pid);
  // it may have stopped again while the port was on its way
  const now = options.status.current;
  if (now?.state !== 'running' || now.pid !== running.pid) {
    transport.close();
    throw new Error('the engine stopped while its port was being opened');
  }
  return transport;
}

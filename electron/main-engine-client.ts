// The main process's own EngineApi client (for the quit dialog's count of running tasks, and the
// tray): the engine/api client over a port the broker opens to each host as it starts.
import { type ApiClient, createApiClient } from '../engine/api/client.ts';
import type { PortBroker } from './port-broker.ts';
import type { PortMain } from './shell-surface.ts';

/** How long the main process waits for an answer: a hung engine must not hang Quit. */
const MAIN_CALL_TIMEOUT_MS = 5_000;

export function portClient(port: PortMain, timeoutMs = MAIN_CALL_TIMEOUT_MS): ApiClient {
  return createApiClient(
    {
      send: (message) => port.postMessage(message),
      onMessage: (handler) => {
        port.on('message', (event) => handler(event.data));
        port.start();
      },
      onClose: (handler) => port.on('close', () => handler('the engine host is gone')),
      close: () => port.close(),
    },
    { timeoutMs },
  );
}

export class MainEngineClient {
  private client: ApiClient | undefined;
  private readonly listeners = new Set<(client: ApiClient) => void>();

  constructor(broker: PortBroker, timeoutMs = MAIN_CALL_TIMEOUT_MS) {
    broker.connectMain((port) => {
      const client = portClient(port, timeoutMs);
      this.client = client;
      void client.closed.then(() => {
        if (this.client === client) this.client = undefined;
      });
      for (const l of this.listeners) l(client);
    });
  }

  /** the client of the live host, if one runs */
  current(): ApiClient | undefined {
    return this.client;
  }

  /** called with each new client (a host started) */
  onClient(listener: (client: ApiClient) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** tasks RUNNING now; 0 when no engine answers */
  async runningTasks(): Promise<number> {
    const client = this.client;
    if (!client) return 0;
    try {
      return (await client.dashboard()).runningTasks;
    } catch {
      return 0;
    }
  }
}

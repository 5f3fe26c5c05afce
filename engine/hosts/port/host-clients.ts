// The engine host's API clients, each served by serveConnection as a WebSocket client is: under
// utilityProcess one transferred MessagePort per client (renderer ↔ engine directly), under
// child_process.fork clients multiplexed over the IPC channel (Node IPC cannot transfer ports).
import type { EngineApi } from '../../api/engine-api.ts';
import type { ParentMessage } from '../../api/host-protocol.ts';
import { type ApiConnection, droppedNotice, serveConnection } from '../../server/api-connection.ts';
import type { ParentChannel, PortLike } from './parent-channel.ts';

type ClientMessage = Extract<ParentMessage, { client: number }>;

export function isClientMessage(message: ParentMessage): message is ClientMessage {
  return (
    (message.type === 'open' || message.type === 'api' || message.type === 'close') &&
    Number.isSafeInteger(message.client) &&
    message.client > 0
  );
}

export class HostClients {
  private readonly ipc = new Map<number, ApiConnection>();
  private readonly ports = new Map<PortLike, ApiConnection>();
  private closed = false;

  constructor(
    private readonly api: EngineApi,
    private readonly channel: ParentChannel,
  ) {}

  /** utilityProcess: the port's other end (a window's) is one client until either side closes it */
  addPort(port: PortLike): void {
    if (this.closed) return port.close();
    const connection = serveConnection({ api: this.api, send: (message) => port.postMessage(message) });
    this.ports.set(port, connection);
    port.on('message', (event) => connection.receive(event.data));
    port.on('close', () => {
      connection.close();
      this.ports.delete(port);
    });
    port.start();
  }

  /** IPC: the parent opens, speaks for or closes one of its clients */
  receive(message: ClientMessage): void {
    const { client } = message;
    if (message.type === 'close') {
      this.ipc.get(client)?.close();
      this.ipc.delete(client);
      return;
    }
    if (message.type === 'open') {
      if (this.closed) return this.channel.post({ type: 'closed', client, reason: 'the engine is stopping' });
      this.ipc.get(client)?.close();
      this.ipc.set(client, this.ipcConnection(client));
      return;
    }
    const connection = this.ipc.get(client);
    if (connection) connection.receive(message.message);
    else
      this.channel.post({
        type: 'closed',
        client,
        reason: this.closed ? 'the engine is stopping' : `no client ${client}: send {type: "open"} first`,
      });
  }

  private ipcConnection(client: number): ApiConnection {
    const send = (message: unknown) => this.channel.post({ type: 'api', client, message });
    return serveConnection({
      api: this.api,
      send,
      canSendEvent: () => !this.channel.backlogged(),
      onDropped: (count) => send(droppedNotice(count)),
    });
  }

  /** Ends every client (the engine stops): their pending requests fail as on a closed socket. */
  closeAll(reason: string): void {
    this.closed = true;
    for (const [client, connection] of this.ipc) {
      connection.close();
      this.channel.post({ type: 'closed', client, reason });
    }
    this.ipc.clear();
    for (const [port, connection] of this.ports) {
      connection.close();
      port.close();
    }
    this.ports.clear();
  }
}

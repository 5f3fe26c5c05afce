// The engine's server side and the UI's client in one process: serveConnection (what `ax serve`
// and the desktop's engine host run per client) on one end, a MessageTransport for the UI's
// EngineConnection on the other. Every message goes through JSON, as over a socket, so an answer
// that would not survive the wire fails here too; delivery is asynchronous, as on a socket.
import type { MessageTransport } from '../../../engine/api/client.ts';
import type { EngineApi } from '../../../engine/api/engine-api.ts';
import { serveConnection } from '../../../engine/server/api-connection.ts';
import type { ConnectionIdentity } from '../../../engine/server/api-dispatch.ts';

const wire = (message: unknown): unknown => JSON.parse(JSON.stringify(message));

/** `identity`: who the server side took the client for (a signed-in person), as `ax serve` sets it */
export function memoryTransport(api: EngineApi, identity?: ConnectionIdentity): MessageTransport {
  let toClient: (message: unknown) => void = () => undefined;
  let onClosed: (reason: string) => void = () => undefined;
  let open = true;
  const server = serveConnection({
    api,
    ...(identity && { identity }),
    send: (message) => {
      const copy = wire(message);
      queueMicrotask(() => open && toClient(copy));
    },
  });
  return {
    send(message) {
      const copy = wire(message);
      queueMicrotask(() => open && server.receive(copy));
    },
    onMessage(handler) {
      toClient = handler;
    },
    onClose(handler) {
      onClosed = handler;
    },
    close() {
      if (!open) return;
      open = false;
      server.close();
      onClosed('closed by the test');
    },
  };
}

// The browser's MessageTransport for createApiClient: one JSON object per WebSocket text frame to
// /api on the page's own origin (the session cookie authenticates the upgrade).
import { ENGINE_STOPPED, ENGINE_STOPPED_CODE, type MessageTransport } from '../../../engine/api/client.ts';

export function apiSocketUrl(loc: Pick<Location, 'protocol' | 'host'> = location): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/api`;
}

/** Opens the socket; resolves with the transport once open, rejects if it closes first. */
export function openWebSocketTransport(url: string = apiSocketUrl()): Promise<MessageTransport> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    let messageHandler: (message: unknown) => void = () => undefined;
    let closeHandler: (reason: string) => void = () => undefined;
    let opened = false;
    socket.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        return; // not ours: ignore rather than break the stream
      }
      messageHandler(parsed);
    });
    socket.addEventListener('close', (event) => {
      if (!opened)
        reject(new Error(`could not connect to the engine (${event.code}${event.reason ? `: ${event.reason}` : ''})`));
      else
        closeHandler(
          event.code === ENGINE_STOPPED_CODE
            ? `${ENGINE_STOPPED}${event.reason}`
            : event.reason || `code ${event.code}`,
        );
    });
    socket.addEventListener('open', () => {
      opened = true;
      resolve({
        send: (message) => {
          if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
        },
        onMessage: (handler) => {
          messageHandler = handler;
        },
        onClose: (handler) => {
          closeHandler = handler;
        },
        close: () => socket.close(1000, 'closed by the page'),
      });
    });
  });
}

// EngineApi over WebSocket from Node (the CLI talking to a running `ax serve`): the shared
// client of engine/api over a `ws` socket.
import WebSocket from 'ws';
import { type ApiClient, createApiClient } from '../api/client.ts';
import { AxError } from '../api/errors.ts';

export type RemoteApi = ApiClient;

export async function connectApi(url: string, token: string): Promise<RemoteApi> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', (err) => reject(new AxError('unavailable', `cannot reach the engine at ${url}: ${err.message}`)));
  });
  ws.on('error', () => undefined);
  return createApiClient({
    send: (message) => ws.send(JSON.stringify(message)),
    onMessage: (handler) =>
      ws.on('message', (data) => {
        try {
          handler(JSON.parse(String(data)));
        } catch {
          // a reply that is not JSON is dropped; its caller times out or sees the close
        }
      }),
    // 1009: the request was over the server's frame limit (it closes without a reason)
    onClose: (handler) =>
      ws.on('close', (code, reason) =>
        handler(String(reason) || (code === 1009 ? 'the request was larger than the server accepts' : '')),
      ),
    close: () => ws.close(),
  });
}

/** A fresh single-use sign-in code from a running `ax serve` (for `ax open`). */
export async function requestSignInCode(port: number, token: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/auth/code`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  }).catch((err: unknown) => {
    throw new AxError(
      'unavailable',
      `cannot reach the engine on port ${port}: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  if (!res.ok) throw new AxError('unavailable', `the engine refused a sign-in code (HTTP ${res.status})`);
  return ((await res.json()) as { code: string }).code;
}

// EngineApi over WebSocket, for the CLI talking to a running `ax serve`.
import WebSocket from 'ws';
import { API_METHODS, type ApiResponse, type EngineApi } from '../api/engine-api.ts';
import { AxError, type AxErrorCode, type ValidationProblem } from '../api/errors.ts';

export interface RemoteApi extends EngineApi {
  close(): void;
}

export async function connectApi(url: string, token: string): Promise<RemoteApi> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', (err) => reject(new AxError('unavailable', `cannot reach the engine at ${url}: ${err.message}`)));
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as ApiResponse | { event: unknown };
    if (!('id' in msg)) return;
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if ('error' in msg) p.reject(new AxError(msg.error.code as AxErrorCode, msg.error.message, (msg.error.problems ?? []) as ValidationProblem[]));
    else p.resolve(msg.result);
  });
  ws.on('close', () => {
    for (const p of pending.values()) p.reject(new AxError('unavailable', 'the engine closed the connection'));
    pending.clear();
  });
  const call = (method: string, params: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  const api = Object.fromEntries(API_METHODS.map((m) => [m, (...params: unknown[]) => call(m, params)])) as unknown as EngineApi;
  return Object.assign(api, { close: () => ws.close() });
}

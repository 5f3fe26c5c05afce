// Headless transport: the EngineApi over WebSocket on 127.0.0.1 (token required, Origin
// checked), engine events pushed to every client, and the HTTP event endpoint
// POST /events/NAME for external systems (its own token).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ApiRequest, EngineApi } from '../api/engine-api.ts';
import type { EngineEvent } from '../ports/coordinator.ts';
import { dispatchRequest } from './api-dispatch.ts';

export interface ApiServerOptions {
  api: EngineApi;
  subscribe(handler: (event: EngineEvent) => void): Promise<() => void>;
  token: string;
  /** token for POST /events/NAME; undefined disables the endpoint */
  webhookToken?: string;
  host?: string;
  port?: number;
  /** Origins allowed on the WebSocket upgrade besides none (CLI clients send none) */
  allowedOrigins?: string[];
}

export interface ApiServer {
  port: number;
  close(): Promise<void>;
}

function bearer(req: http.IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
}

async function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error(`payload over ${limit} bytes`);
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const server = http.createServer((req, res) => void handleHttp(req, res));
  const reply = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  async function handleHttp(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const match = /^\/events\/([A-Za-z0-9][A-Za-z0-9_.-]{0,99})$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) return reply(res, 404, { error: 'POST /events/NAME is the only HTTP endpoint; the API is on WebSocket' });
    if (!options.webhookToken || bearer(req) !== options.webhookToken) return reply(res, 401, { error: 'missing or wrong webhook token (Authorization: Bearer …)' });
    try {
      const payload = await readBody(req, 1024 * 1024);
      const response = await dispatchRequest(options.api, { id: 0, method: 'trigger', params: [match[1], payload || undefined, 'webhook'] });
      if ('error' in response) return reply(res, response.error.code === 'not_found' ? 404 : 400, { error: response.error.message });
      return reply(res, 202, { runs: response.result });
    } catch (err) {
      return reply(res, 413, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024 * 1024,
  });
  server.on('upgrade', (req, socket, head) => {
    const origin = req.headers.origin;
    const originOk = origin === undefined || (options.allowedOrigins ?? []).includes(origin);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const token = bearer(req) ?? url.searchParams.get('token');
    if (!originOk || token !== options.token) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const clients = new Set<WebSocket>();
  wss.on('connection', (ws: WebSocket) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
    ws.on('message', (data) => {
      let request: ApiRequest;
      try {
        request = JSON.parse(String(data)) as ApiRequest;
      } catch {
        ws.send(JSON.stringify({ id: 0, error: { code: 'validation', message: 'request is not JSON' } }));
        return;
      }
      void dispatchRequest(options.api, request).then((response) => ws.send(JSON.stringify(response)));
    });
  });
  const unsubscribe = await options.subscribe((event) => {
    const text = JSON.stringify({ event });
    for (const ws of clients) if (ws.readyState === ws.OPEN) ws.send(text);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      unsubscribe();
      for (const ws of clients) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

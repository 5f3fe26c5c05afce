// Headless transport: the EngineApi over WebSocket on 127.0.0.1, the built UI with its sign-in,
// log downloads, the HTTP event endpoint POST /events/NAME for external systems, monitor pings
// POST /ping/NAME (ping-endpoint.ts), and GET /metrics (metrics-server.ts).
//
// Who may connect: a client with the API token in an Authorization header (the CLI; no Origin),
// or a browser page of this server's own origin holding a session cookie (the UI, signed in by a
// single-use code). The token is never accepted in a URL.
import { createHash } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { ENGINE_STOPPED_CODE } from '../api/client.ts';
import type { EngineApi } from '../api/engine-api.ts';
import { droppedNotice, serveConnection } from './api-connection.ts';
import { DEFAULT_CONFIG } from '../core/model/config.ts';
import { jsonProblem } from '../core/model/payload.ts';
import { MAX_SPEC_JSON_BYTES } from '../core/workflow/workflow-file.ts';
import { type ConnectionIdentity, dispatchRequest } from './api-dispatch.ts';
import { sameSecret, SignIn } from './sign-in.ts';
import { SECURITY_HEADERS, serveStatic } from './static-ui.ts';
import { type MetricsOptions, serveMetrics } from './metrics-server.ts';
import { hostChecker, originHosts, refuseHost } from './host-check.ts';
import { peerUser } from './peer-uid.ts';
import { bearer, NotText, readBody, TooLarge } from './http-body.ts';
import { PING_PATH, servePing } from './ping-endpoint.ts';

export interface ApiServerOptions {
  api: EngineApi;
  /** the API token; a function is asked on every request (a reload may change it) */
  token: string | (() => string);
  /** token for POST /events/NAME, read on every request; undefined disables the endpoint */
  webhookToken?: () => string | undefined;
  host?: string;
  port?: number;
  /** the built UI (dist/ui); without it / says how to build it */
  uiDir?: string;
  /** Origins allowed on the WebSocket upgrade besides the server's own */
  allowedOrigins?: string[];
  /** the event payload limit (the engine's maxEventPayloadBytes): a larger webhook body is refused with 413 */
  maxPayloadBytes?: number;
  /** GET /metrics: the engine's metrics and who may scrape them; without it /metrics is 404 */
  metrics?: MetricsOptions;
  /** how long a client over its send budget may read nothing before it is closed; default 60 s */
  sendStallMs?: number;
}

export interface ApiServer {
  port: number;
  /** a fresh single-use sign-in link for the UI */
  signInUrl(): string;
  /** with a reason, each page is told the engine stops on purpose, and why (ENGINE_STOPPED_CODE) */
  close(reason?: string): Promise<void>;
}

const SESSION_COOKIE = 'ax_session';
/** the largest legitimate request (the largest workflow as JSON, or a payload) with room for the request around it */
export const MAX_FRAME_BYTES = MAX_SPEC_JSON_BYTES + 1024 * 1024;
/** A refused webhook's status by error code (else 400); 409: scheduling is paused, send it again after the resume. */
const WEBHOOK_STATUS: Partial<Record<string, number>> = { not_found: 404, conflict: 409 };
/**
 * One client's send budget: past this much unsent data its events are dropped (with one notice)
 * and its requests are no longer read until it reads (api-connection.ts)
 */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** a client over its budget that reads nothing this long is closed (1008, with the reason) */
const SEND_STALL_MS = 60_000;

function cookie(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const apiToken = () => (typeof options.token === 'function' ? options.token() : options.token);
  const signIn = new SignIn();
  const host = options.host ?? '127.0.0.1';
  let port = 0;
  const ownOrigins = () => [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://${host}:${port}`];
  const originOk = (origin: string | undefined) =>
    origin === undefined || ownOrigins().includes(origin) || (options.allowedOrigins ?? []).includes(origin);
  // Every request and upgrade names this server in its Host header (DNS rebinding: host-check.ts).
  const hostOk = hostChecker(host, originHosts(options.allowedOrigins));

  const reply = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      ...SECURITY_HEADERS,
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...headers,
    });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  /** the API token (CLI, scripts) or a signed-in browser session of our own origin */
  const authorized = (req: http.IncomingMessage) =>
    sameSecret(bearer(req), apiToken()) ||
    (originOk(req.headers.origin) && signIn.validSession(cookie(req, SESSION_COOKIE)));

  const server = http.createServer((req, res) => {
    handleHttp(req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: err instanceof Error ? err.message : String(err) });
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  async function handleHttp(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!hostOk(req.headers.host)) return refuseHost(res, req.headers.host);
    const url = new URL(req.url ?? '/', 'http://localhost');
    // POST /api/v1/events/NAME, and /events/NAME as it was first published.
    const events = /^(?:\/api\/v1)?\/events\/([A-Za-z0-9][A-Za-z0-9_.-]{0,99})$/.exec(url.pathname);
    if (events) return webhook(req, res, events[1] as string);
    const ping = PING_PATH.exec(url.pathname);
    if (ping)
      return servePing(req, res, ping, url, {
        api: options.api,
        webhookToken: options.webhookToken,
        maxPayloadBytes: options.maxPayloadBytes ?? DEFAULT_CONFIG.maxEventPayloadBytes,
        reply,
      });
    if (url.pathname === '/auth/session') return session(req, res);
    if (url.pathname === '/metrics' && options.metrics) return serveMetrics(req, res, options.metrics);
    if (url.pathname === '/auth/code') {
      // `ax open` asks the running engine for a fresh link, proving itself with the API token.
      if (req.method !== 'POST') return reply(res, 405, { error: 'POST /auth/code' });
      if (!sameSecret(bearer(req), apiToken()))
        return reply(res, 401, { error: 'the API token (DATA_DIR/api-token) is required' });
      return reply(res, 200, { code: signIn.createCode() });
    }
    const download = /^\/download\/logs\/([1-9][0-9]{0,15})$/.exec(url.pathname);
    if (download && req.method === 'GET') return downloadLog(req, res, Number(download[1]));
    if (serveStatic(options.uiDir, req, res)) return;
    return reply(res, 404, {
      error:
        'not found: the UI is at /, the API on WebSocket /api, webhooks at POST /api/v1/events/NAME, monitor pings at POST /ping/NAME, metrics at GET /metrics',
    });
  }

  async function session(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!originOk(req.headers.origin)) return reply(res, 403, { error: 'foreign origin' });
    if (req.method === 'GET') return reply(res, signIn.validSession(cookie(req, SESSION_COOKIE)) ? 204 : 401);
    if (req.method === 'DELETE') {
      signIn.endSession(cookie(req, SESSION_COOKIE));
      return reply(res, 204, undefined, {
        'set-cookie': `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`,
      });
    }
    if (req.method !== 'POST') return reply(res, 405, { error: 'GET, POST or DELETE /auth/session' });
    let code: unknown;
    try {
      code = (JSON.parse(await readBody(req, 4096)) as { code?: unknown }).code;
    } catch {
      return reply(res, 400, { error: 'send {"code": "..."} as JSON' });
    }
    const id = signIn.exchange(code);
    if (!id)
      return reply(res, 401, {
        error: 'this sign-in link was already used or has expired: run "ax open" for a fresh one',
      });
    return reply(res, 204, undefined, {
      'set-cookie': `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800`,
    });
  }

  async function webhook(req: http.IncomingMessage, res: http.ServerResponse, event: string): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, { error: `POST /events/${event}` });
    const expected = options.webhookToken?.();
    if (!expected)
      return reply(res, 404, {
        error: 'webhooks are off: put a secret of at least 16 characters in DATA_DIR/webhook-token to turn them on',
      });
    if (!sameSecret(bearer(req), expected))
      return reply(res, 401, { error: 'missing or wrong webhook token (Authorization: Bearer …)' });
    let payload: string;
    try {
      payload = await readBody(req, options.maxPayloadBytes ?? DEFAULT_CONFIG.maxEventPayloadBytes);
    } catch (err) {
      // Refused before anything starts; the connection is closed after the reply.
      res.setHeader('connection', 'close');
      return reply(res, err instanceof TooLarge ? 413 : err instanceof NotText ? 415 : 400, {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    // A body sent as JSON must be JSON; other content types pass as they are.
    const problem =
      /^application\/([\w.+-]*\+)?json\b/i.test(req.headers['content-type'] ?? '') && payload !== ''
        ? jsonProblem(payload)
        : undefined;
    if (problem)
      return reply(res, 400, {
        error: `the body is sent as JSON (Content-Type: ${req.headers['content-type']}) but is not JSON: ${problem}`,
      });
    // A sender that retries sends the same key: within 24 h the repeat gets the first one's runs.
    const key = req.headers['idempotency-key'];
    if (Array.isArray(key)) return reply(res, 400, { error: 'send one Idempotency-Key header, not several' });
    const from = `webhook from ${req.socket.remoteAddress ?? 'an unknown address'}`;
    const response = await dispatchRequest(options.api, {
      id: 0,
      method: 'trigger',
      params: [event, payload || undefined, from, ...(key === undefined ? [] : [key])],
    });
    if ('error' in response)
      return reply(res, WEBHOOK_STATUS[response.error.code] ?? 400, { error: response.error.message });
    return reply(res, 202, { runs: response.result });
  }

  async function downloadLog(req: http.IncomingMessage, res: http.ServerResponse, instanceId: number): Promise<void> {
    if (!authorized(req)) return reply(res, 401, { error: 'sign in first (ax open)' });
    const inst = await options.api.getInstance(instanceId).catch(() => undefined);
    if (!inst) return reply(res, 404, { error: `no task instance ${instanceId}` });
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'content-disposition': `attachment; filename="run-${inst.runId}-${inst.taskName.replace(/[^A-Za-z0-9_.-]/g, '_')}-attempt-${inst.attempt}.log"`,
      'cache-control': 'no-store',
    });
    for (let after = 0; ;) {
      const lines = await options.api.readLogs(instanceId, after, 10_000);
      if (lines.length === 0) break;
      const text = lines.map((l) => `${l.line}\n`).join('');
      after = (lines[lines.length - 1] as { seq: number }).seq;
      if (!res.write(text)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  wss.on('error', () => undefined);
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    if (!hostOk(req.headers.host)) {
      socket.write('HTTP/1.1 421 Misdirected Request\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/api' || !originOk(req.headers.origin) || !authorized(req)) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    void identityOf(req).then((identity) =>
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req, identity)),
    );
  });

  // Who a client is, as the server authenticated it: the holder of the API token, named by the
  // user that owns the client's socket (peer-uid.ts: root, or whoever copied the token, is not
  // the data dir's owner), or a UI session signed in by a link printed to that owner; the audit
  // records this, and a client's own actor text only as a note (connection-actor.ts).
  const hostname = os.hostname();
  const owner = `${os.userInfo().username}@${hostname}`;
  const identityOf = async (req: http.IncomingMessage): Promise<ConnectionIdentity> => {
    if (sameSecret(bearer(req), apiToken())) {
      const peer = await peerUser(req.socket).catch(() => undefined);
      if (peer === undefined) return { name: `${owner} (API token, peer unknown)`, alsoKnownAs: [owner] };
      return { name: `${peer}@${hostname} (API token)`, alsoKnownAs: [`${peer}@${hostname}`] };
    }
    const session = createHash('sha256')
      .update(cookie(req, SESSION_COOKIE) ?? '')
      .digest('hex')
      .slice(0, 8);
    return { name: `${owner} (UI session ${session})`, alsoKnownAs: ['ui'] };
  };
  const clients = new Set<WebSocket>();
  const stallMs = options.sendStallMs ?? SEND_STALL_MS;
  wss.on('connection', (ws: WebSocket, _req: http.IncomingMessage, identity: ConnectionIdentity) => {
    clients.add(ws);
    let stall: ReturnType<typeof setTimeout> | undefined;
    // Each write's callback says it left for the kernel: the client reads, so more may go.
    const wrote = () => {
      if (ws.bufferedAmount < MAX_BUFFERED_BYTES && stall) {
        clearTimeout(stall);
        stall = undefined;
      }
      connection.drained();
    };
    const send = (message: unknown) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(JSON.stringify(message), wrote);
      // Over the budget: a client that reads nothing for stallMs is closed, with the reason.
      if (ws.bufferedAmount >= MAX_BUFFERED_BYTES && !stall) {
        stall = setTimeout(() => {
          const mib = (ws.bufferedAmount / 1048576).toFixed(1);
          ws.close(
            1008,
            `closed: this client read none of its answers for ${Math.round(stallMs / 1000)} s (${mib} MiB unsent); read what you ask for`.slice(
              0,
              123,
            ),
          );
          // its close frame waits behind what it does not read: the socket goes soon after
          setTimeout(() => ws.terminate(), 5_000).unref();
        }, stallMs);
        stall.unref();
      }
    };
    const connection = serveConnection({
      api: options.api,
      identity,
      send,
      onDropped: (count) => send(droppedNotice(count)),
      // Answers and events share one budget; past it this client's requests are not read.
      budget: {
        unsent: () => ws.bufferedAmount,
        limit: MAX_BUFFERED_BYTES,
        pauseReading: () => ws.pause(),
        resumeReading: () => ws.resume(),
      },
    });
    // A malformed frame (bad UTF-8, too large) ends this connection, never the server.
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      if (stall) clearTimeout(stall);
      clients.delete(ws);
      connection.close();
    });
    ws.on('message', (data) => {
      let message: unknown;
      try {
        message = JSON.parse(String(data));
      } catch {
        send({ id: 0, error: { code: 'validation', message: 'request is not JSON' } });
        return;
      }
      connection.receive(message);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    port,
    signInUrl: () =>
      `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}/#code=${signIn.createCode()}`,
    async close(reason?: string) {
      if (reason) {
        // a close frame's reason holds at most 123 bytes
        let said = reason;
        while (Buffer.byteLength(said) > 123) said = said.slice(0, -1);
        for (const ws of clients) ws.close(ENGINE_STOPPED_CODE, said);
        // a page that does not answer the close in time is cut off
        await new Promise<void>((resolve) => setTimeout(resolve, 300).unref());
      }
      for (const ws of clients) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

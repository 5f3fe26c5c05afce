// Headless transport: the EngineApi over WebSocket on 127.0.0.1, the built UI with its sign-in,
// log downloads, the HTTP event endpoint POST /events/NAME for external systems, monitor pings
// POST /ping/NAME (ping-endpoint.ts), and GET /metrics (metrics-server.ts).
//
// Who may connect: a client with the API token in an Authorization header (the CLI; no Origin),
// or a browser page of this server's own origin holding a session cookie (the UI, signed in by a
// single-use code). The token is never accepted in a URL. In team mode (`accounts`) people sign
// in (auth-routes.ts), every connection carries its principal and every request is authorized
// (api-dispatch.ts); the data dir's API token is the node's own admin.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AuthConfig } from '../api/access.ts';
import { ENGINE_STOPPED_CODE } from '../api/client.ts';
import type { EngineApi } from '../api/engine-api.ts';
import type { Authenticator } from '../core/access/authenticator.ts';
import { droppedNotice, serveConnection } from './api-connection.ts';
import { DEFAULT_CONFIG } from '../core/model/config.ts';
import { MAX_SPEC_JSON_BYTES } from '../core/workflow/workflow-file.ts';
import type { ConnectionIdentity, ServerAccess } from './api-dispatch.ts';
import { type AuthContext, cookieValue, principalOf, type RequestFacts, serveAuth } from './auth-routes.ts';
import { Authorizer } from './authorize.ts';
import { sameSecret, SignIn } from './sign-in.ts';
import { SignInLimiter } from './sign-in-limit.ts';
import { SECURITY_HEADERS, serveStatic } from './static-ui.ts';
import { accountMetricsToken, type MetricsOptions, serveMetrics } from './metrics-server.ts';
import { hostChecker, originHosts, refuseHost } from './host-check.ts';
import { peerUser } from './peer-uid.ts';
import { bearer } from './http-body.ts';
import { PING_PATH, servePing } from './ping-endpoint.ts';
import {
  createHttpServer,
  listenError,
  refusePlainHttp,
  refusePlainUpgrade,
  reloadTls,
  RequestSecurity,
  type TransportOptions,
} from './listen.ts';
import { type HookAuth, serveWebhook } from './webhook-endpoint.ts';

/**
 * An extra HTTP route (SSO: oidc.ts; the CLI's device sign-in): answers true when it handled the
 * request. Routes are asked in order after the server's own /auth/* and before the UI's files.
 */
export type HttpRoute = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  ctx: AuthContext,
) => boolean | Promise<boolean>;

/** An extra WebSocket endpoint by path (the edge workers' /worker): it authenticates the upgrade itself. */
export type UpgradeRoute = (req: http.IncomingMessage, socket: Duplex, head: Buffer, ctx: AuthContext) => void;

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
  /** TLS, trusted proxies, plain HTTP beyond loopback (listen.ts); default plain HTTP, loopback clients only */
  transport?: TransportOptions;
  /** team mode: people sign in with accounts (the accounts service); solo without */
  accounts?: Authenticator;
  /** team mode: what GET /auth/config answers; default local accounts only */
  authConfig?: () => AuthConfig;
  /** more HTTP routes (see HttpRoute) */
  routes?: HttpRoute[];
  /** more WebSocket endpoints by path (see UpgradeRoute) */
  upgrades?: Record<string, UpgradeRoute>;
  /** the client's address and TLS (a trusted proxy's X-Forwarded-*); default the socket's */
  requestFacts?: RequestFacts;
}

export interface ApiServer {
  port: number;
  /** a fresh single-use sign-in link for the UI */
  signInUrl(): string;
  /** reads --tls-cert and --tls-key again (SIGHUP); throws, keeping the old ones, when they are unusable */
  reloadTls(): void;
  /** with a reason, each page is told the engine stops on purpose, and why (ENGINE_STOPPED_CODE) */
  close(reason?: string): Promise<void>;
}

const SESSION_COOKIE = 'ax_session';
const FOREIGN_UPGRADE = 'HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n';
/** the largest legitimate request (the largest workflow as JSON, or a payload) with room for the request around it */
export const MAX_FRAME_BYTES = MAX_SPEC_JSON_BYTES + 1024 * 1024;
/**
 * One client's send budget: past this much unsent data its events are dropped (with one notice)
 * and its requests are no longer read until it reads (api-connection.ts)
 */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** a client over its budget that reads nothing this long is closed (1008, with the reason) */
const SEND_STALL_MS = 60_000;

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const apiToken = () => (typeof options.token === 'function' ? options.token() : options.token);
  const signIn = new SignIn();
  const host = options.host ?? '127.0.0.1';
  let port = 0;
  const security = new RequestSecurity(options.transport);
  const scheme = options.transport?.tls ? 'https' : 'http';
  const ownOrigins = () => ['127.0.0.1', 'localhost', host].map((name) => `${scheme}://${name}:${port}`);
  // Same origin: the name the request reached us by (Host, checked below; a trusted proxy's X-Forwarded-Host).
  const originOk = (req: http.IncomingMessage) => {
    const origin = req.headers.origin;
    return (
      origin === undefined ||
      ownOrigins().includes(origin) ||
      origin === security.ownOrigin(req) ||
      (options.allowedOrigins ?? []).includes(origin)
    );
  };
  // Every request and upgrade names this server in its Host header (DNS rebinding: host-check.ts).
  // Under TLS any name passes: a rebound name cannot complete the handshake (the certificate does
  // not name it); behind a trusted proxy, the proxy's own server names decide. On a wildcard
  // address (--listen 0.0.0.0:PORT) this machine's own name passes too.
  const ownName = ['0.0.0.0', '::'].includes(host) ? [os.hostname()] : [];
  const hostCheck = hostChecker(host, [...originHosts(options.allowedOrigins), ...ownName]);
  const hostOk = (req: http.IncomingMessage) =>
    scheme === 'https' || security.viaTrustedProxy(req) || hostCheck(req.headers.host);

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
    sameSecret(bearer(req), apiToken()) || (originOk(req) && signIn.validSession(cookieValue(req, SESSION_COOKIE)));
  // the client's address and TLS as listen.ts sees them (a trusted proxy's X-Forwarded-*)
  const facts: RequestFacts = options.requestFacts ?? {
    address: (req) => security.address(req),
    secure: (req) => security.secure(req),
  };
  const accounts = options.accounts;
  const ctx: AuthContext = {
    reply,
    facts,
    apiToken,
    links: signIn,
    originOk,
    ...(accounts && {
      team: {
        accounts,
        limiter: new SignInLimiter(),
        config: options.authConfig ?? (() => ({ accounts: true, local: true })),
      },
    }),
  };
  // team mode: one authorizer (its caches) for every connection, refusals audited
  const access: ServerAccess | undefined = accounts && {
    authorizer: new Authorizer(options.api),
    recordRefusal: (principal, what, why) => accounts.recordRefusal(principal, what, why),
  };
  const hookAuth: HookAuth = {
    webhookToken: options.webhookToken,
    address: facts.address,
    ...(accounts && access && { team: { tokenPrincipal: (t, a) => accounts.tokenPrincipal(t, a), access } }),
  };
  const metrics: MetricsOptions | undefined = options.metrics && {
    ...options.metrics,
    ...(accounts && { accountToken: accountMetricsToken(accounts) }),
  };

  const server = createHttpServer(options.transport?.tls, (req, res) => {
    handleHttp(req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: err instanceof Error ? err.message : String(err) });
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  async function handleHttp(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!hostOk(req)) return refuseHost(res, req.headers.host);
    const plain = security.plainHttpRefusal(req);
    if (plain) return refusePlainHttp(req, res, plain);
    const url = new URL(req.url ?? '/', 'http://localhost');
    // POST /api/v1/events/NAME, and /events/NAME as it was first published.
    const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_CONFIG.maxEventPayloadBytes;
    const events = /^(?:\/api\/v1)?\/events\/([A-Za-z0-9][A-Za-z0-9_.-]{0,99})$/.exec(url.pathname);
    if (events)
      return serveWebhook(req, res, events[1] as string, { api: options.api, auth: hookAuth, maxPayloadBytes, reply });
    const ping = PING_PATH.exec(url.pathname);
    if (ping) return servePing(req, res, ping, url, { api: options.api, auth: hookAuth, maxPayloadBytes, reply });
    if (await serveAuth(req, res, url, ctx)) return;
    for (const route of options.routes ?? []) if (await route(req, res, url, ctx)) return;
    if (url.pathname === '/metrics' && metrics) return serveMetrics(req, res, metrics);
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

  async function downloadLog(req: http.IncomingMessage, res: http.ServerResponse, instanceId: number): Promise<void> {
    if (access) {
      const principal = await principalOf(req, ctx);
      if (!principal) return reply(res, 401, { error: 'sign in first' });
      try {
        await access.authorizer.check(principal, 'readLogs', [instanceId]);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        await access
          .recordRefusal(principal, `download the log of task instance ${instanceId}`, why)
          .catch(() => undefined);
        return reply(res, 403, { error: why });
      }
    } else if (!authorized(req)) return reply(res, 401, { error: 'sign in first (ax open)' });
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
    if (!hostOk(req)) {
      socket.write('HTTP/1.1 421 Misdirected Request\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    const plain = security.plainHttpRefusal(req);
    if (plain) return refusePlainUpgrade(socket, plain);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const extra = options.upgrades?.[url.pathname];
    if (extra) return extra(req, socket, head, ctx);
    const refuse = () => {
      socket.write(FOREIGN_UPGRADE);
      socket.destroy();
    };
    if (url.pathname !== '/api' || !originOk(req) || (!access && !authorized(req))) return refuse();
    void identityOf(req).then(
      (identity) =>
        identity ? wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req, identity)) : refuse(),
      () => refuse(),
    );
  });

  // Who a client is, as the server authenticated it: the API token's holder, named by the owner of
  // the client's socket (peer-uid.ts), or a UI session signed in by a link printed to that owner;
  // the audit records this, a client's own actor text only as a note (connection-actor.ts).
  const hostname = os.hostname();
  const owner = `${os.userInfo().username}@${hostname}`;
  const identityOf = async (req: http.IncomingMessage): Promise<ConnectionIdentity | undefined> => {
    if (access) {
      // team mode: the principal of a token or a session; nobody (an expired or revoked token) is refused
      const principal = await principalOf(req, ctx);
      // the UI's own actor text ("ui") says nothing the session does not: no note for it
      return (
        principal && { name: principal.user, principal, access, alsoKnownAs: principal.via === 'session' ? ['ui'] : [] }
      );
    }
    if (sameSecret(bearer(req), apiToken())) {
      const peer = await peerUser(req.socket).catch(() => undefined);
      if (peer === undefined) return { name: `${owner} (API token, peer unknown)`, alsoKnownAs: [owner] };
      return { name: `${peer}@${hostname} (API token)`, alsoKnownAs: [`${peer}@${hostname}`] };
    }
    const session = createHash('sha256')
      .update(cookieValue(req, SESSION_COOKIE) ?? '')
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
    server.once('error', (err) => reject(listenError(err, host, options.port ?? 0)));
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    port,
    signInUrl: () =>
      `${scheme}://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${port}/#code=${signIn.createCode()}`,
    reloadTls: () => reloadTls(server, options.transport?.tls),
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

// GET /metrics: the engine's metrics in the Prometheus text format. Served on the API's
// port (127.0.0.1), and, when asked (`ax serve --metrics-address`), on a listener of its own that
// serves nothing else, so that a Prometheus on another machine can scrape a node without the API
// or the UI being reachable there. An optional metrics token (DATA_DIR/metrics-token) is then
// required as "Authorization: Bearer …", compared in constant time (design.md §12).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Authenticator } from '../core/access/authenticator.ts';
import type { EngineMetrics } from '../ports/metrics.ts';
import { scopeAllows } from './authorize.ts';
import { sameSecret } from './sign-in.ts';
import { SECURITY_HEADERS } from './static-ui.ts';
import { hostChecker, refuseHost } from './host-check.ts';

/** Who may scrape: anyone who reaches the port (no token set), the holder of the token, or nobody (a token file that cannot be used). */
export type MetricsAuth = { open: true } | { token: string } | { refused: string };

export interface MetricsOptions {
  metrics: Pick<EngineMetrics, 'exposition'>;
  /** read on every scrape, so a token written while the engine runs takes effect at once */
  auth: () => MetricsAuth;
  /** team mode: whether a bearer token is an account's token with the metrics scope (or admin) */
  accountToken?: (token: string, address: string | undefined) => Promise<boolean>;
}

/** team mode: an account's token is let in when it has the metrics scope (or admin) */
export function accountMetricsToken(accounts: Authenticator): NonNullable<MetricsOptions['accountToken']> {
  return async (token, address) => {
    const p = await accounts.tokenPrincipal(token, address);
    return p?.token !== undefined && scopeAllows(p.token.scopes, 'metrics');
  };
}

function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

/** Answers GET /metrics (and HEAD). */
export async function serveMetrics(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: MetricsOptions,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET /metrics\n', { allow: 'GET, HEAD' });
  if (!options.metrics.exposition) return send(res, 404, 'this engine exports no metrics\n');
  const auth = options.auth();
  const header = req.headers.authorization;
  const given = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  // an account's token with the metrics scope is let in whatever the token file says
  const account =
    given !== undefined && options.accountToken !== undefined && !('token' in auth && sameSecret(given, auth.token))
      ? await options.accountToken(given, req.socket.remoteAddress)
      : false;
  if ('refused' in auth && !account) return send(res, 503, `metrics are refused: ${auth.refused}\n`);
  if ('token' in auth && !account) {
    if (!sameSecret(given, auth.token)) {
      return send(
        res,
        401,
        'a metrics token is set: send it as "Authorization: Bearer TOKEN" (Prometheus: authorization.credentials_file)\n',
        {
          'www-authenticate': 'Bearer realm="metrics"',
        },
      );
    }
  }
  const { contentType, text } = await options.metrics.exposition();
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

export interface MetricsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

const loopback = (host: string) => ['localhost', '::1', '[::1]'].includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

/** A listener that serves GET /metrics and nothing else. */
export async function startMetricsServer(
  options: MetricsOptions & { host: string; port: number },
): Promise<MetricsServer> {
  // On loopback, a page of a rebound name could scrape without a token, so its Host is checked;
  // beyond loopback a token is required at start (ax serve), which such a page does not hold, and
  // Prometheus may name the node by any of its DNS names.
  const hostOk = loopback(options.host) ? hostChecker(options.host) : () => true;
  const server = http.createServer((req, res) => {
    if (!hostOk(req.headers.host)) return refuseHost(res, req.headers.host);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const answer =
      path === '/metrics'
        ? serveMetrics(req, res, options)
        : Promise.resolve(send(res, 404, 'only /metrics is served here\n'));
    answer.catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, `${err instanceof Error ? err.message : String(err)}\n`);
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    host: options.host,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

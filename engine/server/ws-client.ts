// EngineApi over WebSocket from Node (the CLI talking to a running `ax serve`, on this machine or
// a server it signed in to with `ax login`): the shared client of engine/api over a `ws` socket.
// Over wss the server's certificate is checked against the system's roots, or against a private
// CA (`ax login --ca-file`), or, for an `ax serve` of this machine's own data dir, pinned to the
// very certificate file that server was started with (it need not name 127.0.0.1).
import https from 'node:https';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import WebSocket from 'ws';
import { type ApiClient, createApiClient } from '../api/client.ts';
import { AxError } from '../api/errors.ts';

export type RemoteApi = ApiClient;

/** How a wss/https server's certificate is trusted; empty: the system's roots. */
export interface TlsTrust {
  /** PEM of the CA(s) to trust instead of the system's roots */
  ca?: string;
  /** PEM of the one certificate the server must present (any name, any issuer) */
  pinnedCert?: string;
}

/** Why a connection or request failed, in words that say what to do. */
function reachError(url: string, err: Error & { code?: string }): AxError {
  const code = err.code ?? '';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code) || /certificate/i.test(err.message))
    return new AxError(
      'unavailable',
      `cannot reach ${url}: its TLS certificate is not trusted (${err.message}): if the server uses a private CA, give it with "ax login URL --ca-file CA.pem"`,
    );
  return new AxError('unavailable', `cannot reach the engine at ${url}: ${err.message}`);
}

/**
 * A TLS socket to host:port whose certificate is exactly `pem`, checked before anything is
 * sent on it (the token goes in the first request's headers).
 */
function pinnedSocket(host: string, port: number, pem: string): Promise<tls.TLSSocket> {
  const expected = new X509Certificate(pem).fingerprint256;
  return new Promise((resolve, reject) => {
    // rejectUnauthorized off: the pin below is the whole check (a CA would not vouch for 127.0.0.1)
    const socket = tls.connect({
      host,
      port,
      servername: undefined,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const got = socket.getPeerX509Certificate()?.fingerprint256;
      if (got === expected) return resolve(socket);
      socket.destroy();
      reject(
        new AxError(
          'unavailable',
          `the server on ${host}:${port} presents another certificate than its --tls-cert file: is another program on that port?`,
        ),
      );
    });
  });
}

/** The options of a wss/https request for this trust (the pinned case makes its socket itself). */
async function tlsOptions(url: URL, trust: TlsTrust | undefined): Promise<https.RequestOptions> {
  if (url.protocol !== 'wss:' && url.protocol !== 'https:') return {};
  if (trust?.pinnedCert) {
    const socket = await pinnedSocket(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 443), trust.pinnedCert);
    return { createConnection: () => socket };
  }
  return trust?.ca ? { ca: trust.ca } : {};
}

export async function connectApi(url: string, token: string, trust?: TlsTrust): Promise<RemoteApi> {
  const options = await tlsOptions(new URL(url), trust).catch((err: Error) => {
    throw err instanceof AxError ? err : reachError(url, err);
  });
  const ws = new WebSocket(url, { ...options, headers: { authorization: `Bearer ${token}` } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk.slice(0, 4096)));
      res.on('end', () => reject(refusal(url, res.statusCode ?? 0, body)));
    });
    ws.once('error', (err) => reject(reachError(url, err)));
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

/** The server's refusal of the upgrade as the error it is: 401 sign in again, 403 its message. */
function refusal(url: string, status: number, body: string): AxError {
  let said = '';
  try {
    said = String((JSON.parse(body) as { error?: unknown }).error ?? '');
  } catch {
    said = body.trim().slice(0, 300);
  }
  const origin = url.replace(/^ws/, 'http').replace(/\/api$/, '');
  if (status === 401)
    return new AxError(
      'unauthenticated',
      `${origin} did not accept the token${said ? ` (${said})` : ''}: sign in again: ax login ${origin}`,
    );
  if (status === 403) return new AxError('forbidden', said || `${origin} refused the connection (HTTP 403)`);
  return new AxError('unavailable', `${origin} refused the connection (HTTP ${status})${said ? `: ${said}` : ''}`);
}

/** An HTTP(S) request with a JSON body and answer, with the same trust as connectApi (ax login, ax logout). */
export async function requestJson(
  url: string,
  init: { method: string; token?: string; body?: unknown; trust?: TlsTrust },
): Promise<{ status: number; body: unknown }> {
  const target = new URL(url);
  const options = await tlsOptions(target, init.trust).catch((err: Error) => {
    throw err instanceof AxError ? err : reachError(url, err);
  });
  const data = init.body === undefined ? undefined : JSON.stringify(init.body);
  const mod = target.protocol === 'https:' ? https : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = mod.request(
      target,
      {
        ...options,
        method: init.method,
        headers: {
          accept: 'application/json',
          ...(init.token && { authorization: `Bearer ${init.token}` }),
          ...(data !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            // not JSON: the text itself
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', (err) => reject(reachError(url, err)));
    req.end(data);
  });
}

/** A fresh single-use sign-in code from a running `ax serve` (for `ax open`): `base` is http(s)://HOST:PORT. */
export async function requestSignInCode(base: string | number, token: string, trust?: TlsTrust): Promise<string> {
  const origin = typeof base === 'number' ? `http://127.0.0.1:${base}` : base;
  const res = await requestJson(`${origin}/auth/code`, { method: 'POST', token, trust }).catch((err: unknown) => {
    throw new AxError(
      'unavailable',
      `cannot reach the engine at ${origin}: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  if (res.status !== 200) throw new AxError('unavailable', `the engine refused a sign-in code (HTTP ${res.status})`);
  return (res.body as { code: string }).code;
}

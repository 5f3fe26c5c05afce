// The Host header of every HTTP request (and WebSocket upgrade) names this server, or the request
// is refused with 421. DNS rebinding: a page of evil.example whose name is made to resolve to
// 127.0.0.1 reaches the loopback port with the browser's blessing (same origin as itself), but
// its requests still say "Host: evil.example". Names this server answers to: the loopback names,
// the address it listens on, and any IP literal when it listens on a wildcard (an IP literal
// cannot be rebound: a page served from it is this server's own).
import type http from 'node:http';
import { isIP } from 'node:net';
import { SECURITY_HEADERS } from '../api/ui-assets.ts';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'];
const WILDCARDS = ['0.0.0.0', '::', ''];

/** The host name of a Host header, lower case, without its port or IPv6 brackets; undefined when unreadable. */
export function hostNameOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return bracketed[1];
  const plain = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(value);
  return plain ? (plain[1] as string).replace(/\.$/, '') : undefined;
}

/**
 * Which Host headers a listener on `listenHost` accepts: the loopback names, `listenHost` itself
 * and `extra` (e.g. the hosts of allowed origins); any IP literal too on a wildcard address.
 */
export function hostChecker(listenHost: string, extra: string[] = []): (header: string | undefined) => boolean {
  const wildcard = WILDCARDS.includes(listenHost);
  const names = new Set(
    [...LOOPBACK_NAMES, ...extra, ...(wildcard ? [] : [listenHost])].map((h) => hostNameOf(h) ?? h.toLowerCase()),
  );
  return (header) => {
    const name = hostNameOf(header);
    if (name === undefined) return false;
    return names.has(name) || (wildcard && isIP(name) !== 0);
  };
}

/** The refusal of a request whose Host is not this server's (421 Misdirected Request). */
export function refuseHost(res: http.ServerResponse, header: string | undefined): void {
  res.writeHead(421, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json',
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(
    JSON.stringify({
      error: `this server does not answer to "Host: ${String(header ?? '').slice(0, 100)}": use http://127.0.0.1:PORT or http://localhost:PORT (a page of another name reaching this port is refused: DNS rebinding)`,
    }),
  );
}

/** The host part of each origin (http://host:port), for hostChecker's `extra`. */
export function originHosts(origins: string[] | undefined): string[] {
  const out: string[] = [];
  for (const origin of origins ?? []) {
    try {
      out.push(new URL(origin).hostname);
    } catch {
      // not a URL: it matches no Host either
    }
  }
  return out;
}

// ax serve's listening flags (--port, --listen, --tls-cert/--tls-key, --trust-proxy,
// --allow-plain-http) made into the address and transport of the API server (server/listen.ts),
// checked before the engine starts so that a wrong file or flag changes nothing.
import { AxError } from '../../api/errors.ts';
import { parseListen, readTls, type TransportOptions } from '../../server/listen.ts';

export interface ListenFlags {
  port: number;
  listen?: string;
  tlsCert?: string;
  tlsKey?: string;
  trustProxy?: string[];
  allowPlainHttp?: boolean;
}

export interface ServeAddress {
  host: string;
  port: number;
  transport: TransportOptions;
}

/** The address and transport of these flags; throws a validation error that says what to fix. */
export function serveAddress(flags: ListenFlags): ServeAddress {
  if (flags.listen !== undefined && flags.port !== 0)
    throw new AxError('validation', 'give --listen HOST:PORT or --port PORT, not both');
  const { host, port } =
    flags.listen !== undefined ? parseListen(flags.listen) : { host: '127.0.0.1', port: flags.port };
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined))
    throw new AxError(
      'validation',
      flags.tlsCert === undefined ? '--tls-key needs --tls-cert FILE too' : '--tls-cert needs --tls-key FILE too',
    );
  const tls = flags.tlsCert && flags.tlsKey ? { certFile: flags.tlsCert, keyFile: flags.tlsKey } : undefined;
  // read now: an unreadable or damaged file stops ax serve before its engine starts
  if (tls) readTls(tls);
  return {
    host,
    port,
    transport: {
      ...(tls && { tls }),
      ...(flags.trustProxy && { trustProxy: flags.trustProxy }),
      ...(flags.allowPlainHttp && { allowPlainHttp: true }),
    },
  };
}

/** How the start line names the API: ws or wss, and a host one can connect to. */
export function apiUrl(address: ServeAddress, port: number): string {
  const host = ['0.0.0.0', '::'].includes(address.host)
    ? '127.0.0.1'
    : address.host.includes(':')
      ? `[${address.host}]`
      : address.host;
  return `${address.transport.tls ? 'wss' : 'ws'}://${host}:${port}/api`;
}

/** The start-up note of a listener other machines reach (nothing for 127.0.0.1). */
export function listenNote(address: ServeAddress): string | undefined {
  const { host, transport } = address;
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1') return undefined;
  if (transport.tls)
    return `listening on ${host} with TLS (${transport.tls.certFile}; SIGHUP re-reads it as a service)`;
  if (transport.allowPlainHttp) return `listening on ${host} over plain HTTP for everyone (--allow-plain-http)`;
  if (transport.trustProxy)
    return `listening on ${host}: plain HTTP only through the proxies ${transport.trustProxy.join(', ')} when they say https (X-Forwarded-Proto), and from this machine`;
  return `listening on ${host} over plain HTTP: other machines are refused (403) until you add --tls-cert/--tls-key or a TLS proxy (--trust-proxy)`;
}

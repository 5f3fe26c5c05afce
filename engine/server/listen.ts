// Where and how `ax serve` listens (issue 25, part 6): plain HTTP or HTTPS (--tls-cert and
// --tls-key, re-read on SIGHUP), which peers are reverse proxies whose X-Forwarded-For and
// X-Forwarded-Proto are believed (--trust-proxy CIDR,…; nobody's by default), and the rule that
// keeps sign-ins and tokens off the wire in the clear: plain HTTP is answered only for loopback
// clients, unless --allow-plain-http says otherwise. ws-server.ts asks this module for the
// server, the client's address and scheme, and whether a request is to be refused.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { AxError } from '../api/errors.ts';
import { SECURITY_HEADERS } from '../api/ui-assets.ts';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TransportOptions {
  /** HTTPS (and wss) with this certificate and key; without it plain HTTP */
  tls?: TlsFiles;
  /** CIDRs of reverse proxies whose X-Forwarded-For / X-Forwarded-Proto / X-Forwarded-Host are believed */
  trustProxy?: string[];
  /** answer plain HTTP from clients other than loopback too (a private network, a test) */
  allowPlainHttp?: boolean;
}

export type HttpServer = http.Server | https.Server;

const PEM = /-----BEGIN [A-Z0-9 ]+-----[\s\S]+?-----END [A-Z0-9 ]+-----/;

function readPem(file: string, what: string, flag: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new AxError(
      'validation',
      `${flag} ${file}: cannot read the ${what} (${code}): check the path and its permissions`,
    );
  }
  if (!PEM.test(text))
    throw new AxError(
      'validation',
      `${flag} ${file}: not a PEM file (no "-----BEGIN …-----" block): give the ${what} in PEM form (openssl x509 -inform der -in FILE -out FILE.pem converts a DER certificate)`,
    );
  return text;
}

/** The certificate and key, read and checked as a pair; errors name the file and the fix. */
export function readTls(files: TlsFiles): { cert: string; key: string } {
  const cert = readPem(files.certFile, 'certificate', '--tls-cert');
  const key = readPem(files.keyFile, 'private key', '--tls-key');
  if (!/-----BEGIN CERTIFICATE-----/.test(cert))
    throw new AxError('validation', `--tls-cert ${files.certFile}: holds no "BEGIN CERTIFICATE" block: is it the key?`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key))
    throw new AxError(
      'validation',
      `--tls-key ${files.keyFile}: holds no "BEGIN … PRIVATE KEY" block: is it the certificate?`,
    );
  try {
    // throws when the key is not the certificate's, or either is damaged
    https.createServer({ cert, key }).close();
  } catch (err) {
    throw new AxError(
      'validation',
      `--tls-cert ${files.certFile} and --tls-key ${files.keyFile} do not make a usable pair: ${(err as Error).message}`,
    );
  }
  return { cert, key };
}

/** An HTTP server, or an HTTPS one when TLS files are given. */
export function createHttpServer(tls: TlsFiles | undefined, handler: http.RequestListener): HttpServer {
  return tls ? https.createServer(readTls(tls), handler) : http.createServer(handler);
}

/** Reads the certificate and key again into a running HTTPS server (SIGHUP); the old ones stay on error. */
export function reloadTls(server: HttpServer, tls: TlsFiles | undefined): void {
  if (!tls || !(server instanceof https.Server)) return;
  server.setSecureContext(readTls(tls));
}

/** A v4 address mapped into v6 (::ffff:10.0.0.1) as the v4 address it is. */
export function plainAddress(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? (mapped[1] as string) : address;
}

export function isLoopback(address: string | undefined): boolean {
  const a = plainAddress(address);
  return a !== undefined && (a === '::1' || /^127\.\d+\.\d+\.\d+$/.test(a));
}

/** --trust-proxy's list: CIDRs (10.0.0.0/8, ::1/128) or single addresses, comma-separated. */
export function parseTrustProxy(value: string): string[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new AxError('validation', '--trust-proxy needs at least one CIDR, e.g. 127.0.0.1/32');
  for (const cidr of list) proxyBlock([cidr]);
  return list;
}

function proxyBlock(cidrs: string[]): net.BlockList {
  const block = new net.BlockList();
  for (const cidr of cidrs) {
    const [address = '', bits, ...rest] = cidr.split('/');
    const family = net.isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (
      family === 0 ||
      rest.length > 0 ||
      (bits !== undefined && !/^\d{1,3}$/.test(bits)) ||
      prefix > (family === 6 ? 128 : 32)
    )
      throw new AxError(
        'validation',
        `--trust-proxy: "${cidr}" is not an address or CIDR: use e.g. 127.0.0.1/32, 10.0.0.0/8 or ::1/128`,
      );
    block.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return block;
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** What the server knows of a request's client, with the proxy headers believed only from trusted peers. */
export class RequestSecurity {
  private readonly trusted: net.BlockList | undefined;

  constructor(readonly options: TransportOptions = {}) {
    this.trusted = options.trustProxy?.length ? proxyBlock(options.trustProxy) : undefined;
  }

  /** whether this address is one of the trusted proxies */
  isTrustedProxy(address: string | undefined): boolean {
    const a = plainAddress(address);
    if (!this.trusted || a === undefined) return false;
    return this.trusted.check(a, net.isIP(a) === 6 ? 'ipv6' : 'ipv4');
  }

  /** whether the peer of this request's socket is a trusted proxy */
  viaTrustedProxy(req: http.IncomingMessage): boolean {
    return this.isTrustedProxy(req.socket.remoteAddress);
  }

  /**
   * The client's address: the socket's peer, or, through trusted proxies, the last address of
   * X-Forwarded-For that is not one of them (the nearest hop a trusted proxy vouches for).
   */
  address(req: http.IncomingMessage): string | undefined {
    const peer = plainAddress(req.socket.remoteAddress);
    if (!this.viaTrustedProxy(req)) return peer;
    const hops = (header(req, 'x-forwarded-for') ?? '')
      .split(',')
      .map((s) => plainAddress(s.trim()))
      .filter((s): s is string => s !== undefined && net.isIP(s) !== 0);
    for (let i = hops.length - 1; i >= 0; i--) if (!this.isTrustedProxy(hops[i])) return hops[i];
    return hops[0] ?? peer;
  }

  /** https or http, as the client used it (a trusted proxy's X-Forwarded-Proto says for it) */
  scheme(req: http.IncomingMessage): 'https' | 'http' {
    if ((req.socket as TLSSocket).encrypted) return 'https';
    if (this.viaTrustedProxy(req)) {
      const proto = (header(req, 'x-forwarded-proto') ?? '').split(',')[0]?.trim().toLowerCase();
      if (proto === 'https' || proto === 'wss') return 'https';
    }
    return 'http';
  }

  secure(req: http.IncomingMessage): boolean {
    return this.scheme(req) === 'https';
  }

  /**
   * The origin the client sees this server at (https://scheduler.example.com behind a proxy):
   * its Host (already checked by host-check.ts) or a trusted proxy's X-Forwarded-Host.
   */
  ownOrigin(req: http.IncomingMessage): string | undefined {
    const forwarded = this.viaTrustedProxy(req) ? header(req, 'x-forwarded-host')?.split(',')[0]?.trim() : undefined;
    const host = forwarded || req.headers.host;
    return host ? `${this.scheme(req)}://${host.toLowerCase()}` : undefined;
  }

  /** Why this request is refused for coming over plain HTTP from beyond this machine; undefined when it is fine. */
  plainHttpRefusal(req: http.IncomingMessage): string | undefined {
    if (this.options.allowPlainHttp || this.secure(req) || isLoopback(this.address(req))) return undefined;
    return `plain HTTP is answered only on this machine (127.0.0.1, ::1): sign-ins and tokens would cross the network in the clear. Use https (ax serve --tls-cert FILE --tls-key FILE) or a TLS proxy in front (ax serve --trust-proxy CIDR), or, on a network you trust, ax serve --allow-plain-http`;
  }
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** The 403 of a plain-HTTP request from afar: a page for a browser, JSON for anything else. */
export function refusePlainHttp(req: http.IncomingMessage, res: http.ServerResponse, why: string): void {
  const html = /text\/html/.test(req.headers.accept ?? '');
  res.writeHead(403, {
    ...SECURITY_HEADERS,
    'content-type': html ? 'text/html; charset=utf-8' : 'application/json',
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(
    html
      ? `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>AX Scheduler: use https</title></head><body><h1>Use https</h1><p>${escapeHtml(why)}</p></body></html>`
      : JSON.stringify({ error: why }),
  );
}

/** The same refusal of a WebSocket upgrade (before any WebSocket exists). */
export function refusePlainUpgrade(socket: { write(text: string): unknown; destroy(): void }, why: string): void {
  const body = JSON.stringify({ error: why });
  socket.write(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroy();
}

/** --listen HOST:PORT ([IPv6]:PORT, or PORT alone for 127.0.0.1). */
export function parseListen(value: string): { host: string; port: number } {
  const text = value.trim();
  const m = /^(?:(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):)?([0-9]{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new AxError(
      'validation',
      `--listen must be HOST:PORT, e.g. 127.0.0.1:8080, 0.0.0.0:8443, [::]:8443 or scheduler.example.com:8443 (port 0 takes any free one), not "${value}"`,
    );
  return { host: m[1] ?? m[2] ?? '127.0.0.1', port };
}

/** Why the server could not listen, with what to do: a port in use or not allowed names both. */
export function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return new AxError(
      'conflict',
      `cannot listen on ${where}: another process uses that port; stop it, or choose another (ax serve --port N, or --listen HOST:PORT)`,
    );
  if (code === 'EACCES')
    return new AxError(
      'conflict',
      `cannot listen on ${where}: this user may not use that port (ports below 1024 need privileges); choose one above 1024, or put a reverse proxy in front (README "TLS and reverse proxies")`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new AxError(
      'validation',
      `cannot listen on ${where}: this machine has no such address; see --listen HOST:PORT`,
    );
  return err;
}

// server/listen.ts: which proxies are believed, the client's address and scheme through them, the
// plain-HTTP refusal beyond loopback, --listen and --trust-proxy parsing, and the TLS files' errors.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import { parseListen, parseTrustProxy, readTls, RequestSecurity } from '../../engine/server/listen.ts';
import { tempDir } from '../helpers/files.ts';

/** A request as the server sees it: the socket's peer, TLS or not, and headers. */
function request(peer: string, headers: Record<string, string> = {}, encrypted = false): http.IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as http.IncomingMessage;
}

describe('RequestSecurity', () => {
  const behindProxy = new RequestSecurity({ trustProxy: ['127.0.0.1/32', '10.0.0.0/8'] });
  const direct = new RequestSecurity();

  it('believes X-Forwarded-For only from a trusted peer, and skips trusted hops from the right', () => {
    const xff = { 'x-forwarded-for': '198.51.100.7, 10.1.2.3' };
    expect(behindProxy.address(request('127.0.0.1', xff))).toBe('198.51.100.7');
    // a forged first hop stays the client's claim: the nearest untrusted address is the client
    expect(behindProxy.address(request('::ffff:127.0.0.1', { 'x-forwarded-for': '1.2.3.4, 203.0.113.5' }))).toBe(
      '203.0.113.5',
    );
    expect(behindProxy.address(request('192.0.2.50', xff))).toBe('192.0.2.50');
    expect(direct.address(request('127.0.0.1', xff))).toBe('127.0.0.1');
  });

  it('takes https from the socket, or from a trusted proxy X-Forwarded-Proto, never from anyone else', () => {
    expect(direct.scheme(request('192.0.2.1', {}, true))).toBe('https');
    expect(behindProxy.scheme(request('10.9.9.9', { 'x-forwarded-proto': 'https' }))).toBe('https');
    expect(behindProxy.scheme(request('192.0.2.1', { 'x-forwarded-proto': 'https' }))).toBe('http');
    expect(direct.scheme(request('127.0.0.1', { 'x-forwarded-proto': 'https' }))).toBe('http');
  });

  it('refuses plain HTTP from beyond loopback with what to do, unless allowed', () => {
    expect(direct.plainHttpRefusal(request('127.0.0.1'))).toBeUndefined();
    expect(direct.plainHttpRefusal(request('::1'))).toBeUndefined();
    expect(direct.plainHttpRefusal(request('192.0.2.9', {}, true))).toBeUndefined();
    const why = direct.plainHttpRefusal(request('192.0.2.9'));
    expect(why).toMatch(/Use https \(ax serve --tls-cert FILE --tls-key FILE\).*--trust-proxy/);
    // through a proxy that terminates TLS: fine; one that forwards plain http from afar: refused
    expect(
      behindProxy.plainHttpRefusal(
        request('127.0.0.1', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' }),
      ),
    ).toBeUndefined();
    expect(
      behindProxy.plainHttpRefusal(
        request('127.0.0.1', { 'x-forwarded-proto': 'http', 'x-forwarded-for': '198.51.100.7' }),
      ),
    ).toBeDefined();
    expect(new RequestSecurity({ allowPlainHttp: true }).plainHttpRefusal(request('192.0.2.9'))).toBeUndefined();
  });

  it('names its own origin by Host, or a trusted proxy X-Forwarded-Host', () => {
    expect(direct.ownOrigin(request('192.0.2.1', { host: 'Box:8443' }, true))).toBe('https://box:8443');
    expect(
      behindProxy.ownOrigin(
        request('127.0.0.1', {
          host: '127.0.0.1:8080',
          'x-forwarded-host': 'ax.example.com',
          'x-forwarded-proto': 'https',
        }),
      ),
    ).toBe('https://ax.example.com');
    expect(direct.ownOrigin(request('127.0.0.1', { host: '127.0.0.1:8080', 'x-forwarded-host': 'evil.example' }))).toBe(
      'http://127.0.0.1:8080',
    );
  });
});

describe('flags', () => {
  it('parses --listen forms and says the form on a bad one', () => {
    expect(parseListen('0.0.0.0:8443')).toEqual({ host: '0.0.0.0', port: 8443 });
    expect(parseListen('[::]:0')).toEqual({ host: '::', port: 0 });
    expect(parseListen('scheduler.example.com:443')).toEqual({ host: 'scheduler.example.com', port: 443 });
    expect(parseListen('8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(() => parseListen('0.0.0.0:99999')).toThrow(/--listen must be HOST:PORT/);
    expect(() => parseListen('http://x:1')).toThrow(AxError);
  });

  it('parses --trust-proxy CIDRs and names a bad one', () => {
    expect(parseTrustProxy('127.0.0.1/32, 10.0.0.0/8,::1')).toEqual(['127.0.0.1/32', '10.0.0.0/8', '::1']);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/"10\.0\.0\.0\/33" is not an address or CIDR/);
    expect(() => parseTrustProxy('proxy.lan')).toThrow(/--trust-proxy/);
    expect(() => parseTrustProxy(' , ')).toThrow(/at least one CIDR/);
  });
});

describe('readTls', () => {
  const dir = tempDir('ax-listen-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const otherKey = path.join(dir, 'other-key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  execFileSync('openssl', ['genrsa', '-out', otherKey, '2048'], { stdio: 'ignore' });

  it('reads a certificate and its key', () => {
    expect(readTls({ certFile: cert, keyFile: key }).cert).toContain('BEGIN CERTIFICATE');
  });

  it('names the file and the fix: missing, not PEM, swapped, not a pair', () => {
    expect(() => readTls({ certFile: path.join(dir, 'nope.pem'), keyFile: key })).toThrow(
      /--tls-cert .*nope\.pem: cannot read the certificate \(ENOENT\)/,
    );
    const der = path.join(dir, 'cert.der');
    fs.writeFileSync(der, Buffer.from([0x30, 0x82, 0x01, 0x0a]));
    expect(() => readTls({ certFile: der, keyFile: key })).toThrow(/--tls-cert .*cert\.der: not a PEM file/);
    expect(() => readTls({ certFile: key, keyFile: cert })).toThrow(/no "BEGIN CERTIFICATE" block: is it the key\?/);
    expect(() => readTls({ certFile: cert, keyFile: otherKey })).toThrow(/do not make a usable pair/);
  });
});

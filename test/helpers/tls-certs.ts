// A private CA and a server certificate signed by it, made by `openssl` for a test (ax serve
// --tls-cert/--tls-key, ax login --ca-file), valid for 127.0.0.1, ::1, localhost and any extra names.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCertificates {
  /** the CA's certificate (PEM): what `ax login --ca-file` trusts */
  ca: string;
  /** the server's certificate and key (PEM files) */
  cert: string;
  key: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Writes ca.pem, server.pem and server.key into `dir`; `names` adds DNS names or IP addresses to the certificate. */
export function makeCertificates(dir: string, names: string[] = []): TestCertificates {
  fs.mkdirSync(dir, { recursive: true });
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=AX test CA',
    ],
    dir,
  );
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=ax-test-server',
    ],
    dir,
  );
  const san = [
    'IP:127.0.0.1',
    'IP:::1',
    'DNS:localhost',
    ...names.map((n) => (/^[\d.:]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)),
  ];
  fs.writeFileSync(path.join(dir, 'server.ext'), `subjectAltName=${san.join(',')}\nextendedKeyUsage=serverAuth\n`);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    ],
    dir,
  );
  fs.chmodSync(path.join(dir, 'server.key'), 0o600);
  return { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'server.pem'), key: path.join(dir, 'server.key') };
}

/** This machine's first non-loopback IPv4 address, if it has one (to reach a server "from elsewhere"). */
export async function nonLoopbackAddress(): Promise<string | undefined> {
  const os = await import('node:os');
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

// `ax serve`'s UI files (engine/server/static-ui.ts) under the rules it shares with the desktop
// app's app:// protocol (engine/api/ui-assets.ts): the same answers for the same paths, raw
// traversal included, which a browser would normalise away but a hand-made request does not.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uiProtocolHandler } from '../../electron/ui-protocol.ts';
import { CSP } from '../../engine/api/ui-assets.ts';
import { serveStatic } from '../../engine/server/static-ui.ts';
import { tempDir } from '../helpers/files.ts';

let root: string;
let server: http.Server;
let port: number;

beforeAll(async () => {
  root = tempDir('ax-static-ui-');
  const uiDir = path.join(root, 'ui');
  fs.mkdirSync(path.join(uiDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>AX</title>');
  fs.writeFileSync(path.join(uiDir, 'assets', 'app-1.js'), 'export {}');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'api token');
  server = http.createServer((req, res) => {
    if (!serveStatic(uiDir, req, res)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A GET with the path sent exactly as written. */
function rawGet(rawPath: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ax serve static UI', () => {
  it('serves the page and assets with the shared headers, and answers as the app:// protocol does', async () => {
    const handler = uiProtocolHandler(path.join(root, 'ui'));
    for (const [p, type, cache] of [
      ['/', 'text/html; charset=utf-8', 'no-store'],
      ['/assets/app-1.js', 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
    ] as const) {
      const res = await rawGet(p);
      expect(res.status, p).toBe(200);
      expect(res.headers['content-type'], p).toBe(type);
      expect(res.headers['cache-control'], p).toBe(cache);
      expect(res.headers['content-security-policy'], p).toBe(CSP);
      const app = await handler(new Request(`app://ui${p}`));
      expect(app.headers.get('content-type'), p).toBe(type);
      expect(app.headers.get('cache-control'), p).toBe(cache);
      expect(await app.text(), p).toBe(res.body);
    }
  });

  it('never serves a file outside the UI directory, however the path is spelt', async () => {
    for (const p of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/assets%5c..%5c..%5csecret.txt',
      '/%2E%2E%2Fsecret.txt',
      '/%ZZ',
    ]) {
      const res = await rawGet(p);
      expect(res.status, p).toBe(404);
      expect(res.body, p).not.toContain('api token');
    }
  });
});

// DNS rebinding: a page of evil.example whose name resolves to 127.0.0.1 reaches `ax serve`'s
// port, but its requests say "Host: evil.example". A real `ax serve` refuses every one of them
// (the UI, /metrics, the sign-in code, the WebSocket upgrade, the metrics-only listener) with
// 421, and answers the loopback names as before.
import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { serveFixture } from '../helpers/serve.ts';

let metricsPort: number;

function request(
  port: number,
  path: string,
  host: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers: { host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A raw upgrade request with the given Host; resolves with the status line's code. */
function upgrade(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/api',
      headers: {
        host,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        authorization: `Bearer ${apiToken(served.dataDir)}`,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const served = serveFixture('ax-host-', { serveArgs: ['--metrics-address', '127.0.0.1:0'] });

beforeAll(async () => {
  const line = await served.serve.waitForLine(
    /^metrics also on http:\/\/127\.0\.0\.1:(\d+)\/metrics/,
    10_000,
    'stdout',
  );
  metricsPort = Number(/:(\d+)\/metrics/.exec(line.text)?.[1]);
}, 60_000);

describe('the Host header of ax serve', () => {
  it('refuses a foreign Host on the UI, /metrics, the sign-in code, the API upgrade and the metrics listener with 421', async () => {
    const evil = `evil.example:${served.serve.port}`;
    const ui = await request(served.serve.port, '/', evil);
    expect(ui.status).toBe(421);
    expect(JSON.parse(ui.body).error).toContain('does not answer to "Host: evil.example');
    expect((await request(served.serve.port, '/metrics', evil)).status).toBe(421);
    expect((await request(served.serve.port, '/assets/index.js', evil)).status).toBe(421);
    expect(
      (
        await request(
          served.serve.port,
          '/auth/code',
          evil,
          { authorization: `Bearer ${apiToken(served.dataDir)}` },
          'POST',
        )
      ).status,
    ).toBe(421);
    expect((await request(served.serve.port, '/auth/session', evil)).status).toBe(421);
    expect(await upgrade(served.serve.port, evil)).toBe(421);
    expect((await request(metricsPort, '/metrics', `evil.example:${metricsPort}`)).status).toBe(421);
    // a name with no port, and a look-alike of a loopback name, are foreign too
    expect((await request(served.serve.port, '/metrics', 'evil.example')).status).toBe(421);
    expect((await request(served.serve.port, '/metrics', 'localhost.evil.example')).status).toBe(421);
    expect((await request(served.serve.port, '/metrics', '127.0.0.1.nip.io')).status).toBe(421);
  });

  it('answers the loopback names: 127.0.0.1, localhost, [::1]', async () => {
    for (const host of [
      `127.0.0.1:${served.serve.port}`,
      `localhost:${served.serve.port}`,
      `[::1]:${served.serve.port}`,
      'LOCALHOST',
    ]) {
      const metrics = await request(served.serve.port, '/metrics', host);
      expect(metrics.status, host).toBe(200);
      expect(metrics.body).toContain('ax_store_up');
    }
    expect((await request(served.serve.port, '/', `localhost:${served.serve.port}`)).status).toBe(200);
    expect(await upgrade(served.serve.port, `127.0.0.1:${served.serve.port}`)).toBe(101);
    expect((await request(metricsPort, '/metrics', `127.0.0.1:${metricsPort}`)).status).toBe(200);
  });
});

// The app:// protocol handler on a real UI directory: files with their content types and the
// strict CSP, the page never cached, traversal in every spelling refused, 404s, a 503 when the UI
// is not built, only GET and HEAD. And the shared rules of engine/api/ui-assets.ts.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { uiProtocolHandler } from '../../electron/ui-protocol.ts';
import { CSP, uiContentType, uiFileOf } from '../../engine/api/ui-assets.ts';
import { tempDir } from '../helpers/files.ts';

let root: string;
let uiDir: string;
let handle: (request: Request) => Promise<Response>;

beforeAll(() => {
  root = tempDir('ax-ui-protocol-');
  uiDir = path.join(root, 'ui');
  fs.mkdirSync(path.join(uiDir, 'assets', 'sub'), { recursive: true });
  fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>AX</title>');
  fs.writeFileSync(path.join(uiDir, 'assets', 'index-abc.js'), 'console.log(1)');
  fs.writeFileSync(path.join(uiDir, 'assets', 'index-abc.css'), 'body{}');
  fs.writeFileSync(path.join(uiDir, 'assets', 'font.woff2'), Buffer.from([1, 2, 3]));
  fs.writeFileSync(path.join(uiDir, 'assets', 'blob.xyz'), 'bytes');
  // A secret beside the UI directory, which no URL may reach.
  fs.writeFileSync(path.join(root, 'secret.txt'), 'api token');
  handle = uiProtocolHandler(uiDir);
});

const get = (url: string, method = 'GET') => handle(new Request(url, { method }));

describe('app:// protocol handler', () => {
  it('serves the page and its assets with their content types and the strict CSP', async () => {
    const page = await get('app://ui/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>AX</title>');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');

    const same = await get('app://ui/index.html');
    expect(same.headers.get('cache-control')).toBe('no-store');

    const cases: [string, string][] = [
      ['app://ui/assets/index-abc.js', 'text/javascript; charset=utf-8'],
      ['app://ui/assets/index-abc.css', 'text/css; charset=utf-8'],
      ['app://ui/assets/font.woff2', 'font/woff2'],
      ['app://ui/assets/blob.xyz', 'application/octet-stream'],
    ];
    for (const [url, type] of cases) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toBe(type);
      expect(res.headers.get('content-security-policy'), url).toBe(CSP);
      expect(res.headers.get('cache-control'), url).toContain('immutable');
    }
    expect(new Uint8Array(await (await get('app://ui/assets/font.woff2')).arrayBuffer())).toEqual(
      new Uint8Array([1, 2, 3]),
    );
  });

  it('refuses traversal however it is spelt', async () => {
    // new Request normalises plain '..', so the encoded spellings are what reach a handler.
    for (const url of [
      'app://ui/%2e%2e/secret.txt',
      'app://ui/assets/%2E%2E/%2e%2e/secret.txt',
      'app://ui/..%2fsecret.txt',
      'app://ui/assets%5c..%5c..%5csecret.txt',
      'app://ui/%00index.html',
      'app://ui/assets//index-abc.js',
      'app://ui/%E0%A4%A',
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(404);
      expect(await res.text(), url).not.toContain('api token');
      expect(res.headers.get('content-security-policy'), url).toBe(CSP);
    }
  });

  it('answers 404 for what is not there, another host, or a directory; 405 for other methods; HEAD without a body', async () => {
    expect((await get('app://ui/nope.js')).status).toBe(404);
    expect((await get('app://ui/assets')).status).toBe(404);
    expect((await get('app://ui/assets/sub')).status).toBe(404);
    expect((await get('app://other/index.html')).status).toBe(404);
    expect((await get('app://ui/index.html', 'POST')).status).toBe(405);
    const head = await get('app://ui/assets/index-abc.js', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('says the UI is not built when there is no index.html', async () => {
    const empty = path.join(root, 'empty-ui');
    fs.mkdirSync(empty, { recursive: true });
    const res = await uiProtocolHandler(empty)(new Request('app://ui/'));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
  });
});

describe('ui-assets rules (shared with ax serve)', () => {
  it('maps URL paths to UI files and refuses the rest', () => {
    expect(uiFileOf('/')).toBe('index.html');
    expect(uiFileOf('/assets/a%20b.js')).toBe('assets/a b.js');
    for (const bad of ['/..', '/a/../b', '/%2e%2e/x', '/a%5cb', '/a//b', '/a/./b', '/%ZZ', 'relative', '/a%00'])
      expect(uiFileOf(bad), bad).toBeUndefined();
    expect(uiContentType('assets/x.MJS')).toBe('text/javascript; charset=utf-8');
    expect(uiContentType('assets.d/noext')).toBe('application/octet-stream');
  });
});

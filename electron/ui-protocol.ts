// Serves the built UI (dist/ui) to the window from the app:// protocol, with the same path,
// header and content-type rules as `ax serve` (engine/api/ui-assets.ts): nothing outside the UI's
// directory, a strict CSP on every response, only GET and HEAD. The UI is never loaded from
// file://, which would give the page the whole file system as its origin.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SECURITY_HEADERS, UI_INDEX, uiFileOf, uiHeaders } from '../engine/api/ui-assets.ts';
import { APP_HOST, APP_SCHEME } from './app-origin.ts';

/** Before the app is ready: the scheme is standard (real origin, relative URLs) and secure. */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true },
};

function plain(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** The protocol.handle handler for app://ui/… over the UI directory. */
export function uiProtocolHandler(uiDir: string): (request: Request) => Promise<Response> {
  const root = path.resolve(uiDir);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'method not allowed');
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return plain(400, 'bad request');
    }
    if (url.host !== APP_HOST) return plain(404, 'not found');
    const rel = uiFileOf(url.pathname);
    if (rel === undefined) return plain(404, 'not found');
    const file = path.resolve(root, rel);
    if (!file.startsWith(root + path.sep)) return plain(404, 'not found');
    let body: Buffer;
    try {
      body = await fs.readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (rel === UI_INDEX && code === 'ENOENT')
        return plain(503, 'The UI is not built: run "npm run build" in the AX checkout, then reload.');
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return plain(404, 'not found');
      throw err;
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: uiHeaders(rel),
    });
  };
}

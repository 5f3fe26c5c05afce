// Serves the built UI (dist/ui) with a strict Content-Security-Policy on every response. The
// path, header and content-type rules are engine/api/ui-assets.ts, shared with the desktop app.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { SECURITY_HEADERS, UI_INDEX, uiFileOf, uiHeaders } from '../api/ui-assets.ts';

export { CSP, SECURITY_HEADERS } from '../api/ui-assets.ts';

/** Answers GET/HEAD for a file of the UI; returns false when the path is not the UI's. */
export function serveStatic(uiDir: string | undefined, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (
    pathname.startsWith('/api') ||
    pathname.startsWith('/auth/') ||
    pathname.startsWith('/events/') ||
    pathname.startsWith('/download/')
  )
    return false;
  const index = uiDir ? path.join(uiDir, UI_INDEX) : undefined;
  if (!uiDir || !index || !fs.existsSync(index)) {
    if (pathname !== '/') return false;
    res.writeHead(503, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
    res.end('The UI is not built: run "npm run build" in the AX checkout, then reload.\n');
    return true;
  }
  const rel = uiFileOf(pathname);
  if (rel === undefined) return false;
  const file = path.resolve(uiDir, rel);
  // uiFileOf refuses '..' already; this stays as the last word on what leaves the directory.
  if (!file.startsWith(path.resolve(uiDir) + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile())
    return false;
  res.writeHead(200, uiHeaders(rel));
  if (req.method === 'HEAD') res.end();
  else fs.createReadStream(file).pipe(res);
  return true;
}

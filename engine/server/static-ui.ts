// Serves the built UI (dist/ui) with a strict Content-Security-Policy on every response.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Ant Design and React Flow set style attributes and inject style elements at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
};

/** Answers GET/HEAD for a file of the UI; returns false when the path is not the UI's. */
export function serveStatic(uiDir: string | undefined, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
  if (pathname.startsWith('/api') || pathname.startsWith('/auth/') || pathname.startsWith('/events/') || pathname.startsWith('/download/')) return false;
  const index = uiDir ? path.join(uiDir, 'index.html') : undefined;
  if (!uiDir || !index || !fs.existsSync(index)) {
    if (pathname !== '/') return false;
    res.writeHead(503, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
    res.end('The UI is not built: run "npm run build" in the AX checkout, then reload.\n');
    return true;
  }
  const rel = pathname === '/' ? 'index.html' : pathname.slice(1);
  const file = path.resolve(uiDir, rel);
  if (!file.startsWith(path.resolve(uiDir) + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return false;
  const isIndex = file === path.resolve(index);
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    // Hashed asset names may be cached for good; the page itself never, so a rebuild shows.
    'cache-control': isIndex ? 'no-store' : 'public, max-age=31536000, immutable',
  });
  if (req.method === 'HEAD') res.end();
  else fs.createReadStream(file).pipe(res);
  return true;
}

// The rules for serving the built UI (dist/ui), shared by `ax serve` (engine/server/static-ui.ts)
// and the desktop app's custom protocol (electron/ui-protocol.ts), so both answer the same paths
// with the same Content-Security-Policy and content types. Pure: no file system here.

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

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

const TYPES: Readonly<Record<string, string>> = {
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

export const UI_INDEX = 'index.html';

/** The content type of a UI file by its name; unknown kinds are bytes, never guessed. */
export function uiContentType(file: string): string {
  const dot = file.lastIndexOf('.');
  const ext = dot > file.lastIndexOf('/') ? file.slice(dot).toLowerCase() : '';
  return TYPES[ext] ?? 'application/octet-stream';
}

/**
 * The file of the UI a URL path names, relative to the UI's directory with '/' separators, or
 * undefined when the path is not one of the UI's: an encoded or literal '..', '.', a backslash,
 * a NUL, an empty segment or a malformed escape is refused rather than normalised.
 */
export function uiFileOf(pathname: string): string | undefined {
  if (pathname === '/' || pathname === '') return UI_INDEX;
  if (!pathname.startsWith('/')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (/[\\\0]/.test(decoded)) return undefined;
  const segments = decoded.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return segments.join('/');
}

/** Hashed asset names may be cached for good; the page itself never, so a rebuild shows. */
export function uiCacheControl(file: string): string {
  return file === UI_INDEX ? 'no-store' : 'public, max-age=31536000, immutable';
}

/** The headers of one UI file's response. */
export function uiHeaders(file: string): Record<string, string> {
  return { ...SECURITY_HEADERS, 'content-type': uiContentType(file), 'cache-control': uiCacheControl(file) };
}

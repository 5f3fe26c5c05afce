// The custom protocol the UI is loaded from, and what counts as our page. The scheme is
// registered as standard and secure (electron/ui-protocol.ts), so the page's origin is
// 'app://ui' and the preload can post the engine port to exactly that origin.

export const APP_SCHEME = 'app';
export const APP_HOST = 'ui';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The UI's entry page; its routes are hash routes (#/runs/12), so this is the only page. */
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** True for a URL of our UI (any of its paths), false for anything else or a malformed URL. */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (
      parsed.protocol === `${APP_SCHEME}:` &&
      parsed.host === APP_HOST &&
      parsed.username === '' &&
      parsed.password === ''
    );
  } catch {
    return false;
  }
}

/**
 * A link the system browser may open for the user: plain http(s) to a named host, without
 * credentials in the URL. Anything else (file:, javascript:, custom schemes that launch
 * programs, our own app: URLs) is never handed to the OS.
 */
export function isSafeExternalUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  if (parsed.username !== '' || parsed.password !== '' || parsed.hostname === '') return false;
  return url.length <= 2048;
}

// What keeps the UI's web contents to itself: the window's web preferences (isolated, sandboxed,
// no Node), no navigation away from our protocol, no new windows (http(s) links go to the system
// browser when safe), no webviews, and every permission refused but a clipboard write from our
// own page (the designer's "copy YAML").
import { isAppUrl, isSafeExternalUrl } from './app-origin.ts';

export interface SecureWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  webviewTag: false;
  experimentalFeatures: false;
  navigateOnDragDrop: false;
  spellcheck: false;
  enableBlinkFeatures: 'MessagePortCloseEvent';
}

export function secureWebPreferences(preload: string): SecureWebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    // The one Blink feature turned on: a page's MessagePort fires 'close' when the engine host
    // holding its other end dies, so the UI sees a dead port at once (it also watches the status).
    enableBlinkFeatures: 'MessagePortCloseEvent',
  };
}

/** The members of WebContents the guard uses. */
export interface GuardedContents {
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: { preventDefault(): void; url: string }) => void,
  ): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/** The members of Session the guard uses. */
export interface GuardedSession {
  setPermissionRequestHandler(
    handler: (
      contents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: { requestingUrl?: string },
    ) => void,
  ): void;
  setPermissionCheckHandler(
    handler: (contents: unknown, permission: string, requestingOrigin: string) => boolean,
  ): void;
}

/** Permissions our own page is granted; everything else is refused. */
const GRANTED = new Set(['clipboard-sanitized-write']);

export function permitted(permission: string, requestingUrl: string | undefined): boolean {
  return GRANTED.has(permission) && requestingUrl !== undefined && isAppUrl(requestingUrl);
}

export function guardContents(contents: GuardedContents, openExternal: (url: string) => unknown): void {
  const stay = (event: { preventDefault(): void; url: string }) => {
    // The UI routes by hash; a navigation elsewhere (a link, a drop, a redirect) is never ours to follow.
    if (!isAppUrl(event.url)) event.preventDefault();
  };
  contents.on('will-navigate', stay);
  contents.on('will-redirect', stay);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) void openExternal(url);
    return { action: 'deny' };
  });
}

export function guardSession(session: GuardedSession): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(permitted(permission, details.requestingUrl)),
  );
  session.setPermissionCheckHandler((_contents, permission, origin) => permitted(permission, origin));
}

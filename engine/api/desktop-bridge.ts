// What the desktop app's preload exposes to the UI as `window.axDesktop` (contextBridge), and the
// window message that carries the engine's MessagePort. The shell (electron/) implements it; the
// renderer uses it when present and falls back to the browser's WebSocket + sign-in when not.
//
// Ports cannot cross contextBridge, so the engine port comes as a window message: the renderer
// calls requestEnginePort(), the preload receives the port from the main process and posts
// `{ type: ENGINE_PORT_MESSAGE }` to the window with the port in `event.ports[0]`. Each request
// yields a fresh port (a new client of the engine host); the old one is closed by the shell when
// the engine restarts, which the renderer sees as a closed transport and reconnects.

export const ENGINE_PORT_MESSAGE = 'ax:engine-port';

/** The last crash of the engine host, as the shell saw it. */
export interface EngineCrash {
  /** exit code, or null when killed by a signal */
  code: number | null;
  signal: string | null;
  /** the last lines the host wrote to stderr (at most ~4 KB) */
  stderrTail: string;
  at: number;
}

/** The engine host's state as the shell's supervisor sees it. */
export type DesktopEngineStatus =
  | { state: 'starting'; attempt: number; lastCrash?: EngineCrash }
  | { state: 'running'; pid: number; dataDir: string; version: string; apiPort?: number }
  /** it died; the supervisor starts it again at `retryAt` (ms since epoch) */
  | { state: 'restarting'; attempt: number; retryAt: number; lastCrash: EngineCrash }
  /** crash loop: the supervisor gave up after `attempts` tries; restartEngine() tries again */
  | { state: 'gave-up'; attempts: number; lastCrash: EngineCrash }
  /** it could not start for a reason restarting will not fix (e.g. another engine holds the data dir) */
  | { state: 'failed'; code: string; message: string }
  /** the app is quitting */
  | { state: 'stopping' };

export type DesktopLanguage = 'en' | 'zh-CN';

export interface DesktopBridge {
  /** the app's version and platform, for the About box and the status bar */
  readonly version: string;
  readonly platform: string;
  /** ask for a fresh engine port; it arrives as the window message ENGINE_PORT_MESSAGE */
  requestEnginePort(): void;
  engineStatus(): Promise<DesktopEngineStatus>;
  /** called on every status change; returns the unsubscribe */
  onEngineStatus(listener: (status: DesktopEngineStatus) => void): () => void;
  /** start the engine again after a crash loop or a failure (resets the backoff) */
  restartEngine(): Promise<void>;
  /** the UI's language changed: the shell's menus and tray follow */
  setLanguage(language: DesktopLanguage): void;
  /** the shell asks the UI to open a page (a tray or notification click): '/runs/12?instance=34' */
  onNavigate(listener: (path: string) => void): () => void;
}

// What the desktop app's preload exposes to the UI as `window.axDesktop` (contextBridge), and the
// window message that carries the engine's MessagePort. The shell (electron/) implements it; the
// renderer uses it when present and falls back to the browser's WebSocket + sign-in when not.
//
// Ports cannot cross contextBridge, so the engine port comes as a window message: the renderer
// calls requestEnginePort(), the preload receives the port from the main process and posts
// `{ type: ENGINE_PORT_MESSAGE }` to the window with the port in `event.ports[0]`. Each request
// yields a fresh port (a new client of the engine host); the old one is closed by the shell when
// the engine restarts, which the renderer sees as a closed transport and reconnects.
import type { TeamWorkerStatus } from './host-protocol.ts';
import { maskUrl } from './mask-url.ts';

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
  /** `note`: the last thing the starting engine said (a one-time upgrade of its log store, say) */
  | { state: 'starting'; attempt: number; lastCrash?: EngineCrash; note?: string }
  | { state: 'running'; pid: number; dataDir: string; version: string; apiPort?: number }
  /** it died; the supervisor starts it again at `retryAt` (ms since epoch) */
  | { state: 'restarting'; attempt: number; retryAt: number; lastCrash: EngineCrash }
  /** crash loop: the supervisor gave up after `attempts` tries; restartEngine() tries again */
  | { state: 'gave-up'; attempts: number; lastCrash: EngineCrash }
  /** it could not start for a reason restarting will not fix (e.g. another engine holds the data dir) */
  | { state: 'failed'; code: string; message: string }
  /** the app is quitting */
  | { state: 'stopping' };

/** the languages of the UI, which the shell's menus and tray follow */
export const DESKTOP_LANGUAGES = ['en', 'zh-CN'] as const;
export type DesktopLanguage = (typeof DESKTOP_LANGUAGES)[number];

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
  /** the desktop app's own settings (secrets, data dir) */
  readonly settings: DesktopSettingsBridge;
  /** this laptop as a temporary worker of the team (absent in shells older than it) */
  readonly team?: DesktopTeamBridge;
  /** the local API setting (absent in shells older than it) */
  readonly localApi?: DesktopLocalApiBridge;
}

/**
 * The local API: the engine also serves the HTTP + WebSocket API on 127.0.0.1, so `ax` commands
 * and scripts on this machine reach the app's engine (with the data dir's api-token). Off by
 * default: the app itself needs no port.
 */
export interface DesktopLocalApiStatus {
  /** the person's setting */
  enabled: boolean;
  /** started with --local-api (npm start -- --local-api): on whatever the setting says */
  forcedBySwitch: boolean;
  /** the port while the engine serves it */
  port?: number;
  /** the engine's data dir, for the `ax --data-dir` line */
  dataDir?: string;
}

export interface DesktopLocalApiBridge {
  status(): Promise<DesktopLocalApiStatus>;
  /** turns it on or off: the engine restarts (running tasks get up to 30 s to finish) */
  set(enabled: boolean): Promise<DesktopLocalApiStatus>;
}

/** The team worker as the settings page shows it. */
export interface DesktopTeamStatus extends TeamWorkerStatus {
  /** a server and a worker token, or both database connection strings, are saved: Join can be offered */
  canJoin: boolean;
  /** the person asked to be in the team (remembered across restarts; rejoins after a wake) */
  wanted: boolean;
}

/** Join or leave the team as a temporary worker (window.axDesktop.team). */
export interface DesktopTeamBridge {
  status(): Promise<DesktopTeamStatus>;
  /**
   * labels: what this worker offers (default "laptop"); it takes only tasks labelled with them,
   * and tasks without labels only with acceptUnlabelled (remembered, like the labels)
   */
  join(labels?: string[], options?: { acceptUnlabelled?: boolean }): Promise<DesktopTeamStatus>;
  /** drain (running tasks finish), deregister */
  leave(): Promise<DesktopTeamStatus>;
  onStatus(listener: (status: DesktopTeamStatus) => void): () => void;
}

/**
 * What the desktop app keeps encrypted (Electron safeStorage) to join a team, in one of two ways:
 * through a team node's server with a worker token (`server`, `token`, and `caFile` when the
 * server's certificate comes from a private CA: no database credentials on the laptop), or
 * straight to the team's database and Redis (`mysql`, `redis`: a server-room worker's way).
 */
export type DesktopSecretKey = 'mysql' | 'redis' | 'server' | 'token' | 'caFile';
export const DESKTOP_SECRET_KEYS: readonly DesktopSecretKey[] = ['mysql', 'redis', 'server', 'token', 'caFile'];
/** The keys of a join through a server (shown in the team card); the rest are the direct connection's. */
export const DESKTOP_SERVER_KEYS: readonly DesktopSecretKey[] = ['server', 'token', 'caFile'];
export const DESKTOP_DATABASE_KEYS: readonly DesktopSecretKey[] = ['mysql', 'redis'];

/** How the desktop app joins a team: through a server with a worker token, or with the database's connection strings. */
export type TeamConnection = Partial<Record<DesktopSecretKey, string>>;

/** What the connection lacks for either way of joining, said as what to save where; undefined: it can join. */
export function teamConnectionProblem(c: TeamConnection): string | undefined {
  if (c.server && c.token) return undefined;
  if (c.server)
    return `the app has the team server's address but no worker token: save the token an admin made (ax tokens create NAME --scope worker --worker-id ID --labels L) in Settings → Team`;
  if (c.token) return "the app has a worker token but not the team server's address: save it in Settings → Team";
  if (c.mysql && c.redis) return undefined;
  if (c.mysql || c.redis)
    return `the app has no ${c.mysql ? 'Redis' : 'MySQL'} connection string: save both in the app's Settings (or join through the team's server with a worker token)`;
  return "no team to join: save the team server's address and a worker token in Settings → Team (or the team's MySQL and Redis connection strings)";
}

/** What a stored value of `key` shows as: a URL with its password masked, a token as its last 4 characters. */
export function shownSecret(key: DesktopSecretKey, value: string): string {
  if (key === 'token') return `••••${value.slice(-4)}`;
  // neither carries a password (a server address with one is refused): shown as typed
  if (key === 'caFile' || key === 'server') return value;
  return maskUrl(value);
}

/** Why `value` cannot be stored under `key` (a server URL that is not http(s), a token with spaces), or undefined. */
export function desktopSecretProblem(key: DesktopSecretKey, value: string): string | undefined {
  if (key === 'server') {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `"${value}" is not a URL: give the team node's address, e.g. https://scheduler.example:8443`;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return `the server's address starts with https:// (or http:// for a server on this machine), not ${url.protocol}`;
    if (url.username || url.password)
      return "the server's address carries no user or password: the token is given apart";
  }
  if (key === 'token' && /\s/.test(value))
    return 'a token has no spaces: paste it exactly as `ax tokens create` printed it';
  if (key === 'caFile' && !value.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(value))
    return "the CA certificate's file is given by its full path (e.g. /etc/ssl/team-ca.pem)";
  return undefined;
}

/**
 * How the desktop app keeps its secrets, for the settings page. `backend` is what Electron's
 * safeStorage uses: 'os' on macOS (Keychain) and Windows (DPAPI); on Linux the keyring it found
 * ('gnome_libsecret', 'kwallet5', …) or 'basic_text': no keyring, a key built into Electron, so
 * whoever can read the file can read the secrets; 'unavailable': nothing can be encrypted (then
 * nothing is stored).
 */
export interface DesktopSecretsStatus {
  backend: string;
  /** the stored secrets are readable by anyone who can read the file ('basic_text') */
  plaintext: boolean;
  /** safeStorage can encrypt now; when false, saving is refused */
  available: boolean;
  /** what is stored, passwords masked */
  stored: Partial<Record<DesktopSecretKey, string>>;
  /** stored but not decryptable any more (the keyring changed): set them again */
  unreadable: DesktopSecretKey[];
  /** the task secrets workflows refer to (env: { NAME: { secret: SECRET } }), names only, never values */
  taskSecrets: DesktopTaskSecret[];
  /** the file holding them (<userData>/secrets.json) */
  file: string;
  /** the engine's data dir (<userData>/data unless --data-dir or AX_DATA_DIR), for `ax --data-dir` */
  dataDir: string;
}

/** A task secret kept by the desktop app, as listed: never its value. */
export interface DesktopTaskSecret {
  name: string;
  setAt: number;
  /** stored but not decryptable any more (the keyring changed): set it again */
  unreadable?: true;
}

/** The desktop app's own settings: secrets storage and the data dir (window.axDesktop.settings). */
export interface DesktopSettingsBridge {
  status(): Promise<DesktopSecretsStatus>;
  /** stores a team connection string encrypted, or forgets it (null); the engine uses it from its next start */
  setSecret(key: DesktopSecretKey, value: string | null): Promise<DesktopSecretsStatus>;
  /** stores a task secret encrypted, or forgets it (null); the running engine gets it at once */
  setTaskSecret(name: string, value: string | null): Promise<DesktopSecretsStatus>;
}

// The desktop shell as the web UI sees it, simulated in Chromium for test/ui/desktop*.test.ts: the
// Electron preload's `window.axDesktop` (page.addInitScript), each engine port the page asks for
// relayed by this process to a real `ax serve` (a WebSocket with the data dir's API token: the
// page itself holds no session and no token), and what the page asked of the shell.
import type { Browser, BrowserContext, Page } from 'playwright';
import { WebSocket } from 'ws';
import type {
  DesktopEngineStatus,
  DesktopLanguage,
  DesktopSecretsStatus,
  EngineCrash,
} from '../../engine/api/desktop-bridge.ts';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import type { ServedEngine } from './serve.ts';
import { animationsDone, screenshot, type UiPageOptions } from './ui.ts';

const STDERR = [
  '[engine] data dir /home/li/.config/AX Scheduler (sqlite)',
  '[engine] scheduler started: 3 workflows, next fire 02:00',
  'Error: SQLITE_CORRUPT: database disk image is malformed',
  '    at Database.prepare (engine/adapters/sql/sqlite-store.ts:88:21)',
  '    at SqliteStore.claimInstance (engine/adapters/sql/sqlite-store.ts:412:18)',
  '    at Scheduler.tick (engine/core/scheduling/scheduler.ts:140:7) — a very long line follows to see that it wraps instead of widening the page: ' +
    'x'.repeat(160),
].join('\n');

export const crash = (over: Partial<EngineCrash> = {}): EngineCrash => ({
  code: 1,
  signal: null,
  stderrTail: STDERR,
  at: Date.now() - 5_000,
  ...over,
});
export const running = (pid: number): DesktopEngineStatus => ({
  state: 'running',
  pid,
  dataDir: '/home/li/.config/AX Scheduler',
  version: '0.1.0',
});

/** what the simulated shell records in the page */
export interface ShellRecord {
  requests: number;
  restarts: number;
  languages: DesktopLanguage[];
  /** setSecret calls: [key, value] */
  secretsSet: [string, string | null][];
  /** setTaskSecret calls: [name, value] */
  taskSecretsSet: [string, string | null][];
}

export const SECRETS: DesktopSecretsStatus = {
  backend: 'basic_text',
  plaintext: true,
  available: true,
  stored: {},
  unreadable: [],
  taskSecrets: [],
  file: '/home/li/.config/AX Scheduler/secrets.json',
  dataDir: '/home/li/.config/AX Scheduler/data',
};

/**
 * The preload, as the page sees it: axDesktop plus a test handle (__axShell) to push statuses,
 * ask for a page, close the current port, and read what the UI asked of the shell.
 */
function simulatePreload([initial, secrets]: [DesktopEngineStatus, DesktopSecretsStatus]): void {
  type Relay = (id: number, message?: unknown) => Promise<void>;
  const w = window as unknown as Record<string, unknown> & {
    __axRelaySend: Relay;
    __axRelayOpen: Relay;
    __axRelayClose: Relay;
  };
  const statusListeners = new Set<(s: DesktopEngineStatus) => void>();
  const navigateListeners = new Set<(path: string) => void>();
  const shellEnds = new Map<number, MessagePort>();
  let nextId = 1;
  const shell = {
    requests: 0,
    restarts: 0,
    languages: [] as string[],
    secretsSet: [] as [string, string | null][],
    taskSecretsSet: [] as [string, string | null][],
    secrets,
    status: initial,
    /** when set, restartEngine() fails with this message (as an IPC invoke that throws) */
    restartRefusal: '',
    emit(status: DesktopEngineStatus) {
      shell.status = status;
      for (const listener of [...statusListeners]) listener(status);
    },
    navigate(path: string) {
      for (const listener of [...navigateListeners]) listener(path);
    },
    /** the shell closes the newest port (its engine went away) */
    closePort() {
      const id = Math.max(...shellEnds.keys());
      shellEnds.get(id)?.close();
      shellEnds.delete(id);
      void w.__axRelayClose(id);
    },
    deliver(id: number, message: unknown) {
      shellEnds.get(id)?.postMessage(message);
    },
    upstreamClosed(id: number) {
      shellEnds.get(id)?.close();
      shellEnds.delete(id);
    },
  };
  w.__axShell = shell;
  // The team worker (window.axDesktop.team): the test reads the calls and pushes statuses (__axTeam).
  const team = {
    status: { state: 'left', canJoin: true, wanted: false } as Record<string, unknown>,
    calls: [] as [string, string[] | null, boolean | null][],
    listeners: new Set<(s: unknown) => void>(),
    emit(status: Record<string, unknown>) {
      team.status = status;
      for (const listener of [...team.listeners]) listener(status);
    },
  };
  w.__axTeam = team;
  // The local API setting (window.axDesktop.localApi): the test reads the calls (__axLocalApi).
  const localApi = { enabled: false, calls: [] as boolean[] };
  w.__axLocalApi = localApi;
  const localApiStatus = () => ({
    enabled: localApi.enabled,
    forcedBySwitch: false,
    ...(localApi.enabled && { port: 43117, dataDir: '/home/li/.config/AX Scheduler/data' }),
  });
  w.axDesktop = {
    version: '0.1.0',
    platform: 'linux',
    requestEnginePort() {
      shell.requests++;
      const id = nextId++;
      const channel = new MessageChannel();
      shellEnds.set(id, channel.port1);
      channel.port1.onmessage = (event) => void w.__axRelaySend(id, event.data);
      // the page closed its end (the transport saw the engine restart): drop the engine client
      channel.port1.addEventListener('close', () => {
        shellEnds.delete(id);
        void w.__axRelayClose(id);
      });
      void w
        .__axRelayOpen(id)
        .then(() => window.postMessage({ type: 'ax:engine-port' }, location.origin, [channel.port2]));
    },
    engineStatus: async () => shell.status,
    onEngineStatus(listener: (s: DesktopEngineStatus) => void) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    restartEngine: async () => {
      shell.restarts++;
      if (shell.restartRefusal) throw new Error(shell.restartRefusal);
    },
    setLanguage(language: string) {
      shell.languages.push(language);
    },
    onNavigate(listener: (path: string) => void) {
      navigateListeners.add(listener);
      return () => navigateListeners.delete(listener);
    },
    team: {
      status: async () => team.status,
      async join(labels?: string[], options?: { acceptUnlabelled?: boolean }) {
        team.calls.push(['join', labels ?? null, options?.acceptUnlabelled ?? null]);
        return team.status;
      },
      async leave() {
        team.calls.push(['leave', null, null]);
        return team.status;
      },
      onStatus(listener: (s: unknown) => void) {
        team.listeners.add(listener);
        return () => team.listeners.delete(listener);
      },
    },
    localApi: {
      status: async () => localApiStatus(),
      async set(enabled: boolean) {
        localApi.calls.push(enabled);
        localApi.enabled = enabled;
        return localApiStatus();
      },
    },
    settings: {
      status: async () => shell.secrets,
      async setSecret(key: 'mysql' | 'redis' | 'server' | 'token' | 'caFile', value: string | null) {
        shell.secretsSet.push([key, value]);
        const stored: Record<string, string> = { ...shell.secrets.stored };
        if (value === null) delete stored[key];
        // as the shell shows them (shownSecret): a token by its last 4 characters, a password masked
        else if (key === 'token') stored[key] = `••••${value.slice(-4)}`;
        else stored[key] = value.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
        shell.secrets = { ...shell.secrets, stored };
        return shell.secrets;
      },
      async setTaskSecret(name: string, value: string | null) {
        shell.taskSecretsSet.push([name, value]);
        const others = shell.secrets.taskSecrets.filter((s) => s.name !== name);
        const taskSecrets = value === null ? others : [...others, { name, setAt: Date.UTC(2026, 0, 2, 3, 4) }];
        shell.secrets = { ...shell.secrets, taskSecrets };
        return shell.secrets;
      },
    },
  };
}

/** A context whose pages get the simulated preload, their ports relayed to `engine`. */
export async function desktopContext(
  browser: Browser,
  engine: ServedEngine,
  initial: DesktopEngineStatus,
  options: UiPageOptions & { secrets?: DesktopSecretsStatus } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    locale: options.locale ?? 'en-US',
    viewport: options.viewport ?? { width: 1280, height: 800 },
  });
  const upstreams = new Map<number, WebSocket>();
  await context.exposeBinding('__axRelayOpen', async ({ page }, id: number) => {
    const ws = new WebSocket(`ws://127.0.0.1:${engine.port}/api`, {
      headers: { authorization: `Bearer ${apiToken(engine.dataDir)}` },
    });
    upstreams.set(id, ws);
    // the engine's messages reach the page in order, one evaluate after the other
    let queue = Promise.resolve();
    ws.on('message', (data) => {
      const message: unknown = JSON.parse(String(data));
      queue = queue
        .then(() =>
          page.evaluate(
            ([i, m]) =>
              (window as unknown as { __axShell: { deliver(i: number, m: unknown): void } }).__axShell.deliver(i, m),
            [id, message] as const,
          ),
        )
        .catch(() => undefined);
    });
    ws.on('close', () => {
      upstreams.delete(id);
      queue = queue
        .then(() =>
          page.evaluate(
            (i) =>
              (window as unknown as { __axShell: { upstreamClosed(i: number): void } }).__axShell.upstreamClosed(i),
            id,
          ),
        )
        .catch(() => undefined);
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
  });
  await context.exposeBinding('__axRelaySend', (_source, id: number, message: unknown) =>
    upstreams.get(id)?.send(JSON.stringify(message)),
  );
  await context.exposeBinding('__axRelayClose', (_source, id: number) => upstreams.get(id)?.close());
  await context.addInitScript(simulatePreload, [initial, options.secrets ?? SECRETS] as [
    DesktopEngineStatus,
    DesktopSecretsStatus,
  ]);
  return context;
}

export const shellRecord = (page: Page): Promise<ShellRecord> =>
  page.evaluate(() => {
    const shell = (window as unknown as { __axShell: ShellRecord }).__axShell;
    return {
      requests: shell.requests,
      restarts: shell.restarts,
      languages: [...shell.languages],
      secretsSet: [...shell.secretsSet],
      taskSecretsSet: [...shell.taskSecretsSet],
    };
  });
export const emit = (page: Page, status: DesktopEngineStatus) =>
  page.evaluate(
    (s) => (window as unknown as { __axShell: { emit(s: DesktopEngineStatus): void } }).__axShell.emit(s),
    status,
  );
export const shellNavigate = (page: Page, path: string) =>
  page.evaluate((p) => (window as unknown as { __axShell: { navigate(p: string): void } }).__axShell.navigate(p), path);

/** the status screens, one picture each, in test-artifacts/screenshots/ for a person to look at */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(640, 790); // off the buttons: no hover colour in the picture
  await animationsDone(page);
  await screenshot(page, `desk-ui-${name}`);
}

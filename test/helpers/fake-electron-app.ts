// A fake of the whole 'electron' module as the built main bundle (dist/electron/main.cjs) uses
// it, for loading that bundle under Node. Its utilityProcess.fork starts the real engine host
// with child_process.fork and does what Electron does for it: a MessagePort transferred with
// {type: 'connect'} becomes a client of the host (carried over the host's IPC client protocol,
// since Node IPC cannot transfer ports), and the host's ports close when it dies.
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { ParentMessage } from '../../engine/api/host-protocol.ts';
import {
  fakeChannel,
  FakeContents,
  FakeIpcMain,
  type FakePort,
  FakeSafeStorage,
  FakeSession,
  FakeWindow,
} from './fake-electron.ts';

export class FakeBrowserWindow extends FakeWindow {
  static all: FakeBrowserWindow[] = [];
  readonly webContents = new FakeContents();
  loaded: string[] = [];
  constructor(readonly options: Record<string, unknown>) {
    super();
    this.visible = false;
    FakeBrowserWindow.all.push(this);
  }
  once(event: string, listener: (...args: never[]) => unknown): this {
    return this.on(event, listener);
  }
  async loadURL(url: string): Promise<void> {
    this.loaded.push(url);
    this.emit('ready-to-show');
  }
}

class FakeNotification extends EventEmitter {
  static shown: { title: string; body: string }[] = [];
  static isSupported = () => true;
  constructor(private readonly options: { title: string; body: string }) {
    super();
  }
  show(): void {
    FakeNotification.shown.push(this.options);
  }
}

class FakeTray extends EventEmitter {
  static last: FakeTray | undefined;
  menu: { label?: string; click?: () => void }[] = [];
  tooltip = '';
  constructor() {
    super();
    FakeTray.last = this;
  }
  setImage(): void {}
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setContextMenu(menu: { label?: string; click?: () => void }[]): void {
    this.menu = menu;
  }
}

/** utilityProcess.fork over child_process.fork, ports emulated over the host's IPC clients. */
function forkUtility(entry: string, args: string[], options: { env?: NodeJS.ProcessEnv }, apiMethods: string[]) {
  const child = fork(entry, args, { env: options.env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const proc = new EventEmitter();
  const clients = new Map<number, FakePort>();
  let nextClient = 1;
  const send = (message: ParentMessage) => {
    if (child.connected) child.send(message, () => undefined);
  };
  child.on('message', (raw) => {
    const message = raw as { type: string; client?: number; message?: unknown };
    if (message.type === 'api') clients.get(message.client!)?.postMessage(message.message);
    else if (message.type === 'closed') clients.get(message.client!)?.close();
    else proc.emit('message', message);
  });
  child.on('exit', (code, signal) => {
    for (const port of clients.values()) port.close();
    clients.clear();
    proc.emit('exit', code ?? (signal ? 1 : 0));
  });
  return Object.assign(proc, {
    pid: child.pid,
    stderr: child.stderr,
    child,
    postMessage(message: ParentMessage, transfer: FakePort[] = []) {
      const port = transfer[0];
      if (message.type !== 'connect' || !port) return send(message);
      const client = nextClient++;
      clients.set(client, port);
      send({ type: 'open', client });
      port.on('message', (event: { data: unknown }) => {
        const method = (event.data as { method?: unknown } | null)?.method;
        if (typeof method === 'string') apiMethods.push(method);
        send({ type: 'api', client, message: event.data });
      });
      port.on('close', () => {
        if (clients.delete(client)) send({ type: 'close', client });
      });
      port.start();
    },
    kill: () => child.kill('SIGKILL'),
  });
}

export type FakeUtilityProcess = ReturnType<typeof forkUtility>;

export function fakeElectronModule(options: {
  switches: Record<string, string>;
  userData: string;
  dialogResponse: () => number;
}) {
  let ready: () => void = () => undefined;
  const whenReady = new Promise<void>((resolve) => (ready = resolve));
  const calls: string[] = [];
  const forks: FakeUtilityProcess[] = [];
  const dialogs: { message: string; buttons: string[] }[] = [];
  const protocols = new Map<string, (request: Request) => Promise<Response>>();
  /** every API method any client (the window's, main's own) asked the engine host, in order */
  const apiMethods: string[] = [];
  const powerMonitor = new EventEmitter();
  const app = Object.assign(new EventEmitter(), {
    requestSingleInstanceLock: () => (calls.push('requestSingleInstanceLock'), true),
    /** as Electron's: before-quit first; a listener may prevent the quit */
    quit(): void {
      calls.push('app.quit');
      let prevented = false;
      app.emit('before-quit', { preventDefault: () => (prevented = true) });
      if (!prevented) calls.push('quit done');
    },
    whenReady: () => whenReady,
    commandLine: {
      getSwitchValue: (name: string) => options.switches[name] ?? '',
      hasSwitch: (name: string) => name in options.switches,
    },
    getPath: () => options.userData,
    isPackaged: false,
    name: 'AX Scheduler',
  });
  const module = {
    app,
    BrowserWindow: FakeBrowserWindow,
    dialog: {
      showMessageBox: async (...args: unknown[]) => {
        const box = args.at(-1) as { message: string; buttons: string[] };
        dialogs.push(box);
        return { response: options.dialogResponse() };
      },
    },
    ipcMain: new FakeIpcMain(),
    Menu: {
      buildFromTemplate: (template: unknown) => template,
      setApplicationMenu: () => calls.push('setApplicationMenu'),
    },
    MessageChannelMain: function MessageChannelMain() {
      return fakeChannel();
    },
    nativeImage: { createFromBitmap: (buffer: Buffer) => ({ buffer }) },
    Notification: FakeNotification,
    powerMonitor,
    protocol: {
      registerSchemesAsPrivileged: (schemes: { scheme: string }[]) =>
        calls.push(`registerSchemesAsPrivileged:${schemes.map((s) => s.scheme).join()}`),
      handle: (scheme: string, handler: (request: Request) => Promise<Response>) => (
        calls.push(`protocol.handle:${scheme}`),
        protocols.set(scheme, handler)
      ),
    },
    safeStorage: new FakeSafeStorage(),
    session: { defaultSession: new FakeSession() },
    shell: { openExternal: async (url: string) => void calls.push(`openExternal:${url}`) },
    Tray: FakeTray,
    utilityProcess: {
      fork: (entry: string, args: string[], forkOptions: { env?: NodeJS.ProcessEnv }) => {
        calls.push(`utilityProcess.fork:${entry} ${args.join(' ')}`);
        const proc = forkUtility(entry, args, forkOptions, apiMethods);
        forks.push(proc);
        return proc;
      },
    },
  };
  return {
    module,
    ready: () => ready(),
    calls,
    forks,
    dialogs,
    protocols,
    apiMethods,
    windows: FakeBrowserWindow.all,
    notifications: FakeNotification.shown,
    tray: () => FakeTray.last,
  };
}

// The main process's IPC, on the fake Electron: only the main window's top frame showing app://ui
// is answered; the port broker hands one port to each side (the host gets {type: 'connect'}),
// keeps a window's request for the next host while none runs, and closes the main process's own
// port when its host dies; and the preload's bridge relays ports to our origin only.
import { describe, expect, it } from 'vitest';
import { createDesktopBridge, type IpcRendererLike } from '../../electron/desktop-bridge.ts';
import { EngineSupervisor } from '../../electron/engine-supervisor.ts';
import {
  ENGINE_PORT,
  ENGINE_STATUS,
  ENGINE_STATUS_CHANGED,
  NAVIGATE,
  REQUEST_ENGINE_PORT,
  RESTART_ENGINE,
  SECRETS_STATUS,
  SET_LANGUAGE,
  SET_SECRET,
  SET_TASK_SECRET,
} from '../../electron/ipc-channels.ts';
import { registerIpcHandlers, trustedSender } from '../../electron/ipc-handlers.ts';
import { MainEngineClient } from '../../electron/main-engine-client.ts';
import { PortBroker } from '../../electron/port-broker.ts';
import {
  type DesktopEngineStatus,
  type DesktopSecretsStatus,
  ENGINE_PORT_MESSAGE,
} from '../../engine/api/desktop-bridge.ts';
import {
  fakeChannel,
  FakeContents,
  FakeEngineProcess,
  FakeIpcMain,
  type FakePort,
  ipcEvent,
} from '../helpers/fake-electron.ts';

function engineOnFakes() {
  const processes: FakeEngineProcess[] = [];
  const supervisor = new EngineSupervisor({
    launch: () => {
      const proc = new FakeEngineProcess();
      processes.push(proc);
      return proc;
    },
    firstBackoffMs: 1,
  });
  const channels: ReturnType<typeof fakeChannel>[] = [];
  const broker = new PortBroker(supervisor, () => {
    const channel = fakeChannel();
    channels.push(channel);
    return channel;
  });
  return { supervisor, broker, processes, channels };
}

const SECRETS: DesktopSecretsStatus = {
  backend: 'basic_text',
  plaintext: true,
  available: true,
  stored: {},
  unreadable: [],
  taskSecrets: [],
  file: '/u/secrets.json',
  dataDir: '/u/data',
};

describe('IPC sender checks', () => {
  const setup = () => {
    const ipc = new FakeIpcMain();
    const main = new FakeContents();
    const calls: string[] = [];
    const statusListeners: ((s: DesktopEngineStatus) => void)[] = [];
    registerIpcHandlers(ipc, {
      mainContents: () => main,
      requestEnginePort: (contents) => calls.push(`port:${contents.id}`),
      engineStatus: () => ({ state: 'starting', attempt: 1 }),
      onEngineStatus: (listener) => {
        statusListeners.push(listener);
        return () => undefined;
      },
      restartEngine: () => calls.push('restart'),
      setLanguage: (language) => calls.push(`language:${language}`),
      secrets: {
        status: () => (calls.push('secrets'), SECRETS),
        set: (key, value) => (calls.push(`secret:${key}=${value}`), SECRETS),
        setTask: (name, value) => (calls.push(`task-secret:${name}=${value}`), SECRETS),
      },
    });
    return { ipc, main, calls, statusListeners };
  };

  it('answers the main window showing our page', async () => {
    const { ipc, main, calls } = setup();
    const ok = ipcEvent(main, 'app://ui/index.html#/runs');
    ipc.send(REQUEST_ENGINE_PORT, ok);
    ipc.send(SET_LANGUAGE, ok, 'zh-CN');
    ipc.send(SET_LANGUAGE, ok, 'fr');
    await ipc.invoke(RESTART_ENGINE, ok);
    expect(await ipc.invoke(ENGINE_STATUS, ok)).toEqual({ state: 'starting', attempt: 1 });
    expect(calls).toEqual([`port:${main.id}`, 'language:zh-CN', 'restart']);
  });

  it("passes the window's secrets requests on, refusing keys and values it does not know", async () => {
    const { ipc, main, calls } = setup();
    const ok = ipcEvent(main, 'app://ui/index.html#/settings');
    expect(await ipc.invoke(SECRETS_STATUS, ok)).toEqual(SECRETS);
    await ipc.invoke(SET_SECRET, ok, 'mysql', 'mysql://ax:pw@db/ax');
    await ipc.invoke(SET_SECRET, ok, 'redis', null);
    await expect(ipc.invoke(SET_SECRET, ok, 'password', 'x')).rejects.toThrow(/unknown secret "password"/);
    await expect(ipc.invoke(SET_SECRET, ok, 'mysql', { url: 'x' })).rejects.toThrow(/a secret is a string/);
    expect(calls).toEqual(['secrets', 'secret:mysql=mysql://ax:pw@db/ax', 'secret:redis=null']);
  });

  it("passes the window's task secrets on, refusing what is not a name and a string (or null)", async () => {
    const { ipc, main, calls } = setup();
    const ok = ipcEvent(main, 'app://ui/index.html#/settings');
    await ipc.invoke(SET_TASK_SECRET, ok, 'api-token', 'tok');
    await ipc.invoke(SET_TASK_SECRET, ok, 'api-token', null);
    await expect(ipc.invoke(SET_TASK_SECRET, ok, 42, 'x')).rejects.toThrow(/a secret name is a string/);
    await expect(ipc.invoke(SET_TASK_SECRET, ok, 'api-token', ['x'])).rejects.toThrow(/a secret is a string/);
    expect(calls).toEqual(['task-secret:api-token=tok', 'task-secret:api-token=null']);
  });

  it('ignores or refuses every other sender', async () => {
    const { ipc, main, calls } = setup();
    const other = new FakeContents();
    const strangers = [
      ipcEvent(other, 'app://ui/index.html'),
      ipcEvent(main, 'https://example.com/'),
      ipcEvent(main, 'app://ui/index.html', { subframe: true }),
      ipcEvent(main, null),
      ipcEvent(main, 'file:///home/me/index.html'),
    ];
    for (const event of strangers) {
      ipc.send(REQUEST_ENGINE_PORT, event);
      ipc.send(SET_LANGUAGE, event, 'en');
      await expect(ipc.invoke(ENGINE_STATUS, event)).rejects.toThrow(/refused/);
      await expect(ipc.invoke(RESTART_ENGINE, event)).rejects.toThrow(/refused/);
      await expect(ipc.invoke(SECRETS_STATUS, event)).rejects.toThrow(/refused/);
      await expect(ipc.invoke(SET_SECRET, event, 'mysql', 'mysql://evil@x/ax')).rejects.toThrow(/refused/);
      await expect(ipc.invoke(SET_TASK_SECRET, event, 'api-token', 'evil')).rejects.toThrow(/refused/);
    }
    expect(calls).toEqual([]);
    main.destroyed = true;
    expect(trustedSender(ipcEvent(main, 'app://ui/'), main)).toBe(false);
    expect(trustedSender(ipcEvent(main, 'app://ui/'), undefined)).toBe(false);
  });

  it('pushes status changes to the main window only', () => {
    const { main, statusListeners } = setup();
    statusListeners[0]!({ state: 'stopping' });
    expect(main.sent).toEqual([{ channel: ENGINE_STATUS_CHANGED, args: [{ state: 'stopping' }] }]);
  });
});

describe('port broker', () => {
  it('hands one port of a fresh pair to the host with connect and the other to the window, per request', () => {
    const { supervisor, broker, processes, channels } = engineOnFakes();
    supervisor.start();
    const window = new FakeContents();
    broker.request(window);
    broker.request(window);
    const host = processes[0]!;
    expect(host.received.map((r) => r.message)).toEqual([{ type: 'connect' }, { type: 'connect' }]);
    expect(channels).toHaveLength(2);
    for (const [i, channel] of channels.entries()) {
      expect(host.received[i]!.transfer).toEqual([channel.port1]);
      expect(window.posted[i]).toEqual({ channel: ENGINE_PORT, message: null, transfer: [channel.port2] });
    }
  });

  it('keeps a request made while no host runs for the next host, once per window', async () => {
    const { supervisor, broker, processes } = engineOnFakes();
    supervisor.start();
    processes[0]!.exit(1);
    expect(supervisor.status().state).toBe('restarting');
    const window = new FakeContents();
    const gone = new FakeContents();
    broker.request(window);
    broker.request(window);
    broker.request(gone);
    gone.destroyed = true;
    expect(window.posted).toEqual([]);
    await new Promise((resolve) => supervisor.onProcess(resolve));
    expect(processes[1]!.received.map((r) => r.message)).toEqual([{ type: 'connect' }]);
    expect(window.posted).toHaveLength(1);
    expect(gone.posted).toEqual([]);
  });

  it('gives the main process a port to each host and closes it when that host dies', async () => {
    const { supervisor, broker, processes } = engineOnFakes();
    const ports: FakePort[] = [];
    broker.connectMain((port) => ports.push(port as FakePort));
    supervisor.start();
    expect(ports).toHaveLength(1);
    expect(processes[0]!.received).toEqual([{ message: { type: 'connect' }, transfer: [expect.anything()] }]);
    processes[0]!.exit(null, 'SIGKILL');
    expect(ports[0]!.closed).toBe(true);
    await new Promise((resolve) => supervisor.onProcess(resolve));
    expect(ports).toHaveLength(2);
    expect(ports[1]!.closed).toBe(false);
  });

  it("the main process's client speaks the EngineApi over its port, and counts running tasks", async () => {
    const { supervisor, broker, processes, channels } = engineOnFakes();
    const client = new MainEngineClient(broker, 2_000);
    expect(await client.runningTasks()).toBe(0);
    supervisor.start();
    // Play the engine host's end of the pair: answer dashboard with three running tasks.
    const hostEnd = channels[0]!.port1;
    hostEnd.on('message', (event: { data: unknown }) => {
      const request = event.data as { id: number; method: string };
      hostEnd.postMessage({ id: request.id, result: { runningTasks: request.method === 'dashboard' ? 3 : -1 } });
    });
    hostEnd.start();
    expect(await client.runningTasks()).toBe(3);
    processes[0]!.exit(1);
    expect(await client.runningTasks()).toBe(0);
    expect(client.current()).toBeUndefined();
  });
});

describe('preload bridge', () => {
  function fakeIpcRenderer() {
    const listeners = new Map<string, Set<(event: { ports: readonly MessagePort[] }, ...args: unknown[]) => void>>();
    const sent: unknown[][] = [];
    const invoked: unknown[][] = [];
    const ipc: IpcRendererLike = {
      on: (channel, listener) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener)),
      removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
      send: (...args) => void sent.push(args),
      invoke: async (...args) => {
        invoked.push(args);
        return args[0] === ENGINE_STATUS ? { state: 'stopping' } : undefined;
      },
    };
    const emit = (channel: string, event: { ports: readonly MessagePort[] }, ...args: unknown[]) => {
      for (const l of listeners.get(channel) ?? []) l(event, ...args);
    };
    return { ipc, sent, invoked, emit, listeners };
  }

  it('exposes exactly the DesktopBridge', () => {
    const { ipc } = fakeIpcRenderer();
    const bridge = createDesktopBridge(
      ipc,
      { version: '1.2.3', platform: 'linux' },
      { postMessage: () => undefined, origin: 'app://ui' },
    );
    expect(Object.keys(bridge).sort()).toEqual([
      'engineStatus',
      'localApi',
      'onEngineStatus',
      'onNavigate',
      'platform',
      'requestEnginePort',
      'restartEngine',
      'setLanguage',
      'settings',
      'team',
      'version',
    ]);
    expect(Object.keys(bridge.settings).sort()).toEqual(['setSecret', 'setTaskSecret', 'status']);
    expect(bridge.version).toBe('1.2.3');
  });

  it('relays the engine port to the window at its own origin, and values (never IPC events) to listeners', async () => {
    const { ipc, sent, invoked, emit, listeners } = fakeIpcRenderer();
    const posted: { message: unknown; origin: string; transfer: MessagePort[] }[] = [];
    const bridge = createDesktopBridge(
      ipc,
      { version: '1', platform: 'linux' },
      { postMessage: (message, origin, transfer) => posted.push({ message, origin, transfer }), origin: 'app://ui' },
    );

    bridge.requestEnginePort();
    expect(sent).toEqual([[REQUEST_ENGINE_PORT]]);
    const { port1 } = new MessageChannel();
    emit(ENGINE_PORT, { ports: [port1 as unknown as MessagePort] });
    emit(ENGINE_PORT, { ports: [] });
    expect(posted).toEqual([{ message: { type: ENGINE_PORT_MESSAGE }, origin: 'app://ui', transfer: [port1] }]);
    port1.close();

    const statuses: unknown[] = [];
    const off = bridge.onEngineStatus((s) => statuses.push(s));
    emit(ENGINE_STATUS_CHANGED, { ports: [] }, { state: 'stopping' });
    off();
    emit(ENGINE_STATUS_CHANGED, { ports: [] }, { state: 'starting', attempt: 2 });
    expect(statuses).toEqual([{ state: 'stopping' }]);
    expect(listeners.get(ENGINE_STATUS_CHANGED)?.size).toBe(0);

    const paths: string[] = [];
    bridge.onNavigate((p) => paths.push(p));
    emit(NAVIGATE, { ports: [] }, '/runs/12?instance=34');
    emit(NAVIGATE, { ports: [] }, { not: 'a path' });
    expect(paths).toEqual(['/runs/12?instance=34']);

    expect(await bridge.engineStatus()).toEqual({ state: 'stopping' });
    expect(await bridge.restartEngine()).toBeUndefined();
    bridge.setLanguage('zh-CN');
    await bridge.settings.status();
    await bridge.settings.setSecret('redis', 'redis://:pw@cache:6379');
    expect(invoked).toEqual([
      [ENGINE_STATUS],
      [RESTART_ENGINE],
      [SECRETS_STATUS],
      [SET_SECRET, 'redis', 'redis://:pw@cache:6379'],
    ]);
    expect(sent.at(-1)).toEqual([SET_LANGUAGE, 'zh-CN']);
  });
});

// The desktop port transport with real MessageChannels (Node's, which like Electron's ports report
// the other end closing) and a scripted shell: which window messages are taken for the engine port,
// which request gets which port, when a port counts as dead, and EngineConnection asking for a new
// port when the engine behind the old one restarts.
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE_PORT_MESSAGE, type DesktopEngineStatus } from '../../../engine/api/desktop-bridge.ts';
import { EngineConnection } from './connection.ts';
import { engineStatusStore } from './desktop-status.ts';
import {
  enginePortOf,
  openPortTransport,
  PortBroker,
  portTransport,
  type PortLike,
  type PortMessageEvent,
  type PortWindow,
} from './port-transport.ts';

const ORIGIN = 'app://ax';

class FakeWindow implements PortWindow {
  readonly location = { origin: ORIGIN };
  private listeners: ((event: PortMessageEvent) => void)[] = [];
  addEventListener(_type: 'message', listener: (event: PortMessageEvent) => void): void {
    this.listeners.push(listener);
  }
  /** what the preload does: window.postMessage({type}, origin, [port]) */
  post(event: Partial<PortMessageEvent>): void {
    const full: PortMessageEvent = {
      data: { type: ENGINE_PORT_MESSAGE },
      origin: ORIGIN,
      source: this,
      ports: [],
      ...event,
    };
    for (const listener of this.listeners) listener(full);
  }
}

const running = (pid: number): DesktopEngineStatus => ({ state: 'running', pid, dataDir: '/data', version: '1.0.0' });
const crash = { code: 1, signal: null, stderrTail: 'boom', at: 1 };

/** A shell: status pushes, and a port per request whose other end it keeps (the engine's side). */
class FakeShell {
  requests = 0;
  engineEnds: MessagePort[] = [];
  autoDeliver = true;
  private statusListeners = new Set<(status: DesktopEngineStatus) => void>();
  constructor(
    readonly win: FakeWindow,
    private status: DesktopEngineStatus,
  ) {}
  requestEnginePort = () => {
    this.requests++;
    if (this.autoDeliver) queueMicrotask(() => this.deliver());
  };
  deliver(): MessagePort {
    const channel = new MessageChannel();
    this.engineEnds.push(channel.port1);
    this.win.post({ ports: [channel.port2 as unknown as PortLike] });
    return channel.port1;
  }
  engineStatus = async () => this.status;
  onEngineStatus = (listener: (status: DesktopEngineStatus) => void) => {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  };
  emit(status: DesktopEngineStatus): void {
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }
}

/** the engine host's side of a port: answers every request with `method:pid` */
function serveEngine(end: MessagePort, pid: number): void {
  end.addEventListener('message', (event) => {
    const request = event.data as { id?: number; method?: string };
    if (request.id !== undefined) end.postMessage({ id: request.id, result: `${request.method}:${pid}` });
  });
  end.start();
}

const openPorts: { close(): void }[] = [];
afterEach(() => {
  for (const port of openPorts.splice(0)) port.close();
});
function channel(): MessageChannel {
  const ch = new MessageChannel();
  openPorts.push(ch.port1, ch.port2);
  return ch;
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('enginePortOf', () => {
  const win = new FakeWindow();
  const port = { close() {} } as PortLike;
  const event = (over: Partial<PortMessageEvent>): PortMessageEvent => ({
    data: { type: ENGINE_PORT_MESSAGE },
    origin: ORIGIN,
    source: win,
    ports: [port],
    ...over,
  });

  it("takes the port of the preload's message to this window", () => {
    expect(enginePortOf(event({}), win)).toBe(port);
  });

  it('refuses a message from another window, another origin, of another type, or without a port', () => {
    expect(enginePortOf(event({ source: {} }), win)).toBeUndefined();
    expect(enginePortOf(event({ source: null }), win)).toBeUndefined();
    expect(enginePortOf(event({ origin: 'https://evil.example' }), win)).toBeUndefined();
    expect(enginePortOf(event({ data: { type: 'something-else' } }), win)).toBeUndefined();
    expect(enginePortOf(event({ data: 'ax:engine-port' }), win)).toBeUndefined();
    expect(enginePortOf(event({ data: null }), win)).toBeUndefined();
    expect(enginePortOf(event({ ports: [] }), win)).toBeUndefined();
  });
});

describe('PortBroker', () => {
  it('asks the shell once per request and hands ports out in request order', async () => {
    const win = new FakeWindow();
    let asked = 0;
    const broker = new PortBroker({ requestEnginePort: () => asked++ }, win);
    const first = broker.request(1_000);
    const second = broker.request(1_000);
    expect(asked).toBe(2);
    const [a, b] = [channel(), channel()];
    win.post({ ports: [a.port2 as unknown as PortLike] });
    win.post({ ports: [b.port2 as unknown as PortLike] });
    expect(await first).toBe(a.port2);
    expect(await second).toBe(b.port2);
  });

  it('fails a request no port answers, and closes a port that arrives with nobody waiting', async () => {
    const win = new FakeWindow();
    const broker = new PortBroker({ requestEnginePort: () => undefined }, win);
    await expect(broker.request(20)).rejects.toThrow(/no engine port within 20 ms/);
    const late = channel();
    let closed = false;
    late.port1.addEventListener('close', () => (closed = true));
    late.port1.start();
    win.post({ ports: [late.port2 as unknown as PortLike] });
    await until(() => closed);
  });

  it('ignores a foreign message that looks like a port delivery', async () => {
    const win = new FakeWindow();
    const broker = new PortBroker({ requestEnginePort: () => undefined }, win);
    const pending = broker.request(1_000);
    const foreign = channel();
    const real = channel();
    win.post({ ports: [foreign.port2 as unknown as PortLike], origin: 'https://evil.example' });
    win.post({ ports: [real.port2 as unknown as PortLike] });
    expect(await pending).toBe(real.port2);
  });
});

describe('portTransport', () => {
  const quietStatus = { subscribe: () => () => undefined };

  it('carries structured messages both ways, including those sent before the handler was set', async () => {
    const { port1: engine, port2: page } = channel();
    const transport = portTransport(page as unknown as PortLike, quietStatus, 7);
    engine.postMessage({ event: { type: 'alert', message: 'early', at: 1 } });
    const got: unknown[] = [];
    const engineGot: unknown[] = [];
    engine.addEventListener('message', (e) => engineGot.push(e.data));
    engine.start();
    transport.onMessage((m) => got.push(m));
    transport.send({ id: 1, method: 'listWorkflows', params: [] });
    await until(() => got.length === 1 && engineGot.length === 1);
    expect(got).toEqual([{ event: { type: 'alert', message: 'early', at: 1 } }]);
    expect(engineGot).toEqual([{ id: 1, method: 'listWorkflows', params: [] }]);
  });

  it('is closed when the other end closes', async () => {
    const { port1: engine, port2: page } = channel();
    const transport = portTransport(page as unknown as PortLike, quietStatus, 7);
    const reasons: string[] = [];
    transport.onClose((r) => reasons.push(r));
    transport.onMessage(() => undefined);
    engine.close();
    await until(() => reasons.length > 0);
    expect(reasons).toEqual(['the desktop app closed the engine port']);
  });

  it('is closed (and its port with it) when the shell reports the engine not running or running as another process', async () => {
    const shell = new FakeShell(new FakeWindow(), running(7));
    const store = engineStatusStore(shell);
    const cases: [DesktopEngineStatus, string][] = [
      [{ state: 'restarting', attempt: 1, retryAt: 5, lastCrash: crash }, 'the engine is restarting'],
      [{ state: 'stopping' }, 'the engine is stopping'],
      [running(8), 'the engine was restarted'],
    ];
    for (const [status, reason] of cases) {
      shell.emit(running(7));
      const { port1: engine, port2: page } = channel();
      let engineSawClose = false;
      engine.addEventListener('close', () => (engineSawClose = true));
      engine.start();
      const transport = portTransport(page as unknown as PortLike, store, 7);
      const reasons: string[] = [];
      transport.onClose((r) => reasons.push(r));
      shell.emit(running(7)); // the same engine again: still good
      expect(reasons).toEqual([]);
      shell.emit(status);
      shell.emit(status);
      expect(reasons).toEqual([reason]);
      await until(() => engineSawClose);
    }
  });

  it('reports a close by the page once, and sends nothing after it', async () => {
    const { port1: engine, port2: page } = channel();
    const transport = portTransport(page as unknown as PortLike, quietStatus, 7);
    const reasons: string[] = [];
    transport.onClose((r) => reasons.push(r));
    transport.close();
    transport.close();
    expect(reasons).toEqual(['closed by the page']);
    const engineGot: unknown[] = [];
    engine.addEventListener('message', (e) => engineGot.push(e.data));
    engine.start();
    transport.send({ id: 2 });
    await new Promise((r) => setTimeout(r, 20));
    expect(engineGot).toEqual([]);
  });
});

describe('engineStatusStore', () => {
  it('keeps a pushed status over an older first answer', async () => {
    let answer: (s: DesktopEngineStatus) => void = () => undefined;
    let push: (s: DesktopEngineStatus) => void = () => undefined;
    const store = engineStatusStore({
      engineStatus: () => new Promise((r) => (answer = r)),
      onEngineStatus: (l) => ((push = l), () => undefined),
    });
    expect(store.current).toBeUndefined();
    push(running(3));
    answer({ state: 'starting', attempt: 1 });
    await new Promise((r) => setTimeout(r, 0));
    expect(store.current).toEqual(running(3));
  });
});

describe('openPortTransport', () => {
  it('asks for a port only once the engine runs', async () => {
    const win = new FakeWindow();
    const shell = new FakeShell(win, { state: 'starting', attempt: 1 });
    const store = engineStatusStore(shell);
    const opening = openPortTransport({ broker: new PortBroker(shell, win), status: store });
    await new Promise((r) => setTimeout(r, 20));
    expect(shell.requests).toBe(0);
    shell.emit(running(5));
    const transport = await opening;
    expect(shell.requests).toBe(1);
    transport.close();
    for (const end of shell.engineEnds) end.close();
  });

  it('gives up a port that arrives after the engine stopped again', async () => {
    const win = new FakeWindow();
    const shell = new FakeShell(win, running(5));
    shell.autoDeliver = false;
    const store = engineStatusStore(shell);
    await store.whenRunning();
    const opening = openPortTransport({ broker: new PortBroker(shell, win), status: store });
    await until(() => shell.requests === 1);
    shell.emit({ state: 'restarting', attempt: 1, retryAt: 5, lastCrash: crash });
    const engine = shell.deliver();
    let engineSawClose = false;
    engine.addEventListener('close', () => (engineSawClose = true));
    engine.start();
    await expect(opening).rejects.toThrow(/stopped while its port was being opened/);
    await until(() => engineSawClose);
  });
});

describe('EngineConnection over engine ports', () => {
  it('asks for a new port when the engine restarts, and calls reach the new engine', async () => {
    const win = new FakeWindow();
    const shell = new FakeShell(win, running(1));
    const store = engineStatusStore(shell);
    const broker = new PortBroker(shell, win);
    let pid = 1;
    shell.requestEnginePort = () => {
      shell.requests++;
      queueMicrotask(() => serveEngine(shell.deliver(), pid));
    };
    const connection = new EngineConnection({
      connect: () => openPortTransport({ broker, status: store }),
      checkSession: async () => true,
      backoffMs: [10],
    });
    connection.start();
    expect(await connection.api.listWorkflows()).toBe('listWorkflows:1');
    expect(shell.requests).toBe(1);

    shell.emit({ state: 'restarting', attempt: 1, retryAt: 5, lastCrash: crash });
    await until(() => connection.status === 'reconnecting');
    const during = connection.api.listWorkflows();
    await new Promise((r) => setTimeout(r, 50));
    expect(shell.requests).toBe(1); // no port is asked of an engine that is not running
    pid = 2;
    shell.emit(running(2));
    expect(await during).toBe('listWorkflows:2');
    expect(shell.requests).toBe(2);

    // the shell closes the port without a status change (a port the broker replaced)
    (shell.engineEnds.at(-1) as MessagePort).close();
    await until(() => shell.requests === 3);
    expect(await connection.api.listWorkflows()).toBe('listWorkflows:2');
    connection.stop();
    for (const end of shell.engineEnds) end.close();
  });
});

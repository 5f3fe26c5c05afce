// Connects clients to the engine host: for each request a MessageChannelMain pair, one port to the
// host with {type: 'connect'}, the other to the requester, so window and engine talk directly and
// the main process relays nothing. A request made while no host runs (between a crash and its
// restart, or after giving up) waits for the next host. The main process's own client (the
// tray's) is one more such pair, whose main-side port is closed when its host dies.
import type { EngineProcess, ChannelMain, ContentsLike, PortMain } from './shell-surface.ts';
import { ENGINE_PORT } from './ipc-channels.ts';

/** The supervisor as the broker needs it. */
export interface HostSource {
  process(): EngineProcess | undefined;
  onProcess(listener: (proc: EngineProcess) => void): () => void;
  onProcessGone(listener: (proc: EngineProcess) => void): () => void;
}

export class PortBroker {
  private readonly waiting = new Map<number, ContentsLike>();
  /** the main-side ports of live hosts, closed when their host is gone */
  private readonly held = new Map<EngineProcess, Set<PortMain>>();
  private readonly mainClients = new Set<(port: PortMain) => void>();

  constructor(
    private readonly hosts: HostSource,
    private readonly createChannel: () => ChannelMain,
  ) {
    hosts.onProcess((proc) => {
      for (const contents of this.waiting.values()) this.handTo(proc, contents);
      this.waiting.clear();
      for (const want of this.mainClients) want(this.connect(proc));
    });
    hosts.onProcessGone((proc) => {
      for (const port of this.held.get(proc) ?? []) port.close();
      this.held.delete(proc);
    });
  }

  /** A window asks for an engine port: now if a host runs, else when the next one starts. */
  request(contents: ContentsLike): void {
    const proc = this.hosts.process();
    if (proc) this.handTo(proc, contents);
    // One waiting request per window is enough: it gets one fresh port.
    else this.waiting.set(contents.id, contents);
  }

  /**
   * The main process's own client: `want` gets a port to each host as it starts (the current one
   * at once); the port closes when that host dies.
   */
  connectMain(want: (port: PortMain) => void): () => void {
    this.mainClients.add(want);
    const proc = this.hosts.process();
    if (proc) want(this.connect(proc));
    return () => this.mainClients.delete(want);
  }

  private handTo(proc: EngineProcess, contents: ContentsLike): void {
    if (contents.isDestroyed()) return;
    const { port1, port2 } = this.createChannel();
    proc.postMessage({ type: 'connect' }, [port1]);
    contents.postMessage(ENGINE_PORT, null, [port2]);
  }

  private connect(proc: EngineProcess): PortMain {
    const { port1, port2 } = this.createChannel();
    proc.postMessage({ type: 'connect' }, [port1]);
    const ports = this.held.get(proc) ?? new Set<PortMain>();
    ports.add(port2);
    this.held.set(proc, ports);
    port2.on('close', () => ports.delete(port2));
    return port2;
  }
}

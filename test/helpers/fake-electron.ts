// A small fake of the Electron main-process objects the shell's modules use (electron/
// shell-surface.ts and the interfaces beside each module), so those modules run under plain
// Node. Only what the shell touches; each fake records what it was asked so tests can assert it.
import type { ChannelMain, ContentsLike, EngineProcess, IpcSender, PortMain } from '../../electron/shell-surface.ts';
import type { ParentMessage } from '../../engine/api/host-protocol.ts';

type Listener = (...args: never[]) => unknown;

class Emitter {
  private readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  emit(event: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) (l as (...a: unknown[]) => unknown)(...args);
  }
  count(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}

/** One end of a fake MessageChannelMain pair: messages reach the other end once it is started. */
export class FakePort extends Emitter implements PortMain {
  other: FakePort | undefined;
  closed = false;
  started = false;
  private queue: unknown[] = [];

  start(): void {
    this.started = true;
    for (const data of this.queue.splice(0)) this.emit('message', { data });
  }
  postMessage(message: unknown): void {
    const other = this.other;
    if (this.closed || !other || other.closed) return;
    // Structured clone, as a real port does: no shared objects between the ends.
    const data = structuredClone(message);
    queueMicrotask(() => (other.started ? other.emit('message', { data }) : other.queue.push(data)));
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
    const other = this.other;
    if (other && !other.closed) {
      other.closed = true;
      other.emit('close');
    }
  }
}

export function fakeChannel(): ChannelMain & { port1: FakePort; port2: FakePort } {
  const port1 = new FakePort();
  const port2 = new FakePort();
  port1.other = port2;
  port2.other = port1;
  return { port1, port2 };
}

/** A window's web contents: records ipc sent to it, and holds the guards installed on it. */
export class FakeContents extends Emitter implements ContentsLike {
  private static nextId = 1;
  readonly id = FakeContents.nextId++;
  destroyed = false;
  readonly posted: { channel: string; message: unknown; transfer: PortMain[] }[] = [];
  readonly sent: { channel: string; args: unknown[] }[] = [];
  openHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;

  isDestroyed(): boolean {
    return this.destroyed;
  }
  postMessage(channel: string, message: unknown, transfer: PortMain[] = []): void {
    this.posted.push({ channel, message, transfer });
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.openHandler = handler;
  }
  /** fires a navigation-like event; returns whether it was prevented */
  navigate(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', url = ''): boolean {
    let prevented = false;
    this.emit(event, { url, preventDefault: () => (prevented = true) });
    return prevented;
  }
}

/** The IPC event a frame's message arrives with. */
export function ipcEvent(
  sender: FakeContents,
  frameUrl: string | null,
  options: { subframe?: boolean } = {},
): IpcSender {
  return { sender, senderFrame: frameUrl === null ? null : { url: frameUrl, parent: options.subframe ? {} : null } };
}

export class FakeIpcMain {
  readonly listeners = new Map<string, (event: IpcSender, ...args: unknown[]) => void>();
  readonly handlers = new Map<string, (event: IpcSender, ...args: unknown[]) => unknown>();

  on(channel: string, listener: (event: IpcSender, ...args: unknown[]) => void): this {
    this.listeners.set(channel, listener);
    return this;
  }
  handle(channel: string, listener: (event: IpcSender, ...args: unknown[]) => unknown): void {
    this.handlers.set(channel, listener);
  }
  /** a renderer's ipcRenderer.send */
  send(channel: string, event: IpcSender, ...args: unknown[]): void {
    const listener = this.listeners.get(channel);
    if (!listener) throw new Error(`no ipcMain.on for ${channel}`);
    listener(event, ...args);
  }
  /** a renderer's ipcRenderer.invoke: rejects as Electron does when the handler throws */
  async invoke(channel: string, event: IpcSender, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`no ipcMain.handle for ${channel}`);
    return handler(event, ...args);
  }
}

/** Session: keeps the permission handlers the shell installs. */
export class FakeSession {
  requestHandler:
    | ((
        contents: unknown,
        permission: string,
        callback: (granted: boolean) => void,
        details: { requestingUrl?: string },
      ) => void)
    | undefined;
  checkHandler: ((contents: unknown, permission: string, requestingOrigin: string) => boolean) | undefined;

  setPermissionRequestHandler(handler: NonNullable<FakeSession['requestHandler']>): void {
    this.requestHandler = handler;
  }
  setPermissionCheckHandler(handler: NonNullable<FakeSession['checkHandler']>): void {
    this.checkHandler = handler;
  }
  /** what a page's permission request gets */
  request(permission: string, requestingUrl: string): boolean {
    let granted: boolean | undefined;
    this.requestHandler?.(undefined, permission, (g) => (granted = g), { requestingUrl });
    if (granted === undefined) throw new Error('the permission request was never answered');
    return granted;
  }
}

/** BrowserWindow: visibility and the close event. */
export class FakeWindow extends Emitter {
  destroyed = false;
  visible = true;
  minimized = false;
  focused = 0;

  isDestroyed(): boolean {
    return this.destroyed;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isVisible(): boolean {
    return this.visible;
  }
  hide(): void {
    this.visible = false;
  }
  show(): void {
    this.visible = true;
  }
  restore(): void {
    this.minimized = false;
  }
  focus(): void {
    this.focused++;
  }
  /** the person closes the window; returns whether the close was prevented */
  close(): boolean {
    let prevented = false;
    this.emit('close', { preventDefault: () => (prevented = true) });
    if (!prevented) this.destroyed = true;
    return prevented;
  }
}

/** An engine host process that records what it is sent (for the broker; the supervisor's tests use real processes). */
export class FakeEngineProcess extends Emitter implements EngineProcess {
  private static nextPid = 1000;
  readonly pid = FakeEngineProcess.nextPid++;
  readonly received: { message: ParentMessage; transfer: PortMain[] }[] = [];
  killed = false;

  onMessage(listener: (message: unknown) => void): void {
    this.on('message', listener);
  }
  onExit(listener: (exit: { code: number | null; signal: string | null }) => void): void {
    this.on('exit', listener);
  }
  onStderr(listener: (text: string) => void): void {
    this.on('stderr', listener);
  }
  postMessage(message: ParentMessage, transfer: PortMain[] = []): void {
    this.received.push({ message, transfer });
  }
  kill(): void {
    this.killed = true;
    this.exit(null, 'SIGTERM');
  }
  exit(code: number | null, signal: string | null = null): void {
    this.emit('exit', { code, signal });
  }
}

/** powerMonitor: the test says when the machine suspends or wakes. */
export class FakePowerMonitor extends Emitter {}

/**
 * safeStorage: "encrypts" by a reversible scramble with a key (so the file never holds the plain
 * text and a changed key cannot read it back), on the backend given.
 */
export class FakeSafeStorage {
  available = true;
  backend = 'gnome_libsecret';
  key = 0x5a;
  encryptString(plainText: string): Buffer {
    if (!this.available)
      throw new Error(
        'Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.',
      );
    return Buffer.concat([
      Buffer.from('v11'),
      Buffer.from([this.key]),
      Buffer.from(plainText, 'utf8').map((b) => b ^ this.key),
    ]);
  }
  decryptString(encrypted: Buffer): string {
    if (encrypted.subarray(0, 3).toString() !== 'v11' || encrypted[3] !== this.key)
      throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    return Buffer.from(encrypted.subarray(4).map((b) => b ^ this.key)).toString('utf8');
  }
  isEncryptionAvailable(): boolean {
    return this.available;
  }
  getSelectedStorageBackend(): string {
    return this.backend;
  }
}

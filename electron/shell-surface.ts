// The few members of Electron's main-process API the shell's modules use, described here so that
// each module takes them as arguments and is tested under plain Node with a fake
// (test/helpers/fake-electron.ts). main.ts passes the real objects; tsc checks they fit.
import type { ParentMessage } from '../engine/api/host-protocol.ts';

/** MessagePortMain: one end of a MessageChannelMain pair. */
export interface PortMain {
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
  postMessage(message: unknown): void;
  close(): void;
}

export interface ChannelMain {
  port1: PortMain;
  port2: PortMain;
}

/** A window's web contents, as the broker and the IPC handlers see it. */
export interface ContentsLike {
  readonly id: number;
  isDestroyed(): boolean;
  /** ipc to the renderer, with ports to transfer */
  postMessage(channel: string, message: unknown, transfer?: PortMain[]): void;
  send(channel: string, ...args: unknown[]): void;
}

/** What an ipcMain event says about who sent it. */
export interface IpcSender {
  sender: ContentsLike;
  /** null when the frame navigated away or was destroyed before the message was handled */
  senderFrame: { url: string; parent: unknown } | null;
}

/** The engine host process: an Electron UtilityProcess, or a Node child under test. */
export interface EngineProcess {
  readonly pid: number | undefined;
  onMessage(listener: (message: unknown) => void): void;
  /** once, when the process has ended; code null when a signal ended it */
  onExit(listener: (exit: { code: number | null; signal: string | null }) => void): void;
  onStderr(listener: (text: string) => void): void;
  postMessage(message: ParentMessage, transfer?: PortMain[]): void;
  kill(): void;
}

/** Starts one engine host process. */
export type EngineLauncher = () => EngineProcess;

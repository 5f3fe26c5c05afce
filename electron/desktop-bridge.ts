// window.axDesktop, built from the preload's ipcRenderer: exactly the DesktopBridge of
// engine/api/desktop-bridge.ts and nothing more. The UI's listeners never see an IPC event (it
// would hand the page `sender`), only the values; the engine port is re-posted to the window,
// to our own origin only, since ports cannot cross contextBridge.
import {
  type DesktopBridge,
  type DesktopEngineStatus,
  type DesktopLanguage,
  type DesktopLocalApiStatus,
  type DesktopSecretsStatus,
  type DesktopTeamStatus,
  ENGINE_PORT_MESSAGE,
} from '../engine/api/desktop-bridge.ts';
import * as IPC from './ipc-channels.ts';

type IpcListener = (event: { ports: readonly MessagePort[] }, ...args: unknown[]) => void;

/** The members of Electron's ipcRenderer used here. */
export interface IpcRendererLike {
  on(channel: string, listener: IpcListener): unknown;
  removeListener(channel: string, listener: IpcListener): unknown;
  send(channel: string, ...args: unknown[]): void;
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
}

/** Where the engine port goes: the page's window, at its own origin. */
export interface PortTarget {
  postMessage(message: unknown, targetOrigin: string, transfer: MessagePort[]): void;
  readonly origin: string;
}

export function createDesktopBridge(
  ipc: IpcRendererLike,
  info: { version: string; platform: string },
  target: PortTarget,
): DesktopBridge {
  ipc.on(IPC.ENGINE_PORT, (event) => {
    const port = event.ports[0];
    if (port) target.postMessage({ type: ENGINE_PORT_MESSAGE }, target.origin, [port]);
  });

  const listen = <T>(channel: string, listener: (value: T) => void) => {
    const relay: IpcListener = (_event, value) => listener(value as T);
    ipc.on(channel, relay);
    return () => void ipc.removeListener(channel, relay);
  };

  return {
    version: info.version,
    platform: info.platform,
    requestEnginePort: () => ipc.send(IPC.REQUEST_ENGINE_PORT),
    engineStatus: () => ipc.invoke(IPC.ENGINE_STATUS) as Promise<DesktopEngineStatus>,
    onEngineStatus: (listener) => listen<DesktopEngineStatus>(IPC.ENGINE_STATUS_CHANGED, listener),
    restartEngine: async () => {
      await ipc.invoke(IPC.RESTART_ENGINE);
    },
    setLanguage: (language: DesktopLanguage) => ipc.send(IPC.SET_LANGUAGE, language),
    onNavigate: (listener) =>
      listen<string>(IPC.NAVIGATE, (path) => {
        if (typeof path === 'string') listener(path);
      }),
    settings: {
      status: () => ipc.invoke(IPC.SECRETS_STATUS) as Promise<DesktopSecretsStatus>,
      setSecret: (key, value) => ipc.invoke(IPC.SET_SECRET, key, value) as Promise<DesktopSecretsStatus>,
      setTaskSecret: (name, value) => ipc.invoke(IPC.SET_TASK_SECRET, name, value) as Promise<DesktopSecretsStatus>,
    },
    team: {
      status: () => ipc.invoke(IPC.TEAM_STATUS) as Promise<DesktopTeamStatus>,
      join: (labels, options) => ipc.invoke(IPC.TEAM_JOIN, labels, options) as Promise<DesktopTeamStatus>,
      leave: () => ipc.invoke(IPC.TEAM_LEAVE) as Promise<DesktopTeamStatus>,
      onStatus: (listener) => listen<DesktopTeamStatus>(IPC.TEAM_STATUS_CHANGED, listener),
    },
    localApi: {
      status: () => ipc.invoke(IPC.LOCAL_API_STATUS) as Promise<DesktopLocalApiStatus>,
      set: (enabled) => ipc.invoke(IPC.SET_LOCAL_API, enabled) as Promise<DesktopLocalApiStatus>,
    },
  };
}

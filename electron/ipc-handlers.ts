// The main process's side of window.axDesktop: one handler per IPC channel, each of which first
// checks who is asking. Only the main window's own top frame, showing our app:// page, is
// answered; anything else (another window, a subframe, a page navigated elsewhere) is ignored,
// and an invoke from it is refused.
import {
  DESKTOP_LANGUAGES,
  DESKTOP_SECRET_KEYS,
  type DesktopEngineStatus,
  type DesktopLanguage,
  type DesktopLocalApiStatus,
  type DesktopSecretKey,
  type DesktopSecretsStatus,
  type DesktopTeamStatus,
} from '../engine/api/desktop-bridge.ts';
import { isAppUrl } from './app-origin.ts';
import * as IPC from './ipc-channels.ts';
import type { ContentsLike, IpcSender } from './shell-surface.ts';

/** The members of ipcMain used here. */
export interface IpcMainLike {
  on(channel: string, listener: (event: IpcSender, ...args: unknown[]) => void): unknown;
  handle(channel: string, listener: (event: IpcSender, ...args: unknown[]) => unknown): void;
}

export interface ShellServices {
  /** the main window's web contents, while it exists */
  mainContents(): ContentsLike | undefined;
  requestEnginePort(contents: ContentsLike): void;
  engineStatus(): DesktopEngineStatus;
  onEngineStatus(listener: (status: DesktopEngineStatus) => void): () => void;
  restartEngine(): void;
  setLanguage(language: DesktopLanguage): void;
  /** the desktop app's secrets (secret-store.ts) */
  secrets: {
    status(): DesktopSecretsStatus;
    set(key: DesktopSecretKey, value: string | null): DesktopSecretsStatus;
    /** a task secret; the running engine host is told at once */
    setTask(name: string, value: string | null): DesktopSecretsStatus;
  };
  /** the local API setting (main.ts: remembered in shell-state.json; a change restarts the engine) */
  localApi?: {
    status(): DesktopLocalApiStatus;
    set(enabled: boolean): Promise<DesktopLocalApiStatus>;
  };
  /** this laptop as a temporary team worker (team-membership.ts, through main.ts) */
  team?: {
    status(): DesktopTeamStatus;
    join(labels?: string[], acceptUnlabelled?: boolean): void;
    leave(): void;
    onChange(listener: () => void): () => void;
  };
}

/** At most this many labels of at most 64 characters each: what a person types, not a payload. */
function labelsArg(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > 32 || !value.every((l) => typeof l === 'string' && l.length <= 64)) {
    throw new Error('labels are a list of at most 32 names of at most 64 characters');
  }
  return value as string[];
}

/** Join's options: nothing, or whether unlabelled tasks are taken too. */
function acceptArg(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  const accept = typeof value === 'object' ? (value as { acceptUnlabelled?: unknown }).acceptUnlabelled : value;
  if (accept !== undefined && typeof accept !== 'boolean')
    throw new Error('join options are { acceptUnlabelled: true or false }');
  return accept;
}

/** True when the message comes from the main window's top frame showing our UI. */
export function trustedSender(event: IpcSender, main: ContentsLike | undefined): boolean {
  const frame = event.senderFrame;
  if (!main || main.isDestroyed() || event.sender.id !== main.id) return false;
  return frame !== null && frame.parent === null && isAppUrl(frame.url);
}

export function registerIpcHandlers(ipcMain: IpcMainLike, services: ShellServices): void {
  const trusted = (event: IpcSender) => trustedSender(event, services.mainContents());
  const refuse = () => {
    throw new Error('refused: not the AX window');
  };

  ipcMain.on(IPC.REQUEST_ENGINE_PORT, (event) => {
    if (trusted(event)) services.requestEnginePort(event.sender);
  });
  ipcMain.handle(IPC.ENGINE_STATUS, (event) => (trusted(event) ? services.engineStatus() : refuse()));
  ipcMain.handle(IPC.RESTART_ENGINE, (event) => {
    if (!trusted(event)) return refuse();
    services.restartEngine();
  });
  ipcMain.on(IPC.SET_LANGUAGE, (event, language) => {
    if (trusted(event) && (DESKTOP_LANGUAGES as readonly unknown[]).includes(language))
      services.setLanguage(language as DesktopLanguage);
  });
  ipcMain.handle(IPC.SECRETS_STATUS, (event) => (trusted(event) ? services.secrets.status() : refuse()));
  ipcMain.handle(IPC.SET_SECRET, (event, key, value) => {
    if (!trusted(event)) return refuse();
    if (!DESKTOP_SECRET_KEYS.includes(key as DesktopSecretKey)) throw new Error(`unknown secret "${String(key)}"`);
    if (value !== null && typeof value !== 'string') throw new Error('a secret is a string, or null to forget it');
    return services.secrets.set(key as DesktopSecretKey, value);
  });
  ipcMain.handle(IPC.SET_TASK_SECRET, (event, name, value) => {
    if (!trusted(event)) return refuse();
    if (typeof name !== 'string') throw new Error('a secret name is a string');
    if (value !== null && typeof value !== 'string') throw new Error('a secret is a string, or null to forget it');
    return services.secrets.setTask(name, value);
  });
  const localApi = services.localApi;
  if (localApi) {
    ipcMain.handle(IPC.LOCAL_API_STATUS, (event) => (trusted(event) ? localApi.status() : refuse()));
    ipcMain.handle(IPC.SET_LOCAL_API, (event, enabled) => {
      if (!trusted(event)) return refuse();
      if (typeof enabled !== 'boolean') throw new Error('the local API is turned on or off: true or false');
      return localApi.set(enabled);
    });
  }
  const team = services.team;
  if (team) {
    ipcMain.handle(IPC.TEAM_STATUS, (event) => (trusted(event) ? team.status() : refuse()));
    ipcMain.handle(IPC.TEAM_JOIN, (event, labels, options) => {
      if (!trusted(event)) return refuse();
      team.join(labelsArg(labels), acceptArg(options));
      return team.status();
    });
    ipcMain.handle(IPC.TEAM_LEAVE, (event) => {
      if (!trusted(event)) return refuse();
      team.leave();
      return team.status();
    });
    team.onChange(() => {
      const main = services.mainContents();
      if (main && !main.isDestroyed()) main.send(IPC.TEAM_STATUS_CHANGED, team.status());
    });
  }
  // Status changes go to the main window only (no request to check: the main process pushes).
  services.onEngineStatus((status) => {
    const main = services.mainContents();
    if (main && !main.isDestroyed()) main.send(IPC.ENGINE_STATUS_CHANGED, status);
  });
}

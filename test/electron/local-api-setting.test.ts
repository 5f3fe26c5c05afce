// Settings › Local API (electron/local-api-setting.ts): off by default; turned on it is the
// host's --local-api from its next start, remembered across launches, and the change restarts
// the host once (not for a setting that changes nothing); started with --local-api it is on
// whatever the setting says. The window's IPC for it answers only the AX window.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerIpcHandlers } from '../../electron/ipc-handlers.ts';
import { LOCAL_API_STATUS, SET_LOCAL_API } from '../../electron/ipc-channels.ts';
import { LOCAL_API_DRAIN_MS, LocalApiSetting } from '../../electron/local-api-setting.ts';
import { ShellStateFile } from '../../electron/shell-state.ts';
import type { DesktopEngineStatus } from '../../engine/api/desktop-bridge.ts';
import { FakeContents, FakeIpcMain, ipcEvent } from '../helpers/fake-electron.ts';
import { tempDir } from '../helpers/files.ts';

function fakeHost(status: DesktopEngineStatus) {
  const relaunches: number[] = [];
  return { relaunches, host: { status: () => status, relaunch: async (ms: number) => void relaunches.push(ms) } };
}

const running: DesktopEngineStatus = {
  state: 'running',
  pid: 42,
  dataDir: '/data/ax',
  version: '0.1.0',
  apiPort: 51234,
};

describe('the local API setting', () => {
  it('off by default; on, it is --local-api from the next start, remembered, and restarts the host once', async () => {
    const dir = tempDir('ax-local-api-');
    const { relaunches, host } = fakeHost(running);
    const setting = new LocalApiSetting(new ShellStateFile(dir), [], () => host);
    expect(setting.args()).toEqual([]);
    expect(setting.status()).toEqual({ enabled: false, forcedBySwitch: false, port: 51234, dataDir: '/data/ax' });

    expect(await setting.set(true)).toMatchObject({ enabled: true });
    expect(setting.args()).toEqual(['--local-api']);
    expect(relaunches).toEqual([LOCAL_API_DRAIN_MS]);
    // Asked again, nothing changes: no restart.
    await setting.set(true);
    expect(relaunches).toHaveLength(1);
    // The next launch of the app remembers it.
    expect(new LocalApiSetting(new ShellStateFile(dir), [], () => host).args()).toEqual(['--local-api']);
    await setting.set(false);
    expect(setting.args()).toEqual([]);
    expect(relaunches).toHaveLength(2);
  });

  it('started with --local-api=PORT it is on regardless, and the setting restarts nothing', async () => {
    const { relaunches, host } = fakeHost({ state: 'starting', attempt: 1 });
    const setting = new LocalApiSetting(new ShellStateFile(tempDir('ax-local-api-')), ['--local-api=7070'], () => host);
    expect(setting.args()).toEqual(['--local-api=7070']);
    await setting.set(true);
    await setting.set(false);
    expect(setting.args()).toEqual(['--local-api=7070']);
    expect(relaunches).toEqual([]);
    // No port while the engine is not running.
    expect(setting.status()).toEqual({ enabled: false, forcedBySwitch: true });
  });

  it('its IPC answers the AX window only, and takes only true or false', async () => {
    const ipc = new FakeIpcMain();
    const main = new FakeContents();
    const ok = ipcEvent(main, 'app://ui/index.html#/settings');
    const stranger = ipcEvent(new FakeContents(), 'app://ui/index.html');
    const { host } = fakeHost(running);
    const setting = new LocalApiSetting(
      new ShellStateFile(path.join(tempDir('ax-local-api-'), 'state')),
      [],
      () => host,
    );
    registerIpcHandlers(ipc, {
      mainContents: () => main,
      requestEnginePort: () => undefined,
      engineStatus: () => running,
      onEngineStatus: () => () => undefined,
      restartEngine: () => undefined,
      setLanguage: () => undefined,
      secrets: { status: () => ({}) as never, set: () => ({}) as never, setTask: () => ({}) as never },
      localApi: { status: () => setting.status(), set: (enabled) => setting.set(enabled) },
    });
    await expect(ipc.invoke(LOCAL_API_STATUS, stranger)).rejects.toThrow('refused: not the AX window');
    await expect(ipc.invoke(SET_LOCAL_API, stranger, true)).rejects.toThrow('refused');
    await expect(ipc.invoke(SET_LOCAL_API, ok, 'yes')).rejects.toThrow('true or false');
    expect(await ipc.invoke(SET_LOCAL_API, ok, true)).toMatchObject({ enabled: true, port: 51234 });
    expect(await ipc.invoke(LOCAL_API_STATUS, ok)).toMatchObject({ enabled: true });
  });
});

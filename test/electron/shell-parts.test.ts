// The small parts of the shell: where the bundle finds its files, the host's arguments from the
// app's command line, the utility launcher (on a fake utilityProcess), a launch that cannot start,
// the remembered state file, and start at login.
import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { appPaths, desktopDataDir, hostOptionsFrom } from '../../electron/app-paths.ts';
import { EngineSupervisor } from '../../electron/engine-supervisor.ts';
import { StartAtLogin } from '../../electron/login-item.ts';
import { ShellStateFile } from '../../electron/shell-state.ts';
import { SHELL_TEXTS } from '../../electron/shell-texts.ts';
import { trayMenu } from '../../electron/tray-menu.ts';
import { type UtilityForker, utilityLauncher } from '../../electron/utility-launcher.ts';
import { tempDir } from '../helpers/files.ts';

describe('app paths and host options', () => {
  it('finds the preload beside the bundle, the UI and the host in dist', () => {
    const saved = process.env.AX_UI_DIR;
    delete process.env.AX_UI_DIR;
    try {
      expect(appPaths('/app/dist/electron')).toEqual({
        preload: '/app/dist/electron/preload.cjs',
        uiDir: '/app/dist/ui',
        engineHost: '/app/dist/engine-host.mjs',
      });
    } finally {
      if (saved !== undefined) process.env.AX_UI_DIR = saved;
    }
  });

  it('passes --data-dir=DIR and --local-api[=PORT] through to the host, and nothing else', () => {
    const userData = path.join('/home/u/.config', 'AX Scheduler');
    const own = path.join(userData, 'data');
    const from = (switches: Record<string, string>) =>
      hostOptionsFrom(
        (name) => switches[name] ?? '',
        (name) => name in switches,
        userData,
        {},
      );
    expect(from({})).toEqual({ dataDir: own, args: [] });
    expect(from({ 'data-dir': 'rel/dir' })).toEqual({ dataDir: path.resolve('rel/dir'), args: [] });
    expect(from({ 'local-api': '' })).toEqual({ dataDir: own, args: ['--local-api'] });
    expect(from({ 'local-api': '8123', 'no-sandbox': '' })).toEqual({ dataDir: own, args: ['--local-api=8123'] });
  });

  it("keeps the engine's data under userData, not the CLI's default; --data-dir, then AX_DATA_DIR, override it", () => {
    const userData = tempDir('ax-user-data-');
    const none = () => '';
    expect(desktopDataDir(userData, none, {})).toBe(path.join(userData, 'data'));
    expect(desktopDataDir(userData, none, { AX_DATA_DIR: '' })).toBe(path.join(userData, 'data'));
    expect(desktopDataDir(userData, none, { AX_DATA_DIR: 'env/dir' })).toBe(path.resolve('env/dir'));
    expect(
      desktopDataDir(userData, (name) => (name === 'data-dir' ? '/flag/dir' : ''), { AX_DATA_DIR: '/env/dir' }),
    ).toBe(path.resolve('/flag/dir'));
  });

  it('starts the host on <userData>/data, where the CLI finds the same layout (ax.db, engine.lock)', () => {
    const userData = tempDir('ax-user-data-');
    const entry = path.join(userData, 'engine-host.mjs');
    fs.writeFileSync(entry, '');
    const forked: string[][] = [];
    const forker: UtilityForker = {
      fork(_modulePath, args) {
        forked.push(args);
        return Object.assign(new EventEmitter(), {
          pid: 1,
          stderr: null,
          postMessage: () => undefined,
          kill: () => true,
        });
      },
    };
    const host = hostOptionsFrom(
      () => '',
      () => false,
      userData,
      {},
    );
    utilityLauncher(forker, { entry, ...host })();
    expect(forked).toEqual([['--data-dir', path.join(userData, 'data')]]);
  });

  it("computes the host's environment at each start (the desktop's secrets are decrypted then)", () => {
    const dir = tempDir('ax-launcher-env-');
    const entry = path.join(dir, 'engine-host.mjs');
    fs.writeFileSync(entry, '');
    const envs: NodeJS.ProcessEnv[] = [];
    const forker: UtilityForker = {
      fork(_modulePath, _args, options) {
        envs.push(options.env);
        return Object.assign(new EventEmitter(), {
          pid: 1,
          stderr: null,
          postMessage: () => undefined,
          kill: () => true,
        });
      },
    };
    let secret = 'first';
    const launch = utilityLauncher(forker, { entry, env: () => ({ PATH: '/bin', AX_DESKTOP_SECRETS: secret }) });
    launch();
    secret = 'second';
    launch();
    expect(envs.map((e) => e.AX_DESKTOP_SECRETS)).toEqual(['first', 'second']);
  });
});

describe('utility launcher', () => {
  it('forks the host with its arguments, piped stderr, and presents it as an EngineProcess', () => {
    const dir = tempDir('ax-launcher-');
    const entry = path.join(dir, 'engine-host.mjs');
    fs.writeFileSync(entry, '');
    const forks: { modulePath: string; args: string[]; stdio: string[] }[] = [];
    const child = Object.assign(new EventEmitter(), {
      pid: 42,
      stderr: new PassThrough(),
      posted: [] as unknown[],
      killed: 0,
    });
    const forker: UtilityForker = {
      fork(modulePath, args, options) {
        forks.push({ modulePath, args, stdio: options.stdio });
        return Object.assign(child, {
          postMessage: (m: unknown) => void child.posted.push(m),
          kill: () => (child.killed++, true),
        });
      },
    };
    const proc = utilityLauncher(forker, { entry, dataDir: '/data', args: ['--local-api'] })();
    expect(forks).toEqual([
      { modulePath: entry, args: ['--data-dir', '/data', '--local-api'], stdio: ['ignore', 'inherit', 'pipe'] },
    ]);
    expect(proc.pid).toBe(42);
    const seen: string[] = [];
    const exits: unknown[] = [];
    proc.onStderr((t) => seen.push(t));
    proc.onExit((e) => exits.push(e));
    child.stderr.write('boom\n');
    child.emit('exit', 9);
    proc.postMessage({ type: 'stop', drainTimeoutMs: 1 });
    proc.kill();
    expect(seen).toEqual(['boom\n']);
    expect(exits).toEqual([{ code: 9, signal: null }]);
    expect(child.posted).toEqual([{ type: 'stop', drainTimeoutMs: 1 }]);
    expect(child.killed).toBe(1);
  });

  it('a host bundle that is missing makes the supervisor say failed, with the fix, and not retry', () => {
    const launch = utilityLauncher(
      {
        fork: () => {
          throw new Error('never forked');
        },
      },
      { entry: '/nowhere/engine-host.mjs' },
    );
    const supervisor = new EngineSupervisor({ launch });
    supervisor.start();
    expect(supervisor.status()).toEqual({
      state: 'failed',
      code: 'internal',
      message: 'the engine host is not built (/nowhere/engine-host.mjs is missing): run "npm run build"',
    });
    expect(supervisor.process()).toBeUndefined();
  });
});

describe('shell state file', () => {
  it('starts empty when missing or unreadable, and remembers what it is told', () => {
    const dir = tempDir('ax-shell-state-');
    expect(new ShellStateFile(dir).get()).toEqual({});
    fs.writeFileSync(path.join(dir, 'shell-state.json'), '{not json');
    const state = new ShellStateFile(dir);
    expect(state.get()).toEqual({});
    state.update({ closeHintShown: true });
    expect(new ShellStateFile(dir).get()).toEqual({ closeHintShown: true });
  });
});

describe('start at login', () => {
  const fakeApp = (wasOpenedAtLogin = false) => {
    const state = { openAtLogin: false, lastSet: undefined as unknown, askedWith: [] as unknown[] };
    return Object.assign(state, {
      getLoginItemSettings: (options?: { args?: string[] }) => (
        state.askedWith.push(options),
        { openAtLogin: state.openAtLogin, wasOpenedAtLogin }
      ),
      setLoginItemSettings: (settings: { openAtLogin: boolean; args?: string[] }) => (
        (state.lastSet = settings),
        (state.openAtLogin = settings.openAtLogin)
      ),
    });
  };

  it('registers a hidden login item on macOS and Windows, and offers nothing on Linux', () => {
    const app = fakeApp();
    const win = new StartAtLogin(app, 'win32');
    expect(win.supported).toBe(true);
    expect(win.enabled()).toBe(false);
    win.set(true);
    expect(app.lastSet).toEqual({ openAtLogin: true, openAsHidden: true, args: ['--hidden'] });
    expect(win.enabled()).toBe(true);
    // Windows keys a login item by its arguments: the same ones are asked about.
    expect(app.askedWith.at(-1)).toEqual({ args: ['--hidden'] });

    const linuxApp = fakeApp();
    const linux = new StartAtLogin(linuxApp, 'linux');
    expect(linux.supported).toBe(false);
    linux.set(true);
    expect(linuxApp.lastSet).toBeUndefined();
    expect(linux.enabled()).toBe(false);
  });

  it('starts hidden with --hidden, or when macOS opened it at login', () => {
    expect(new StartAtLogin(fakeApp(), 'win32').startsHidden((n) => n === 'hidden')).toBe(true);
    expect(new StartAtLogin(fakeApp(), 'win32').startsHidden(() => false)).toBe(false);
    expect(new StartAtLogin(fakeApp(true), 'darwin').startsHidden(() => false)).toBe(true);
    expect(new StartAtLogin(fakeApp(false), 'darwin').startsHidden(() => false)).toBe(false);
  });

  it('shows a checkbox in the tray where supported, which toggles it', () => {
    const app = fakeApp();
    const login = new StartAtLogin(app, 'darwin');
    const actions = {
      open: () => undefined,
      openPage: () => undefined,
      runWorkflow: () => undefined,
      setSchedulingPaused: () => undefined,
      restartEngine: () => undefined,
      quit: () => undefined,
    };
    const status = { state: 'stopping' } as const;
    const item = () =>
      trayMenu(status, undefined, { ...actions, startAtLogin: login }, SHELL_TEXTS.en).find(
        (i) => i.label === 'Start at login',
      );
    expect(item()).toMatchObject({ type: 'checkbox', checked: false });
    item()!.click!();
    expect(item()).toMatchObject({ type: 'checkbox', checked: true });
    expect(trayMenu(status, undefined, actions, SHELL_TEXTS.en).some((i) => i.label === 'Start at login')).toBe(false);
  });
});

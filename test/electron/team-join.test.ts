// The shell's side of "Join team as worker", under plain Node with the fake Electron:
// the supervisor forwards join and leave to the engine host and follows its team status; the
// membership remembers the wish across restarts, leaves before sleep and joins again on wake,
// and rejoins a host that restarted; the tray offers Join (disabled, with a hint, without saved
// connection strings) or Leave; the IPC handlers answer only the AX window; the preload's bridge
// relays values. The host's own side runs on the real MariaDB + Redis in
// test/team/desktop-team-join.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDesktopBridge, type IpcRendererLike } from '../../electron/desktop-bridge.ts';
import { EngineSupervisor } from '../../electron/engine-supervisor.ts';
import { TEAM_JOIN, TEAM_LEAVE, TEAM_STATUS, TEAM_STATUS_CHANGED } from '../../electron/ipc-channels.ts';
import { registerIpcHandlers } from '../../electron/ipc-handlers.ts';
import { SHELL_TEXTS } from '../../electron/shell-texts.ts';
import { ShellStateFile } from '../../electron/shell-state.ts';
import { TEAM_LEAVE_DRAIN_MS, TeamMembership } from '../../electron/team-membership.ts';
import { type TrayActions, trayMenu } from '../../electron/tray-menu.ts';
import type { DesktopTeamStatus } from '../../engine/api/desktop-bridge.ts';
import type { HostTeamStatus, ParentMessage, TeamWorkerStatus } from '../../engine/api/host-protocol.ts';
import { FakeContents, FakeEngineProcess, FakeIpcMain, FakePowerMonitor, ipcEvent } from '../helpers/fake-electron.ts';
import { tempDir } from '../helpers/files.ts';

const root = tempDir('ax-team-join-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const en = SHELL_TEXTS.en;
const zh = SHELL_TEXTS['zh-CN'];
const READY = { type: 'ready', pid: 1, dataDir: '/d', version: '0', recovery: { failed: 0, requeued: 0, killed: 0 } };
const TEAM_MESSAGES = new Set(['team-join', 'team-leave']);

function shell(options: { connection?: boolean; stateDir?: string } = {}) {
  const processes: FakeEngineProcess[] = [];
  const supervisor = new EngineSupervisor({
    launch: () => {
      const p = new FakeEngineProcess();
      processes.push(p);
      return p;
    },
    firstBackoffMs: 1,
  });
  const connection = { saved: options.connection ?? true };
  const state = new ShellStateFile(options.stateDir ?? fs.mkdtempSync(path.join(root, 'state-')));
  const membership = new TeamMembership({ host: supervisor, hasConnection: () => connection.saved, state });
  const power = new FakePowerMonitor();
  membership.followPower(power);
  const host = () => processes.at(-1) as FakeEngineProcess;
  /** the team messages the current host received */
  const asked = (): ParentMessage[] =>
    host()
      .received.map((r) => r.message)
      .filter((m) => TEAM_MESSAGES.has(m.type));
  const report = (status: TeamWorkerStatus) =>
    host().emit('message', { type: 'team', ...status } satisfies HostTeamStatus);
  const start = () => {
    supervisor.start();
    host().emit('message', READY);
  };
  return { supervisor, membership, power, state, connection, processes, host, asked, report, start };
}

describe('supervisor: team join and leave', () => {
  it('asks only a running host; follows its team status; a host that exits has left', () => {
    const { supervisor, host, report } = shell();
    const seen: TeamWorkerStatus[] = [];
    supervisor.onTeamStatus((s) => seen.push(s));
    supervisor.start();
    expect(supervisor.joinTeam({ labels: ['laptop'] })).toBe(false);
    host().emit('message', READY);
    expect(supervisor.joinTeam({ labels: ['laptop', 'gpu'] })).toBe(true);
    expect(supervisor.leaveTeam(5_000)).toBe(true);
    expect(host().received.map((r) => r.message)).toEqual([
      { type: 'team-join', labels: ['laptop', 'gpu'] },
      { type: 'team-leave', drainTimeoutMs: 5_000 },
    ]);
    report({ state: 'joined', workerId: 'mac-1a2b', labels: ['laptop'], running: 0 });
    expect(supervisor.teamStatus()).toEqual({ state: 'joined', workerId: 'mac-1a2b', labels: ['laptop'], running: 0 });
    host().exit(1);
    expect(supervisor.teamStatus()).toEqual({ state: 'left' });
    expect(seen.map((s) => s.state)).toEqual(['joined', 'left']);
  });
});

describe('team membership', () => {
  it('without saved connection strings, Join does nothing and the wish is not kept', () => {
    const { membership, start, asked } = shell({ connection: false });
    start();
    expect(membership.canJoin()).toBe(false);
    expect(membership.join()).toBe(false);
    expect(membership.wanted()).toBe(false);
    expect(asked()).toEqual([]);
  });

  it('join remembers the wish and the labels; leave forgets it and drains', () => {
    const dir = fs.mkdtempSync(path.join(root, 'state-'));
    const { membership, start, asked } = shell({ stateDir: dir });
    start();
    expect(membership.join(['laptop', 'gpu'])).toBe(true);
    expect(asked()).toEqual([{ type: 'team-join', labels: ['laptop', 'gpu'] }]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'shell-state.json'), 'utf8'))).toEqual({
      teamJoined: true,
      teamLabels: ['laptop', 'gpu'],
    });
    membership.leave();
    expect(asked().at(-1)).toEqual({ type: 'team-leave', drainTimeoutMs: TEAM_LEAVE_DRAIN_MS });
    expect(membership.wanted()).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'shell-state.json'), 'utf8'))).toMatchObject({
      teamJoined: false,
    });
  });

  it('taking unlabelled tasks too is asked for, remembered with the wish, and kept by a Join that does not say', () => {
    const dir = fs.mkdtempSync(path.join(root, 'state-'));
    const { membership, start, asked } = shell({ stateDir: dir });
    start();
    expect(membership.join(['laptop'], true)).toBe(true);
    expect(asked()).toEqual([{ type: 'team-join', labels: ['laptop'], acceptUnlabelled: true }]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'shell-state.json'), 'utf8'))).toEqual({
      teamJoined: true,
      teamLabels: ['laptop'],
      teamAcceptUnlabelled: true,
    });
    membership.leave();
    // The tray's Join says neither labels nor the choice: both as remembered.
    membership.join();
    expect(asked().at(-1)).toEqual({ type: 'team-join', labels: ['laptop'], acceptUnlabelled: true });
    membership.leave();
    membership.join(['laptop'], false);
    expect(asked().at(-1)).toEqual({ type: 'team-join', labels: ['laptop'] });
  });

  it('the wish survives a restart of the app: the next engine that runs joins with the remembered labels', () => {
    const dir = fs.mkdtempSync(path.join(root, 'state-'));
    const first = shell({ stateDir: dir });
    first.start();
    first.membership.join(['laptop', 'gpu']);
    const second = shell({ stateDir: dir });
    second.supervisor.start();
    expect(second.asked()).toEqual([]);
    second.host().emit('message', READY);
    expect(second.asked()).toEqual([{ type: 'team-join', labels: ['laptop', 'gpu'] }]);
  });

  it('a host that crashed and runs again is joined again', async () => {
    const { supervisor, membership, start, host, asked, report } = shell();
    start();
    membership.join();
    report({ state: 'joined', workerId: 'w', labels: ['laptop'] });
    const restarted = new Promise<FakeEngineProcess>((resolve) =>
      supervisor.onProcess((p) => resolve(p as FakeEngineProcess)),
    );
    host().exit(null, 'SIGKILL');
    expect(membership.status()).toEqual({ state: 'left' });
    const next = await restarted;
    expect(asked()).toEqual([]);
    next.emit('message', READY);
    expect(asked()).toEqual([{ type: 'team-join' }]);
  });

  it('before sleep a joined worker leaves (drains); on wake it joins again; a left one stays left', () => {
    const { membership, power, start, asked, report } = shell();
    start();
    membership.join();
    report({ state: 'joined', workerId: 'w', labels: ['laptop'] });
    power.emit('suspend');
    expect(asked()).toEqual([{ type: 'team-join' }, { type: 'team-leave', drainTimeoutMs: TEAM_LEAVE_DRAIN_MS }]);
    // The sleep left, not the person: the wish holds, and the wake acts on it.
    expect(membership.wanted()).toBe(true);
    report({ state: 'leaving', workerId: 'w' });
    report({ state: 'left', workerId: 'w' });
    power.emit('resume');
    expect(asked().at(-1)).toEqual({ type: 'team-join' });
    expect(asked()).toHaveLength(3);

    report({ state: 'joined', workerId: 'w' });
    membership.leave();
    report({ state: 'left', workerId: 'w' });
    power.emit('suspend');
    power.emit('resume');
    expect(asked()).toHaveLength(4);
    expect(asked().at(-1)).toEqual({ type: 'team-leave', drainTimeoutMs: TEAM_LEAVE_DRAIN_MS });
  });

  it('a drain asked by the team (ax drain) forgets the wish: no rejoin on wake', () => {
    const { membership, power, start, asked, report } = shell();
    start();
    membership.join();
    report({ state: 'joined', workerId: 'w' });
    report({ state: 'leaving', workerId: 'w' });
    report({ state: 'left', workerId: 'w', drainedByTeam: true });
    expect(membership.wanted()).toBe(false);
    power.emit('suspend');
    power.emit('resume');
    expect(asked()).toEqual([{ type: 'team-join' }]);
  });

  it('a host restarted while the machine sleeps is not joined until the wake', () => {
    const { membership, power, start, asked, host } = shell();
    start();
    membership.join();
    power.emit('suspend');
    const before = asked().length;
    host().emit('message', READY);
    expect(asked()).toHaveLength(before);
    power.emit('resume');
    expect(asked().at(-1)).toEqual({ type: 'team-join' });
  });
});

describe('tray: the team items', () => {
  const actions = (team: NonNullable<TrayActions['team']>): TrayActions => ({
    open: () => undefined,
    openPage: () => undefined,
    runWorkflow: () => undefined,
    setSchedulingPaused: () => undefined,
    restartEngine: () => undefined,
    quit: () => undefined,
    team,
  });
  const running = { state: 'running', pid: 1, dataDir: '/d', version: '0' } as const;
  const labels = (items: ReturnType<typeof trayMenu>) => items.map((i) => ({ label: i.label, enabled: i.enabled }));

  it('Join is disabled with a hint until the connection strings are saved, and while no engine runs', () => {
    const calls: string[] = [];
    const team = {
      status: () => ({ state: 'left' as const }),
      canJoin: () => false,
      join: () => calls.push('join'),
      leave: () => calls.push('leave'),
    };
    expect(labels(trayMenu(running, undefined, actions(team), en))).toContainEqual({
      label: en.joinTeamNeedsConnection,
      enabled: false,
    });
    const ready = { ...team, canJoin: () => true };
    expect(labels(trayMenu({ state: 'starting', attempt: 1 }, undefined, actions(ready), en))).toContainEqual({
      label: en.joinTeam,
      enabled: false,
    });
    const join = trayMenu(running, undefined, actions(ready), en).find((i) => i.label === en.joinTeam);
    expect(join?.enabled).toBe(true);
    join?.click?.();
    expect(calls).toEqual(['join']);
  });

  it('shows the state and offers Leave while joined, in both languages; a failure says why', () => {
    const calls: string[] = [];
    let status: TeamWorkerStatus = { state: 'joined', workerId: 'mac-1a2b', labels: ['laptop'], running: 2 };
    const team = {
      status: () => status,
      canJoin: () => true,
      join: () => calls.push('join'),
      leave: () => calls.push('leave'),
    };
    const items = trayMenu(running, undefined, actions(team), en);
    expect(items.map((i) => i.label)).toContain('Team: worker mac-1a2b (laptop), 2 running');
    items.find((i) => i.label === 'Leave team')?.click?.();
    expect(calls).toEqual(['leave']);
    expect(trayMenu(running, undefined, actions(team), zh).map((i) => i.label)).toContain('离开团队');
    status = { state: 'leaving' };
    expect(labels(trayMenu(running, undefined, actions(team), en))).toContainEqual({
      label: 'Leave team',
      enabled: false,
    });
    status = { state: 'failed', message: 'could not join the team: cannot reach MySQL at db:3306' };
    expect(trayMenu(running, undefined, actions(team), en).map((i) => i.label)).toContain(
      'Team: could not join the team: cannot reach MySQL at db:3306',
    );
  });
});

describe('IPC and the preload: window.axDesktop.team', () => {
  function handlers() {
    const ipc = new FakeIpcMain();
    const main = new FakeContents();
    const calls: string[] = [];
    const changes: (() => void)[] = [];
    const status: DesktopTeamStatus = { state: 'left', canJoin: true, wanted: false };
    registerIpcHandlers(ipc, {
      mainContents: () => main,
      requestEnginePort: () => undefined,
      engineStatus: () => ({ state: 'starting', attempt: 1 }),
      onEngineStatus: () => () => undefined,
      restartEngine: () => undefined,
      setLanguage: () => undefined,
      secrets: { status: () => ({}) as never, set: () => ({}) as never, setTask: () => ({}) as never },
      team: {
        status: () => status,
        join: (labels, acceptUnlabelled) =>
          calls.push(`join:${JSON.stringify(labels)}${acceptUnlabelled === undefined ? '' : `:${acceptUnlabelled}`}`),
        leave: () => calls.push('leave'),
        onChange: (l) => {
          changes.push(l);
          return () => undefined;
        },
      },
    });
    return { ipc, main, calls, changes, status };
  }

  it('answers the AX window, checks the labels, pushes changes to it; refuses strangers', async () => {
    const { ipc, main, calls, changes, status } = handlers();
    const ok = ipcEvent(main, 'app://ui/index.html#/settings');
    expect(await ipc.invoke(TEAM_STATUS, ok)).toEqual(status);
    expect(await ipc.invoke(TEAM_JOIN, ok, ['laptop'])).toEqual(status);
    await ipc.invoke(TEAM_JOIN, ok);
    await expect(ipc.invoke(TEAM_JOIN, ok, 'laptop')).rejects.toThrow(/labels are a list/);
    await expect(ipc.invoke(TEAM_JOIN, ok, ['x'.repeat(65)])).rejects.toThrow(/labels are a list/);
    await ipc.invoke(TEAM_JOIN, ok, ['gpu'], { acceptUnlabelled: true });
    await expect(ipc.invoke(TEAM_JOIN, ok, ['gpu'], { acceptUnlabelled: 'yes' })).rejects.toThrow(
      /acceptUnlabelled: true or false/,
    );
    await ipc.invoke(TEAM_LEAVE, ok);
    expect(calls).toEqual(['join:["laptop"]', 'join:undefined', 'join:["gpu"]:true', 'leave']);
    changes[0]!();
    expect(main.sent).toEqual([{ channel: TEAM_STATUS_CHANGED, args: [status] }]);

    for (const stranger of [
      ipcEvent(new FakeContents(), 'app://ui/index.html'),
      ipcEvent(main, 'https://evil.example/'),
      ipcEvent(main, 'app://ui/', { subframe: true }),
    ]) {
      await expect(ipc.invoke(TEAM_STATUS, stranger)).rejects.toThrow(/refused/);
      await expect(ipc.invoke(TEAM_JOIN, stranger, ['laptop'])).rejects.toThrow(/refused/);
      await expect(ipc.invoke(TEAM_LEAVE, stranger)).rejects.toThrow(/refused/);
    }
    expect(calls).toHaveLength(4);
  });

  it('the bridge invokes the team channels and relays status values, never IPC events', async () => {
    const listeners = new Map<string, Set<(event: { ports: readonly MessagePort[] }, ...args: unknown[]) => void>>();
    const invoked: unknown[][] = [];
    const ipc: IpcRendererLike = {
      on: (channel, listener) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener)),
      removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
      send: () => undefined,
      invoke: async (...args) => void invoked.push(args),
    };
    const bridge = createDesktopBridge(
      ipc,
      { version: '1', platform: 'linux' },
      { postMessage: () => undefined, origin: 'app://ui' },
    );
    const team = bridge.team!;
    await team.status();
    await team.join(['laptop'], { acceptUnlabelled: true });
    await team.leave();
    expect(invoked).toEqual([[TEAM_STATUS], [TEAM_JOIN, ['laptop'], { acceptUnlabelled: true }], [TEAM_LEAVE]]);
    const seen: unknown[] = [];
    const off = team.onStatus((s) => seen.push(s));
    for (const l of listeners.get(TEAM_STATUS_CHANGED) ?? []) l({ ports: [] }, { state: 'joined' });
    off();
    expect(seen).toEqual([{ state: 'joined' }]);
    expect(listeners.get(TEAM_STATUS_CHANGED)?.size).toBe(0);
  });
});

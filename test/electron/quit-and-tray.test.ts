// Quit's decisions (ask only when tasks run; wait drains, stop does not, cancel keeps the app;
// the first Quit is held until the engine has stopped), the tray following engine state (pause
// and resume of all scheduling included), and the application menu.
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { appMenuTemplate } from '../../electron/app-menu.ts';
import { SHELL_TEXTS, ShellLanguage } from '../../electron/shell-texts.ts';

const en = SHELL_TEXTS.en;
const zh = SHELL_TEXTS['zh-CN'];
import type { DesktopEngineStatus } from '../../engine/api/desktop-bridge.ts';
import {
  choiceOf,
  IDLE_DRAIN_MS,
  type QuitChoice,
  QuitFlow,
  quitQuestion,
  WAIT_DRAIN_MS,
} from '../../electron/quit-flow.ts';
import { TrayController, type TrayEngine } from '../../electron/tray-controller.ts';
import { trayIconBitmap, type TrayHealth } from '../../electron/tray-icon.ts';
import { type TrayItem, trayHealth, trayMenu, trayTooltip } from '../../electron/tray-menu.ts';
import { startTestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

function quitting(running: number, answer: QuitChoice) {
  const log: string[] = [];
  let release: () => void = () => undefined;
  const flow = new QuitFlow({
    runningTasks: async () => running,
    ask: async (n) => {
      log.push(`ask ${n}`);
      return answer;
    },
    stopEngine: (drainMs) => {
      log.push(`stop ${drainMs}`);
      return new Promise<void>((resolve) => (release = resolve));
    },
    quit: () => log.push('quit'),
  });
  const beforeQuit = () => {
    let prevented = false;
    flow.onBeforeQuit({ preventDefault: () => (prevented = true) });
    return prevented;
  };
  return { flow, log, beforeQuit, release: () => release() };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('quit flow', () => {
  it('with tasks running, asks; "wait" drains them, holds Quit until the engine stopped, then quits', async () => {
    const { flow, log, beforeQuit, release } = quitting(2, 'wait');
    expect(beforeQuit()).toBe(true);
    await settle();
    expect(log).toEqual(['ask 2', `stop ${WAIT_DRAIN_MS}`]);
    expect(flow.quitting()).toBe(true);
    // A second Quit while stopping is held too, and asks nothing.
    expect(beforeQuit()).toBe(true);
    release();
    await settle();
    expect(log).toEqual(['ask 2', `stop ${WAIT_DRAIN_MS}`, 'quit']);
    // The quit() it called comes back through before-quit and is let through.
    expect(beforeQuit()).toBe(false);
  });

  it('"stop" stops the tasks now (no drain)', async () => {
    const { log, beforeQuit, release } = quitting(1, 'stop');
    beforeQuit();
    await settle();
    release();
    await settle();
    expect(log).toEqual(['ask 1', 'stop 0', 'quit']);
  });

  it('"cancel" keeps the app running, and a later Quit asks again', async () => {
    const { flow, log, beforeQuit } = quitting(1, 'cancel');
    expect(beforeQuit()).toBe(true);
    await settle();
    expect(log).toEqual(['ask 1']);
    expect(flow.quitting()).toBe(false);
    beforeQuit();
    await settle();
    expect(log).toEqual(['ask 1', 'ask 1']);
  });

  it('with nothing running, asks nothing and stops with a short drain', async () => {
    const { log, beforeQuit, release } = quitting(0, 'cancel');
    beforeQuit();
    await settle();
    release();
    await settle();
    expect(log).toEqual([`stop ${IDLE_DRAIN_MS}`, 'quit']);
  });

  it('maps the dialog: buttons wait, stop, cancel; Escape is cancel', () => {
    const question = quitQuestion(3, en);
    expect(question.message).toBe('3 tasks are still running.');
    expect(quitQuestion(1, en).message).toBe('A task is still running.');
    expect(question.buttons.map((_, i) => choiceOf(i))).toEqual(['wait', 'stop', 'cancel']);
    expect(choiceOf(question.cancelId)).toBe('cancel');
    expect(choiceOf(question.defaultId)).toBe('wait');
  });
});

describe('tray', () => {
  const running: DesktopEngineStatus = { state: 'running', pid: 1, dataDir: '/d', version: '1' };
  const labels = (items: TrayItem[]) => items.map((i) => i.label ?? '—');
  const actions = {
    open: () => undefined,
    openPage: () => undefined,
    runWorkflow: () => undefined,
    setSchedulingPaused: () => undefined,
    restartEngine: () => undefined,
    quit: () => undefined,
  };

  it('shows health by engine state and counts', () => {
    expect(trayHealth(running, { runningTasks: 0, failedToday: 0 })).toBe('idle');
    expect(trayHealth(running, { runningTasks: 2, failedToday: 0 })).toBe('running');
    expect(trayHealth(running, { runningTasks: 2, failedToday: 1 })).toBe('failure');
    const crash = { code: 1, signal: null, stderrTail: '', at: 0 };
    expect(trayHealth({ state: 'gave-up', attempts: 5, lastCrash: crash }, undefined)).toBe('failure');
    expect(trayHealth({ state: 'failed', code: 'conflict', message: 'held' }, undefined)).toBe('failure');
    expect(trayHealth({ state: 'restarting', attempt: 2, retryAt: 0, lastCrash: crash }, undefined)).toBe('idle');
  });

  it('lists counts while running, and offers a restart only when the engine gave up or failed', () => {
    expect(labels(trayMenu(running, { runningTasks: 2, failedToday: 1 }, actions, en))).toEqual([
      'Engine running',
      '2 running',
      '1 failed today',
      'Pause all scheduling',
      '—',
      'Open AX Scheduler',
      '—',
      'Quit',
    ]);
    const crash = { code: 1, signal: null, stderrTail: '', at: 0 };
    expect(labels(trayMenu({ state: 'gave-up', attempts: 5, lastCrash: crash }, undefined, actions, en))).toEqual([
      'Engine stopped after 5 crashes',
      '—',
      'Open AX Scheduler',
      'Restart the engine',
      '—',
      'Quit',
    ]);
  });

  it('offers "Pause all scheduling" while running, and says so and offers "Resume scheduling" while paused', () => {
    const asked: boolean[] = [];
    const record = { ...actions, setSchedulingPaused: (p: boolean) => asked.push(p) };
    const paused = trayMenu(running, { runningTasks: 0, failedToday: 0, schedulingPaused: true }, record, en);
    expect(labels(paused)).toEqual([
      'Engine running',
      '0 running',
      '0 failed today',
      'Scheduling paused',
      'Resume scheduling',
      '—',
      'Open AX Scheduler',
      '—',
      'Quit',
    ]);
    paused.find((i) => i.label === 'Resume scheduling')!.click!();
    trayMenu(running, { runningTasks: 0, failedToday: 0 }, record, en).find((i) => i.label === 'Pause all scheduling')!
      .click!();
    expect(asked).toEqual([false, true]);
    expect(trayTooltip(running, { runningTasks: 0, failedToday: 0, schedulingPaused: true }, en)).toBe(
      'AX Scheduler: 0 running, 0 failed today, Scheduling paused',
    );
    // No engine to ask: no item.
    expect(labels(trayMenu({ state: 'starting', attempt: 1 }, undefined, record, en))).not.toContain(
      'Pause all scheduling',
    );
  });

  it('draws three icons that differ by shape, not only colour', () => {
    const shapes = (['idle', 'running', 'failure'] as TrayHealth[]).map((h) => {
      const px = trayIconBitmap(h, 16);
      expect(px.length).toBe(16 * 16 * 4);
      // The alpha channel alone: the shape.
      return Array.from({ length: 256 }, (_, i) => (px[i * 4 + 3]! > 127 ? 1 : 0)).join('');
    });
    expect(new Set(shapes).size).toBe(3);
    // The ring is hollow: its centre is transparent.
    expect(trayIconBitmap('idle', 16)[(8 * 16 + 8) * 4 + 3]).toBe(0);
    expect(trayIconBitmap('failure', 16)[(8 * 16 + 8) * 4 + 3]).toBe(255);
  });

  it('follows the supervisor and the engine dashboard (a real engine: a task running, then one failed)', async () => {
    const t = await startTestEngine();
    try {
      let status: DesktopEngineStatus = { state: 'starting', attempt: 1 };
      const statusListeners: ((s: DesktopEngineStatus) => void)[] = [];
      const drawn: { health: TrayHealth[]; menus: string[][]; items: TrayItem[][] } = {
        health: [],
        menus: [],
        items: [],
      };
      const engine: { current?: TrayEngine } = {};
      const opened: string[] = [];
      const runs: Promise<unknown>[] = [];
      const tray = new TrayController(
        {
          setHealth: (h) => drawn.health.push(h),
          setToolTip: () => undefined,
          setMenu: (items) => (drawn.menus.push(labels(items)), drawn.items.push(items)),
        },
        {
          status: () => status,
          onStatus: (l) => (statusListeners.push(l), () => undefined),
          onClient: () => () => undefined,
          current: () => engine.current,
        },
        {
          ...actions,
          openPage: (p) => opened.push(p),
          runWorkflow: (name) => runs.push(t.engine.runWorkflow(name, { actor: 'tray' })),
          setSchedulingPaused: (paused) => void t.engine.setSchedulingPaused(paused, 'alice@laptop (tray)'),
        },
      );
      expect(drawn.menus.at(-1)![0]).toBe('Engine starting');
      status = running;
      engine.current = t.engine;
      for (const l of statusListeners) l(status);

      await t.apply(`
workflow: tray
tasks:
  slow:
    command: sleep 30
  bad:
    command: exit 7
`);
      const slow = await t.engine.runWorkflow('tray', { task: 'slow', actor: 'test' });
      await waitFor(async () => (await t.engine.dashboard()).runningTasks === 1, { timeoutMs: 15_000 });
      await tray.refresh();
      expect(drawn.menus.at(-1)).toContain('1 running');
      expect(drawn.health.at(-1)).toBe('running');

      await t.engine.cancelRun(slow.id, { actor: 'test' });
      await t.runToEnd('tray', { task: 'bad' });
      await tray.refresh();
      expect(drawn.menus.at(-1)).toContain('1 failed today');
      expect(drawn.health).toEqual(['idle', 'running', 'failure']);

      // Recent failures open the instance; "Run a workflow" runs it.
      const submenu = (label: string) => drawn.items.at(-1)!.find((i) => i.label === label)?.submenu ?? [];
      const failure = submenu('Recent failures');
      expect(failure.map((i) => i.label)).toEqual(['tray › bad']);
      failure[0]!.click!();
      const bad = (await t.engine.dashboard()).failuresToday[0]!;
      expect(opened).toEqual([`/instances/${bad.instanceId}`]);
      const run = submenu('Run a workflow');
      expect(run.map((i) => i.label)).toEqual(['tray']);
      run[0]!.click!();
      const started = (await runs[0]) as { id: number; workflowName: string };
      expect(started.workflowName).toBe('tray');
      await t.engine.cancelRun(started.id, { actor: 'test' });

      // Pause all scheduling from the tray: the engine is paused, and the menu follows it.
      drawn.items.at(-1)!.find((i) => i.label === 'Pause all scheduling')!.click!();
      await waitFor(async () => (await t.engine.dashboard()).schedulingPaused !== undefined, { timeoutMs: 5_000 });
      expect((await t.engine.dashboard()).schedulingPaused?.by).toBe('alice@laptop (tray)');
      await tray.refresh();
      expect(drawn.menus.at(-1)).toEqual(expect.arrayContaining(['Scheduling paused', 'Resume scheduling']));
      drawn.items.at(-1)!.find((i) => i.label === 'Resume scheduling')!.click!();
      await waitFor(async () => (await t.engine.dashboard()).schedulingPaused === undefined, { timeoutMs: 5_000 });
      await tray.refresh();
      expect(drawn.menus.at(-1)).toContain('Pause all scheduling');

      status = { state: 'gave-up', attempts: 5, lastCrash: { code: 1, signal: null, stderrTail: '', at: 0 } };
      for (const l of statusListeners) l(status);
      expect(drawn.menus.at(-1)).toContain('Restart the engine');
      expect(drawn.menus.at(-1)).not.toContain('0 running');
      tray.stop();
    } finally {
      await t.close();
    }
  });
});

describe('application menu', () => {
  const roles = (items: MenuItemConstructorOptions[]): string[] =>
    items.flatMap((i) => [
      ...(i.role ? [i.role] : []),
      ...roles((i.submenu as MenuItemConstructorOptions[] | undefined) ?? []),
    ]);

  it('has the standard editing and window roles, the developer tools only unpackaged, an app menu on macOS', () => {
    const linux = roles(appMenuTemplate('linux', { packaged: true, appName: 'AX Scheduler', texts: en }));
    for (const role of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'quit', 'minimize', 'togglefullscreen'])
      expect(linux).toContain(role);
    expect(linux).not.toContain('toggleDevTools');
    expect(linux).not.toContain('reload');
    expect(roles(appMenuTemplate('linux', { packaged: false, appName: 'AX', texts: en }))).toContain('toggleDevTools');
    const mac = appMenuTemplate('darwin', { packaged: true, appName: 'AX Scheduler', texts: en });
    expect(mac[0]!.label).toBe('AX Scheduler');
    expect(roles(mac)).toEqual(expect.arrayContaining(['about', 'hide', 'quit', 'close', 'front']));
  });
});

describe('shell language', () => {
  it('follows the UI: the tray, the quit question and the menu in Simplified Chinese, redrawn on change', () => {
    const language = new ShellLanguage();
    const running: DesktopEngineStatus = { state: 'running', pid: 1, dataDir: '/d', version: '1' };
    const menus: string[][] = [];
    const tray = new TrayController(
      {
        setHealth: () => undefined,
        setToolTip: () => undefined,
        setMenu: (items) => menus.push(items.map((i) => i.label ?? '—')),
      },
      {
        status: () => running,
        onStatus: () => () => undefined,
        onClient: () => () => undefined,
        current: () => undefined,
      },
      {
        open: () => undefined,
        openPage: () => undefined,
        runWorkflow: () => undefined,
        setSchedulingPaused: () => undefined,
        restartEngine: () => undefined,
        quit: () => undefined,
      },
      () => language.texts(),
    );
    let changes = 0;
    language.onChange(() => (changes++, tray.redraw()));
    expect(menus.at(-1)).toEqual(['Engine running', '—', 'Open AX Scheduler', '—', 'Quit']);
    expect(zh.pauseScheduling).toBe('暂停全部调度');
    language.set('zh-CN');
    language.set('zh-CN');
    expect(changes).toBe(1);
    expect(menus.at(-1)).toEqual(['引擎运行中', '—', '打开 AX 调度器', '—', '退出']);
    expect(quitQuestion(2, language.texts()).buttons).toEqual(['等待完成', '停止任务', '取消']);
    expect(appMenuTemplate('linux', { packaged: true, appName: 'AX', texts: zh }).map((m) => m.label)).toEqual([
      '文件',
      '编辑',
      '视图',
      '窗口',
    ]);
    tray.stop();
  });

  it('has every text in both languages', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    expect(zh.quitButtons).toHaveLength(3);
  });
});

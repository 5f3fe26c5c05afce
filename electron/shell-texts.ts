// The shell's own words (tray, quit dialog, notifications, the close hint, the menu) in the UI's
// two languages. The UI tells the shell its language with axDesktop.setLanguage; English until
// it does.
import type { DesktopLanguage } from '../engine/api/desktop-bridge.ts';
import type { TeamWorkerStatus } from '../engine/api/host-protocol.ts';

const short = (text: string | undefined) => (text && text.length > 80 ? `${text.slice(0, 79)}…` : (text ?? ''));

export interface ShellTexts {
  appName: string;
  engineStarting(attempt: number): string;
  engineRunning: string;
  engineRestarting(attempt: number): string;
  engineGaveUp(attempts: number): string;
  engineFailed(message: string): string;
  engineStopping: string;
  running(count: number): string;
  failedToday(count: number): string;
  recentFailures: string;
  runWorkflow: string;
  schedulingPaused: string;
  pauseScheduling: string;
  resumeScheduling: string;
  open: string;
  startAtLogin: string;
  restartEngine: string;
  quit: string;
  team(status: TeamWorkerStatus): string;
  joinTeam: string;
  joinTeamNeedsConnection: string;
  leaveTeam: string;
  quitTitle: string;
  tasksRunning(count: number): string;
  quitDetail: string;
  quitButtons: [wait: string, stop: string, cancel: string];
  runFailed(workflow: string): string;
  runFailedBody(runId: number): string;
  taskFailedBody(runId: number, task: string, timedOut: boolean, reason: string | undefined): string;
  recovered(workflow: string): string;
  recoveredBody(runId: number): string;
  hintTitle: string;
  hintBody: string;
  menu: { file: string; edit: string; view: string; window: string };
}

const en: ShellTexts = {
  appName: 'AX Scheduler',
  engineStarting: (attempt) => (attempt > 1 ? `Engine starting (attempt ${attempt})` : 'Engine starting'),
  engineRunning: 'Engine running',
  engineRestarting: (attempt) => `Engine crashed; restarting (attempt ${attempt})`,
  engineGaveUp: (attempts) => `Engine stopped after ${attempts} crashes`,
  engineFailed: (message) => `Engine could not start: ${message}`,
  engineStopping: 'Engine stopping',
  running: (n) => `${n} running`,
  failedToday: (n) => `${n} failed today`,
  recentFailures: 'Recent failures',
  runWorkflow: 'Run a workflow',
  schedulingPaused: 'Scheduling paused',
  pauseScheduling: 'Pause all scheduling',
  resumeScheduling: 'Resume scheduling',
  open: 'Open AX Scheduler',
  startAtLogin: 'Start at login',
  restartEngine: 'Restart the engine',
  quit: 'Quit',
  team: (t) => {
    switch (t.state) {
      case 'left':
        return 'Team: not joined';
      case 'joining':
        return 'Team: joining…';
      case 'joined':
        return `Team: worker ${t.workerId ?? ''} (${t.labels?.join(', ') ?? ''}), ${t.running ?? 0} running`;
      case 'leaving':
        return 'Team: leaving (running tasks finish)…';
      case 'failed':
        return `Team: ${short(t.message)}`;
    }
  },
  joinTeam: 'Join team as worker',
  joinTeamNeedsConnection: 'Join team as worker (save the team connection in Settings first)',
  leaveTeam: 'Leave team',
  quitTitle: 'Quit AX Scheduler',
  tasksRunning: (n) => (n === 1 ? 'A task is still running.' : `${n} tasks are still running.`),
  quitDetail: 'Wait: they finish (up to an hour), then AX quits. Stop: they are stopped now.',
  quitButtons: ['Wait for them', 'Stop them', 'Cancel'],
  runFailed: (workflow) => `${workflow} failed`,
  runFailedBody: (runId) => `Run #${runId} failed.`,
  taskFailedBody: (runId, task, timedOut, reason) =>
    `Run #${runId}: task ${task} ${timedOut ? 'timed out' : 'failed'}${reason ? `: ${reason}` : ''}`,
  recovered: (workflow) => `${workflow} recovered`,
  recoveredBody: (runId) => `Run #${runId} succeeded.`,
  hintTitle: 'AX Scheduler is still running',
  hintBody: 'Schedules keep running. Open it again or quit from the tray icon.',
  menu: { file: 'File', edit: 'Edit', view: 'View', window: 'Window' },
};

const zhCN: ShellTexts = {
  appName: 'AX 调度器',
  engineStarting: (attempt) => (attempt > 1 ? `引擎启动中（第 ${attempt} 次尝试）` : '引擎启动中'),
  engineRunning: '引擎运行中',
  engineRestarting: (attempt) => `引擎崩溃，正在重启（第 ${attempt} 次尝试）`,
  engineGaveUp: (attempts) => `引擎崩溃 ${attempts} 次后已停止`,
  engineFailed: (message) => `引擎无法启动：${message}`,
  engineStopping: '引擎停止中',
  running: (n) => `${n} 个运行中`,
  failedToday: (n) => `今日失败 ${n} 个`,
  recentFailures: '最近的失败',
  runWorkflow: '运行工作流',
  schedulingPaused: '调度已暂停',
  pauseScheduling: '暂停全部调度',
  resumeScheduling: '恢复调度',
  open: '打开 AX 调度器',
  startAtLogin: '登录时启动',
  restartEngine: '重启引擎',
  quit: '退出',
  team: (t) => {
    switch (t.state) {
      case 'left':
        return '团队：未加入';
      case 'joining':
        return '团队：正在加入…';
      case 'joined':
        return `团队：工作节点 ${t.workerId ?? ''}（${t.labels?.join(', ') ?? ''}），${t.running ?? 0} 个运行中`;
      case 'leaving':
        return '团队：正在离开（运行中的任务会先完成）…';
      case 'failed':
        return `团队：${short(t.message)}`;
    }
  },
  joinTeam: '作为工作节点加入团队',
  joinTeamNeedsConnection: '作为工作节点加入团队（请先在设置中保存团队连接）',
  leaveTeam: '离开团队',
  quitTitle: '退出 AX 调度器',
  tasksRunning: (n) => (n === 1 ? '还有一个任务在运行。' : `还有 ${n} 个任务在运行。`),
  quitDetail: '等待：任务完成后（最多一小时）再退出。停止：立即停止这些任务。',
  quitButtons: ['等待完成', '停止任务', '取消'],
  runFailed: (workflow) => `${workflow} 失败`,
  runFailedBody: (runId) => `运行 #${runId} 失败。`,
  taskFailedBody: (runId, task, timedOut, reason) =>
    `运行 #${runId}：任务 ${task} ${timedOut ? '超时' : '失败'}${reason ? `：${reason}` : ''}`,
  recovered: (workflow) => `${workflow} 已恢复`,
  recoveredBody: (runId) => `运行 #${runId} 成功。`,
  hintTitle: 'AX 调度器仍在运行',
  hintBody: '调度会继续运行。可从托盘图标重新打开或退出。',
  menu: { file: '文件', edit: '编辑', view: '视图', window: '窗口' },
};

export const SHELL_TEXTS: Readonly<Record<DesktopLanguage, ShellTexts>> = { en, 'zh-CN': zhCN };

/** The shell's current language, and who must redraw when it changes. */
export class ShellLanguage {
  private language: DesktopLanguage = 'en';
  private readonly listeners = new Set<() => void>();

  texts(): ShellTexts {
    return SHELL_TEXTS[this.language];
  }

  set(language: DesktopLanguage): void {
    if (language === this.language || !(language in SHELL_TEXTS)) return;
    this.language = language;
    for (const l of this.listeners) l();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

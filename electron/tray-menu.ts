// What the tray shows for a state of the engine: its health (for the icon), a tooltip, and the
// menu's items. Pure, so the tests read the menu for each state.
import type { DesktopEngineStatus } from '../engine/api/desktop-bridge.ts';
import type { TeamWorkerStatus } from '../engine/api/host-protocol.ts';
import type { ShellTexts } from './shell-texts.ts';
import type { TrayHealth } from './tray-icon.ts';

/** What the tray knows of the engine's work (its dashboard, its workflows); undefined while none answers. */
export interface TrayCounts {
  runningTasks: number;
  failedToday: number;
  /** the latest failed or timed-out tasks, newest first */
  recentFailures?: { workflow: string; task: string; instanceId: number }[];
  /** workflow names, for "Run a workflow" */
  workflows?: string[];
  /** all scheduling is paused (no cron fire or event starts a run) */
  schedulingPaused?: boolean;
}

export interface TrayActions {
  open(): void;
  /** open a page of the UI, e.g. '/instances/34' */
  openPage(path: string): void;
  runWorkflow(name: string): void;
  /** pause (true) or resume (false) all scheduling */
  setSchedulingPaused(paused: boolean): void;
  restartEngine(): void;
  quit(): void;
  /** where the platform has login items: whether the app starts at login, and the toggle */
  startAtLogin?: { enabled(): boolean; set(on: boolean): void };
  /** this laptop as a temporary team worker (team-membership.ts) */
  team?: { status(): TeamWorkerStatus; canJoin(): boolean; join(): void; leave(): void };
}

/** The team worker's line and its Join or Leave item. */
export function teamItems(
  status: DesktopEngineStatus,
  team: NonNullable<TrayActions['team']>,
  texts: ShellTexts,
): TrayItem[] {
  const t = team.status();
  const items: TrayItem[] = [{ label: texts.team(t), enabled: false }];
  if (t.state === 'joined' || t.state === 'joining') items.push({ label: texts.leaveTeam, click: () => team.leave() });
  else if (t.state === 'leaving') items.push({ label: texts.leaveTeam, enabled: false });
  else if (!team.canJoin()) items.push({ label: texts.joinTeamNeedsConnection, enabled: false });
  else items.push({ label: texts.joinTeam, enabled: status.state === 'running', click: () => team.join() });
  return items;
}

export interface TrayItem {
  label?: string;
  type?: 'separator' | 'checkbox';
  checked?: boolean;
  enabled?: boolean;
  click?: () => void;
  submenu?: TrayItem[];
}

/** How many recent failures and workflows the tray lists (the UI has the rest). */
export const TRAY_LIST_MAX = 8;

export function trayHealth(status: DesktopEngineStatus, counts: TrayCounts | undefined): TrayHealth {
  if (status.state === 'gave-up' || status.state === 'failed') return 'failure';
  if (counts && counts.failedToday > 0) return 'failure';
  if (counts && counts.runningTasks > 0) return 'running';
  return 'idle';
}

export function engineLine(status: DesktopEngineStatus, texts: ShellTexts): string {
  switch (status.state) {
    case 'starting':
      return texts.engineStarting(status.attempt);
    case 'running':
      return texts.engineRunning;
    case 'restarting':
      return texts.engineRestarting(status.attempt);
    case 'gave-up':
      return texts.engineGaveUp(status.attempts);
    case 'failed':
      return texts.engineFailed(status.message.length > 80 ? `${status.message.slice(0, 79)}…` : status.message);
    case 'stopping':
      return texts.engineStopping;
  }
}

export function trayTooltip(status: DesktopEngineStatus, counts: TrayCounts | undefined, texts: ShellTexts): string {
  if (status.state !== 'running' || !counts) return `${texts.appName}: ${engineLine(status, texts)}`;
  return `${texts.appName}: ${texts.running(counts.runningTasks)}, ${texts.failedToday(counts.failedToday)}${counts.schedulingPaused ? `, ${texts.schedulingPaused}` : ''}`;
}

export function trayMenu(
  status: DesktopEngineStatus,
  counts: TrayCounts | undefined,
  actions: TrayActions,
  texts: ShellTexts,
): TrayItem[] {
  const items: TrayItem[] = [{ label: engineLine(status, texts), enabled: false }];
  if (status.state === 'running' && counts) {
    items.push(
      { label: texts.running(counts.runningTasks), enabled: false },
      { label: texts.failedToday(counts.failedToday), enabled: false },
    );
    if (counts.schedulingPaused) items.push({ label: texts.schedulingPaused, enabled: false });
  }
  const failures = (status.state === 'running' && counts?.recentFailures) || [];
  if (failures.length > 0) {
    items.push({
      label: texts.recentFailures,
      submenu: failures.slice(0, TRAY_LIST_MAX).map((f) => ({
        label: `${f.workflow} › ${f.task}`,
        click: () => actions.openPage(`/instances/${f.instanceId}`),
      })),
    });
  }
  const workflows = (status.state === 'running' && counts?.workflows) || [];
  if (workflows.length > 0) {
    items.push({
      label: texts.runWorkflow,
      submenu: workflows
        .slice(0, TRAY_LIST_MAX)
        .map((name) => ({ label: name, click: () => actions.runWorkflow(name) })),
    });
  }
  if (status.state === 'running' && counts) {
    const paused = counts.schedulingPaused === true;
    items.push({
      label: paused ? texts.resumeScheduling : texts.pauseScheduling,
      click: () => actions.setSchedulingPaused(!paused),
    });
  }
  items.push({ type: 'separator' }, { label: texts.open, click: actions.open });
  if (status.state === 'gave-up' || status.state === 'failed')
    items.push({ label: texts.restartEngine, click: actions.restartEngine });
  if (actions.team) items.push({ type: 'separator' }, ...teamItems(status, actions.team, texts));
  const login = actions.startAtLogin;
  if (login) {
    const on = login.enabled();
    items.push(
      { type: 'separator' },
      { label: texts.startAtLogin, type: 'checkbox', checked: on, click: () => login.set(!on) },
    );
  }
  items.push({ type: 'separator' }, { label: texts.quit, click: actions.quit });
  return items;
}

// What the tray shows for a state of the engine: its health (for the icon), a tooltip, and the
// menu's items. Pure, so the tests read the menu for each state.
import type { DesktopEngineStatus } from '../engine/api/desktop-bridge.ts';
import type { TrayHealth } from './tray-icon.ts';

/** What the tray knows of the engine's work (from its dashboard); undefined while none answers. */
export interface TrayCounts {
  runningTasks: number;
  failedToday: number;
}

export interface TrayActions {
  open(): void;
  restartEngine(): void;
  quit(): void;
}

export interface TrayItem {
  label?: string;
  type?: 'separator';
  enabled?: boolean;
  click?: () => void;
}

export function trayHealth(status: DesktopEngineStatus, counts: TrayCounts | undefined): TrayHealth {
  if (status.state === 'gave-up' || status.state === 'failed') return 'failure';
  if (counts && counts.failedToday > 0) return 'failure';
  if (counts && counts.runningTasks > 0) return 'running';
  return 'idle';
}

export function engineLine(status: DesktopEngineStatus): string {
  switch (status.state) {
    case 'starting':
      return status.attempt > 1 ? `Engine starting (attempt ${status.attempt})` : 'Engine starting';
    case 'running':
      return 'Engine running';
    case 'restarting':
      return `Engine crashed; restarting (attempt ${status.attempt})`;
    case 'gave-up':
      return `Engine stopped after ${status.attempts} crashes`;
    case 'failed':
      return `Engine could not start: ${status.message.length > 80 ? `${status.message.slice(0, 79)}…` : status.message}`;
    case 'stopping':
      return 'Engine stopping';
  }
}

export function trayTooltip(status: DesktopEngineStatus, counts: TrayCounts | undefined): string {
  if (status.state !== 'running' || !counts) return `AX Scheduler: ${engineLine(status)}`;
  return `AX Scheduler: ${counts.runningTasks} running, ${counts.failedToday} failed today`;
}

export function trayMenu(status: DesktopEngineStatus, counts: TrayCounts | undefined, actions: TrayActions): TrayItem[] {
  const items: TrayItem[] = [{ label: engineLine(status), enabled: false }];
  if (status.state === 'running' && counts) {
    items.push({ label: `${counts.runningTasks} running`, enabled: false }, { label: `${counts.failedToday} failed today`, enabled: false });
  }
  items.push({ type: 'separator' }, { label: 'Open AX Scheduler', click: actions.open });
  if (status.state === 'gave-up' || status.state === 'failed') items.push({ label: 'Restart the engine', click: actions.restartEngine });
  items.push({ type: 'separator' }, { label: 'Quit', click: actions.quit });
  return items;
}

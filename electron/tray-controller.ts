// Keeps the tray in step with the engine: the supervisor's status, and the running and failed
// counts, recent failures, workflows and whether scheduling is paused from the engine, read again
// (at most once a second) when runs or workflows change (a pause or resume is a `workflows` event).
import type { DesktopEngineStatus } from '../engine/api/desktop-bridge.ts';
import type { EngineApi } from '../engine/api/engine-api.ts';
import { SHELL_TEXTS, type ShellTexts } from './shell-texts.ts';
import type { TrayHealth } from './tray-icon.ts';
import { type TrayActions, type TrayCounts, type TrayItem, trayHealth, trayMenu, trayTooltip } from './tray-menu.ts';

/** What the controller draws on: Electron's Tray, with the menu and image made by main.ts. */
export interface TrayView {
  setHealth(health: TrayHealth): void;
  setToolTip(text: string): void;
  setMenu(items: TrayItem[]): void;
}

/** The engine as the tray reads it: the main process's ApiClient (or, in tests, an engine). */
export type TrayEngine = Pick<EngineApi, 'dashboard' | 'listWorkflows' | 'subscribe'>;

export interface TraySources {
  status(): DesktopEngineStatus;
  onStatus(listener: (status: DesktopEngineStatus) => void): () => void;
  onClient(listener: (client: TrayEngine) => void): () => void;
  current(): TrayEngine | undefined;
}

const REFRESH_MS = 1_000;

export class TrayController {
  private counts: TrayCounts | undefined;
  private health: TrayHealth | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly view: TrayView,
    private readonly sources: TraySources,
    private readonly actions: TrayActions,
    private readonly texts: () => ShellTexts = () => SHELL_TEXTS.en,
  ) {
    sources.onStatus((status) => {
      if (status.state !== 'running') this.counts = undefined;
      this.render();
    });
    sources.onClient((client) => {
      void client.subscribe(['runs', 'workflows'], () => this.scheduleRefresh()).catch(() => undefined);
      this.scheduleRefresh();
    });
    const client = sources.current();
    if (client) void client.subscribe(['runs', 'workflows'], () => this.scheduleRefresh()).catch(() => undefined);
    this.render();
    this.scheduleRefresh();
  }

  /** Read the counts again now (the refresh timer's work; the tests call it directly). */
  async refresh(): Promise<void> {
    this.refreshTimer = undefined;
    const client = this.sources.current();
    if (!client) return;
    try {
      const [summary, workflows] = await Promise.all([client.dashboard(), client.listWorkflows()]);
      this.counts = {
        runningTasks: summary.runningTasks,
        failedToday: summary.failuresToday.length,
        recentFailures: summary.failuresToday.map((f) => ({
          workflow: f.run.workflowName,
          task: f.taskName,
          instanceId: f.instanceId,
        })),
        workflows: workflows.map((w) => w.name),
        schedulingPaused: summary.schedulingPaused !== undefined,
      };
    } catch {
      this.counts = undefined;
    }
    this.render();
  }

  /** Draw again (the language changed). */
  redraw(): void {
    this.render();
  }

  stop(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  private scheduleRefresh(): void {
    this.refreshTimer ??= setTimeout(() => void this.refresh(), REFRESH_MS);
  }

  private render(): void {
    const status = this.sources.status();
    const health = trayHealth(status, this.counts);
    if (health !== this.health) this.view.setHealth(health);
    this.health = health;
    const texts = this.texts();
    this.view.setToolTip(trayTooltip(status, this.counts, texts));
    this.view.setMenu(trayMenu(status, this.counts, this.actions, texts));
  }
}

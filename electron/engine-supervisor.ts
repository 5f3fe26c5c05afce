// Keeps the engine host running: starts it, follows its state as DesktopEngineStatus, restarts it
// with a doubling backoff when it dies, and gives up after a crash loop (N crashes within a
// window) until restart() is asked for. A host that reports 'failed' (e.g. another engine holds
// the data dir) is not restarted: trying again would fail the same way.
import type { DesktopEngineStatus, EngineCrash } from '../engine/api/desktop-bridge.ts';
import type { DesktopAlert, HostMessage, TeamJoinOptions, TeamWorkerStatus } from '../engine/api/host-protocol.ts';
import type { EngineLauncher, EngineProcess } from './shell-surface.ts';

export interface SupervisorOptions {
  launch: EngineLauncher;
  /** the first restart's delay; each further crash within the window doubles it */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** this many crashes within crashWindowMs is a crash loop: give up */
  crashLimit?: number;
  crashWindowMs?: number;
  /** after a stop's drain, how long the host has to exit before it is killed */
  stopGraceMs?: number;
  now?: () => number;
}

/** How much of the host's stderr a crash keeps, for the UI. */
export const STDERR_TAIL_CHARS = 4096;

type Listener<T> = (value: T) => void;

export class EngineSupervisor {
  private readonly options: Required<SupervisorOptions>;
  private current: EngineProcess | undefined;
  private state: DesktopEngineStatus = { state: 'starting', attempt: 1 };
  private crashes: number[] = [];
  private lastCrash: EngineCrash | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private stopping: Promise<void> | undefined;
  /** the host being stopped by relaunch(): its exit is not a crash */
  private relaunching: EngineProcess | undefined;
  private readonly statusListeners = new Set<Listener<DesktopEngineStatus>>();
  private readonly processListeners = new Set<Listener<EngineProcess>>();
  private readonly goneListeners = new Set<Listener<EngineProcess>>();
  private readonly alertListeners = new Set<Listener<string>>();
  private readonly desktopAlertListeners = new Set<Listener<DesktopAlert>>();
  private team: TeamWorkerStatus = { state: 'left' };
  private readonly teamListeners = new Set<Listener<TeamWorkerStatus>>();

  constructor(options: SupervisorOptions) {
    this.options = {
      firstBackoffMs: 1_000,
      maxBackoffMs: 30_000,
      crashLimit: 5,
      crashWindowMs: 120_000,
      stopGraceMs: 10_000,
      now: Date.now,
      ...options,
    };
  }

  status(): DesktopEngineStatus {
    return this.state;
  }

  /** the live host process (starting or running), if any */
  process(): EngineProcess | undefined {
    return this.current;
  }

  onStatus(listener: Listener<DesktopEngineStatus>): () => void {
    return subscribe(this.statusListeners, listener);
  }

  /** a host process was started: clients may connect to it (its messages wait for 'ready') */
  onProcess(listener: Listener<EngineProcess>): () => void {
    return subscribe(this.processListeners, listener);
  }

  /** a host process ended */
  onProcessGone(listener: Listener<EngineProcess>): () => void {
    return subscribe(this.goneListeners, listener);
  }

  onAlert(listener: Listener<string>): () => void {
    return subscribe(this.alertListeners, listener);
  }

  /** alerts routed to the desktop channel: the shell's notifications */
  onDesktopAlert(listener: Listener<DesktopAlert>): () => void {
    return subscribe(this.desktopAlertListeners, listener);
  }

  /** the host's team worker (host-team.ts); 'left' while no host runs */
  teamStatus(): TeamWorkerStatus {
    return this.team;
  }

  onTeamStatus(listener: Listener<TeamWorkerStatus>): () => void {
    return subscribe(this.teamListeners, listener);
  }

  /** Asks the running host to join the team as a temporary worker; false when no host runs to ask. */
  joinTeam(options: TeamJoinOptions = {}): boolean {
    if (!this.current || this.stopping || this.state.state !== 'running') return false;
    this.current.postMessage({ type: 'team-join', ...options });
    return true;
  }

  /** Asks the host's team worker to drain and leave; false when no host runs to ask. */
  leaveTeam(drainTimeoutMs?: number): boolean {
    if (!this.current) return false;
    this.current.postMessage({ type: 'team-leave', ...(drainTimeoutMs !== undefined && { drainTimeoutMs }) });
    return true;
  }

  start(): void {
    if (this.current || this.stopping) return;
    this.launch();
  }

  /**
   * Start again with a clean crash history (the UI's "restart" after a crash loop or a failure);
   * a host that runs is left alone, with its history cleared.
   */
  restart(): void {
    if (this.stopping) return;
    this.crashes = [];
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (!this.current) this.launch();
  }

  /**
   * Stops the running host (its tasks get drainTimeoutMs to finish) and starts a new one, for a
   * setting the host reads at start (the local API). Not a crash: no backoff, nothing counted.
   */
  async relaunch(drainTimeoutMs: number): Promise<void> {
    if (this.stopping) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const proc = this.current;
    if (proc) {
      this.relaunching = proc;
      const exited = new Promise<void>((resolve) => proc.onExit(() => resolve()));
      proc.postMessage({ type: 'stop', drainTimeoutMs });
      const killer = setTimeout(() => proc.kill(), drainTimeoutMs + this.options.stopGraceMs);
      await exited;
      clearTimeout(killer);
    }
    if (!this.stopping && !this.current) this.launch();
  }

  /** Stops the host: running tasks get drainTimeoutMs to finish; resolves when it has exited. */
  stop(drainTimeoutMs: number): Promise<void> {
    this.stopping ??= (async () => {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.setStatus({ state: 'stopping' });
      const proc = this.current;
      if (!proc) return;
      const exited = new Promise<void>((resolve) => proc.onExit(() => resolve()));
      proc.postMessage({ type: 'stop', drainTimeoutMs });
      const killer = setTimeout(() => proc.kill(), drainTimeoutMs + this.options.stopGraceMs);
      await exited;
      clearTimeout(killer);
    })();
    return this.stopping;
  }

  private launch(): void {
    this.retryTimer = undefined;
    const attempt = this.crashes.length + 1;
    this.setStatus({ state: 'starting', attempt, ...(this.lastCrash && { lastCrash: this.lastCrash }) });
    let proc: EngineProcess;
    try {
      proc = this.options.launch();
    } catch (err) {
      // Nothing was started (e.g. the host's bundle is missing): trying again would do the same.
      return this.setStatus({
        state: 'failed',
        code: 'internal',
        message: err instanceof Error ? err.message : String(err),
      });
    }
    this.current = proc;
    let stderr = '';
    let failed: { code: string; message: string } | undefined;
    proc.onStderr((text) => (stderr = (stderr + text).slice(-STDERR_TAIL_CHARS)));
    proc.onMessage((raw) => {
      const message = raw as HostMessage | null;
      if (!message || typeof message !== 'object' || this.current !== proc) return;
      if (message.type === 'ready') {
        if (this.stopping) return;
        const { pid, dataDir, version, apiPort } = message;
        this.setStatus({ state: 'running', pid, dataDir, version, ...(apiPort !== undefined && { apiPort }) });
      } else if (message.type === 'failed') failed = { code: message.code, message: message.message };
      else if (message.type === 'alert') {
        for (const l of this.alertListeners) l(message.message);
        // A start that takes long says why (moving old log lines once): shown while it starts.
        if (this.state.state === 'starting' && !this.stopping) this.setStatus({ ...this.state, note: message.message });
      } else if (message.type === 'desktop-alert') for (const l of this.desktopAlertListeners) l(message.alert);
      else if (message.type === 'team') {
        const { type: _type, ...team } = message;
        this.setTeam(team);
      }
    });
    proc.onExit(({ code, signal }) => {
      if (this.current !== proc) return;
      this.current = undefined;
      // Its team worker went with it (a drain, or its heartbeat expires if the host crashed).
      if (this.team.state !== 'left') this.setTeam({ state: 'left' });
      for (const l of this.goneListeners) l(proc);
      if (this.relaunching === proc) {
        this.relaunching = undefined;
        return;
      }
      if (this.stopping) return;
      if (failed) return this.setStatus({ state: 'failed', ...failed });
      this.crashed({ code, signal, stderrTail: stderr, at: this.options.now() });
    });
    for (const l of this.processListeners) l(proc);
  }

  private crashed(crash: EngineCrash): void {
    this.lastCrash = crash;
    this.crashes = [...this.crashes.filter((at) => crash.at - at < this.options.crashWindowMs), crash.at];
    const count = this.crashes.length;
    if (count >= this.options.crashLimit)
      return this.setStatus({ state: 'gave-up', attempts: count, lastCrash: crash });
    const delay = Math.min(this.options.maxBackoffMs, this.options.firstBackoffMs * 2 ** (count - 1));
    this.setStatus({ state: 'restarting', attempt: count + 1, retryAt: crash.at + delay, lastCrash: crash });
    this.retryTimer = setTimeout(() => this.launch(), delay);
  }

  private setTeam(team: TeamWorkerStatus): void {
    this.team = team;
    for (const l of this.teamListeners) l(team);
  }

  private setStatus(status: DesktopEngineStatus): void {
    this.state = status;
    for (const l of this.statusListeners) l(status);
  }
}

function subscribe<T>(set: Set<Listener<T>>, listener: Listener<T>): () => void {
  set.add(listener);
  return () => set.delete(listener);
}

// Settings › Local API: whether the engine host also serves the HTTP + WebSocket API on
// 127.0.0.1 (its --local-api switch), so `ax` commands and scripts on this machine reach the
// app's engine. Off by default: the app itself talks over a MessagePort and needs no port.
// The choice is remembered in shell-state.json; changing it restarts the host (running tasks get
// DRAIN_MS to finish). Started with --local-api (npm start -- --local-api), it is on regardless.
import type { DesktopEngineStatus, DesktopLocalApiStatus } from '../engine/api/desktop-bridge.ts';
import type { ShellStateFile } from './shell-state.ts';

/** How long running tasks may finish when a change of the setting restarts the engine. */
export const LOCAL_API_DRAIN_MS = 30_000;

export interface LocalApiHost {
  status(): DesktopEngineStatus;
  relaunch(drainTimeoutMs: number): Promise<void>;
}

export class LocalApiSetting {
  constructor(
    private readonly state: ShellStateFile,
    /** the host arguments of the command line (hostOptionsFrom): --local-api[=PORT] if given */
    private readonly switchArgs: readonly string[],
    private readonly host: () => LocalApiHost,
  ) {}

  private get forced(): boolean {
    return this.switchArgs.some((a) => a === '--local-api' || a.startsWith('--local-api='));
  }

  /** The host's arguments for its next start. */
  args(): string[] {
    return this.forced || this.state.get().localApi !== true
      ? [...this.switchArgs]
      : [...this.switchArgs, '--local-api'];
  }

  status(): DesktopLocalApiStatus {
    const running = this.host().status();
    return {
      enabled: this.state.get().localApi === true,
      forcedBySwitch: this.forced,
      ...(running.state === 'running' && running.apiPort !== undefined && { port: running.apiPort }),
      ...(running.state === 'running' && { dataDir: running.dataDir }),
    };
  }

  /** Remembers the choice and restarts the host when that changes what it serves. */
  async set(enabled: boolean): Promise<DesktopLocalApiStatus> {
    const before = this.args().join(' ');
    this.state.update({ localApi: enabled });
    if (this.args().join(' ') !== before) await this.host().relaunch(LOCAL_API_DRAIN_MS);
    return this.status();
  }
}

// The engine host's second engine: this machine as a temporary worker of a team (design.md §6, §12),
// beside the solo engine, which keeps running and which the UI keeps talking to. It uses the team
// connection strings the desktop app handed the host at start (host-secrets.ts) and the Redis
// prefix of the data dir's settings (AX_REDIS_PREFIX, settings.json, else "ax:"). A temporary
// worker accepts only tasks whose labels are all among its own (default "laptop"), nothing
// unlabelled unless the person chose to (TeamJoinOptions). Its worker id is the team default for this data dir (host name plus a suffix).
//
// One join or leave at a time: a join while leaving waits for the leave, a leave while joining
// leaves once the join is done. Every change of state goes to the parent as a HostTeamStatus.
import { AxError } from '../../api/errors.ts';
import {
  DEFAULT_TEAM_LABELS,
  HOST_DRAIN_TIMEOUT_MS,
  type HostTeamStatus,
  type TeamJoinOptions,
} from '../../api/host-protocol.ts';
import type { Engine } from '../../core/engine.ts';
import { effectiveSettings, type Settings } from '../node/settings.ts';
import { openTeamEngine } from '../node/team.ts';

/** How often the running count of a joined worker is looked at (it is posted when it changes). */
const RUNNING_POLL_MS = 1_000;

export interface HostTeamOptions {
  /** the desktop app's connection strings as the host received them */
  secrets: Settings;
  dataDir: string;
  post(status: HostTeamStatus): void;
  onAlert(message: string): void;
}

type Open = typeof openTeamEngine;

export class HostTeam {
  private status: HostTeamStatus = { type: 'team', state: 'left' };
  private engine: Engine | undefined;
  /** the join or leave under way; the next waits for it */
  private busy: Promise<void> = Promise.resolve();
  private poll: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly options: HostTeamOptions,
    private readonly open: Open = openTeamEngine,
  ) {}

  current(): HostTeamStatus {
    return this.status;
  }

  join({ labels, acceptUnlabelled = false }: TeamJoinOptions = {}): Promise<void> {
    return this.queue(async () => {
      if (this.engine) return;
      const mysql = this.options.secrets.mysql;
      const redis = this.options.secrets.redis;
      if (!mysql || !redis) {
        const missing = [!mysql && 'MySQL', !redis && 'Redis'].filter(Boolean).join(' and ');
        return this.set({
          state: 'failed',
          message: `the engine has no ${missing} connection string: save both in the app's Settings, then restart the app (the engine reads them when it starts)`,
        });
      }
      const chosen = cleanLabels(labels);
      const policy = { labels: chosen, ...(acceptUnlabelled && { acceptUnlabelled }) };
      this.set({ state: 'joining', ...policy });
      let engine: Engine | undefined;
      try {
        const prefix =
          effectiveSettings(this.options.dataDir, {}).find((s) => s.key === 'redis-prefix')?.value ?? 'ax:';
        engine = await this.open({
          mysqlUrl: mysql,
          redisUrl: redis,
          redisPrefix: prefix,
          role: 'worker',
          temporary: true,
          labels: chosen,
          acceptUnlabelled,
          dataDir: this.options.dataDir,
          onAlert: (message) => this.options.onAlert(`team worker: ${message}`),
          // `ax drain` of this worker from anywhere in the team: leave as asked, tasks finish.
          onDrainRequested: () => void this.end(Number.POSITIVE_INFINITY, { state: 'left', drainedByTeam: true }),
          onIdentityLost: () =>
            void this.end(0, {
              state: 'failed',
              message: 'another node took this worker id (this one was judged lost): join again',
            }),
        });
        await engine.start();
      } catch (err) {
        await engine?.dispose().catch(() => undefined);
        const message = err instanceof Error ? err.message : String(err);
        const code = err instanceof AxError ? err.code : 'internal';
        return this.set({ state: 'failed', message: `could not join the team: ${message}`, code });
      }
      this.engine = engine;
      const workerId = engine.worker?.id;
      this.set({ state: 'joined', ...policy, running: 0, ...(workerId && { workerId }) });
      let looking = false;
      this.poll = setInterval(() => {
        // The team store's count, the one `ax workers` and the team's UI show (one source).
        const id = this.engine?.worker?.id;
        if (!this.engine || !id || looking) return;
        looking = true;
        void this.engine.store
          .runningCountByWorker()
          .then((counts) => {
            const running = counts.get(id) ?? 0;
            const { state } = this.status;
            if ((state === 'joined' || state === 'leaving') && running !== this.status.running)
              this.set({ ...this.status, running });
          })
          .catch(() => undefined)
          .finally(() => (looking = false));
      }, RUNNING_POLL_MS);
      this.poll.unref();
    });
  }

  /** Drain (running tasks get drainTimeoutMs), deregister, close. */
  leave(drainTimeoutMs = HOST_DRAIN_TIMEOUT_MS): Promise<void> {
    return this.end(drainTimeoutMs, { state: 'left' });
  }

  /** Leaves, then reports `outcome` (the worker id added). */
  private end(drainTimeoutMs: number, outcome: Omit<HostTeamStatus, 'type' | 'workerId'>): Promise<void> {
    return this.queue(async () => {
      const engine = this.engine;
      if (!engine) {
        if (this.status.state === 'failed') this.set({ state: 'left' });
        return;
      }
      const { workerId, labels, acceptUnlabelled, running } = this.status;
      // Its running count is still followed while it drains: the quit dialog counts those tasks.
      this.set({
        state: 'leaving',
        ...(workerId && { workerId }),
        ...(labels && { labels }),
        ...(acceptUnlabelled && { acceptUnlabelled }),
        ...(running !== undefined && { running }),
      });
      try {
        await engine.stop(drainTimeoutMs);
      } finally {
        if (this.poll) clearInterval(this.poll);
        this.poll = undefined;
        this.engine = undefined;
        await engine.dispose().catch(() => undefined);
      }
      this.set({ ...outcome, ...(workerId && { workerId }) });
    });
  }

  private queue(step: () => Promise<void>): Promise<void> {
    const next = this.busy.then(step).catch((err: unknown) => {
      this.set({ state: 'failed', message: err instanceof Error ? err.message : String(err) });
    });
    this.busy = next;
    return next;
  }

  private set(status: Omit<HostTeamStatus, 'type'>): void {
    this.status = { type: 'team', ...status };
    this.options.post(this.status);
  }
}

/** Labels as given (trimmed, no empties, no repeats), or the default when none are. */
export function cleanLabels(labels: unknown): string[] {
  const given = Array.isArray(labels)
    ? labels
        .filter((l): l is string => typeof l === 'string')
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
  return given.length > 0 ? [...new Set(given)] : [...DEFAULT_TEAM_LABELS];
}

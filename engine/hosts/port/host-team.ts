// The engine host's second engine: this machine as a temporary worker of a team (design.md §6, §12),
// beside the solo engine, which keeps running and which the UI keeps talking to. Two ways in, from
// the team connection the desktop app handed the host (host-secrets.ts):
// - through a team node's server with a worker token (an edge worker, hosts/node/edge-worker.ts):
//   the laptop holds no database credentials; its id and labels are the token's (the person may
//   offer fewer); a token revoked while joined ends the membership, saying so;
// - straight to the team's MySQL and Redis (a temporary worker, the data dir's Redis prefix:
//   AX_REDIS_PREFIX, settings.json, else "ax:"), for a machine the team trusts with them; its
//   worker id is the team default for this data dir (host name plus a suffix).
// Either accepts only tasks whose labels are all among its own (default "laptop"), nothing
// unlabelled unless the person chose to (TeamJoinOptions).
//
// One join or leave at a time: a join while leaving waits for the leave, a leave while joining
// leaves once the join is done. Every change of state goes to the parent as a HostTeamStatus.
import fs from 'node:fs';
import { AxError } from '../../api/errors.ts';
import { type TeamConnection, teamConnectionProblem } from '../../api/desktop-bridge.ts';
import {
  DEFAULT_TEAM_LABELS,
  HOST_DRAIN_TIMEOUT_MS,
  type HostTeamStatus,
  type TeamJoinOptions,
} from '../../api/host-protocol.ts';
import type { Engine } from '../../core/engine.ts';
import { openEdgeWorker } from '../node/edge-worker.ts';
import { effectiveSettings } from '../node/settings.ts';
import { openTeamEngine } from '../node/team.ts';

/** How often the running count of a joined worker is looked at (it is posted when it changes). */
const RUNNING_POLL_MS = 1_000;

export interface HostTeamOptions {
  /** the desktop app's team connection as the host received it (replaced by setConnection) */
  connection: TeamConnection;
  dataDir: string;
  post(status: HostTeamStatus): void;
  onAlert(message: string): void;
}

/** How long a join through a server waits for its first answer before it fails, saying why. */
export const EDGE_CONNECT_TIMEOUT_MS = 20_000;

/** A joined worker, of either kind: a team engine on the database, or an edge worker through a server. */
interface Member {
  workerId: string | undefined;
  labels: string[];
  running(): Promise<number>;
  /** drains (running tasks get drainMs), deregisters */
  stop(drainMs: number): Promise<void>;
  dispose(): Promise<void>;
}

type Open = typeof openTeamEngine;
type OpenEdge = typeof openEdgeWorker;

export class HostTeam {
  private status: HostTeamStatus = { type: 'team', state: 'left' };
  private member: Member | undefined;
  /** the join or leave under way; the next waits for it */
  private busy: Promise<void> = Promise.resolve();
  private poll: ReturnType<typeof setInterval> | undefined;
  private connection: TeamConnection;

  constructor(
    private readonly options: HostTeamOptions,
    private readonly open: Open = openTeamEngine,
    private readonly openEdge: OpenEdge = openEdgeWorker,
  ) {
    this.connection = options.connection;
  }

  current(): HostTeamStatus {
    return this.status;
  }

  /** The app's team connection changed: the next join uses it (a joined worker stays as it is). */
  setConnection(connection: TeamConnection): void {
    this.connection = connection;
  }

  join({ labels, acceptUnlabelled = false }: TeamJoinOptions = {}): Promise<void> {
    return this.queue(async () => {
      if (this.member) return;
      const c = this.connection;
      const missing = teamConnectionProblem(c);
      if (missing) return this.set({ state: 'failed', message: missing });
      const viaServer = c.server !== undefined && c.token !== undefined;
      // Through a server the token grants the labels: the person's only when they named some.
      const chosen = viaServer ? givenLabels(labels) : cleanLabels(labels);
      const policy = { ...(chosen && { labels: chosen }), ...(acceptUnlabelled && { acceptUnlabelled }) };
      this.set({ state: 'joining', ...policy, ...(viaServer && { server: c.server }) });
      let member: Member;
      try {
        member = viaServer
          ? await this.joinServer(c, chosen, acceptUnlabelled)
          : await this.joinDatabase(c, chosen ?? [...DEFAULT_TEAM_LABELS], acceptUnlabelled);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const code = err instanceof AxError ? err.code : 'internal';
        return this.set({ state: 'failed', message: `could not join the team: ${message}`, code });
      }
      this.member = member;
      const { workerId } = member;
      this.set({
        state: 'joined',
        labels: member.labels,
        ...(acceptUnlabelled && { acceptUnlabelled }),
        ...(viaServer && { server: c.server }),
        running: 0,
        ...(workerId && { workerId }),
      });
      let looking = false;
      this.poll = setInterval(() => {
        if (!this.member || looking) return;
        looking = true;
        void this.member
          .running()
          .then((running) => {
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

  /** A team engine on the team's MySQL and Redis (a worker role, temporary). */
  private async joinDatabase(c: TeamConnection, labels: string[], acceptUnlabelled: boolean): Promise<Member> {
    let engine: Engine | undefined;
    try {
      const prefix = effectiveSettings(this.options.dataDir, {}).find((s) => s.key === 'redis-prefix')?.value ?? 'ax:';
      engine = await this.open({
        mysqlUrl: c.mysql as string,
        redisUrl: c.redis as string,
        redisPrefix: prefix,
        role: 'worker',
        temporary: true,
        labels,
        acceptUnlabelled,
        dataDir: this.options.dataDir,
        onAlert: (message) => this.options.onAlert(`team worker: ${message}`),
        // `ax drain` of this worker from anywhere in the team: leave as asked, tasks finish.
        onDrainRequested: () => void this.end(Number.POSITIVE_INFINITY, { state: 'left', drainedByTeam: true }),
        onIdentityLost: () => void this.end(0, { state: 'failed', message: IDENTITY_LOST }),
      });
      await engine.start();
    } catch (err) {
      await engine?.dispose().catch(() => undefined);
      throw err;
    }
    const joined = engine;
    const workerId = joined.worker?.id;
    return {
      workerId,
      labels,
      // The team store's count, the one `ax workers` and the team's UI show (one source).
      running: async () => (workerId ? ((await joined.store.runningCountByWorker()).get(workerId) ?? 0) : 0),
      stop: (drainMs) => joined.stop(drainMs),
      dispose: () => joined.dispose(),
    };
  }

  /** An edge worker: only the server's URL and a worker token here, no database credentials. */
  private async joinServer(
    c: TeamConnection,
    labels: string[] | undefined,
    acceptUnlabelled: boolean,
  ): Promise<Member> {
    let ca: Buffer | undefined;
    if (c.caFile) {
      try {
        ca = fs.readFileSync(c.caFile);
      } catch (err) {
        throw new AxError(
          'validation',
          `cannot read the CA certificate ${c.caFile} (${(err as NodeJS.ErrnoException).code ?? String(err)}): fix the path in Settings → Team`,
        );
      }
    }
    const edge = await this.openEdge({
      server: c.server as string,
      token: c.token as string,
      ...(ca && { ca }),
      ...(labels && { labels }),
      acceptUnlabelled,
      dataDir: this.options.dataDir,
      connectTimeoutMs: EDGE_CONNECT_TIMEOUT_MS,
      onAlert: (message) => this.options.onAlert(`team worker: ${message}`),
      onDrainRequested: () => void this.end(Number.POSITIVE_INFINITY, { state: 'left', drainedByTeam: true }),
      onIdentityLost: () => void this.end(0, { state: 'failed', message: IDENTITY_LOST }),
      // a token revoked or expired while joined: out of the team, saying so
      onRefused: (message) =>
        void this.end(0, { state: 'failed', message: `the team's server refused this worker: ${message}` }),
    });
    try {
      await edge.start();
    } catch (err) {
      await edge.stop(0).catch(() => undefined);
      throw err;
    }
    return {
      workerId: edge.welcome.workerId,
      labels: edge.welcome.labels,
      running: () => Promise.resolve(edge.worker.record().running),
      stop: (drainMs) => edge.stop(drainMs),
      dispose: () => Promise.resolve(),
    };
  }

  /** Drain (running tasks get drainTimeoutMs), deregister, close. */
  leave(drainTimeoutMs = HOST_DRAIN_TIMEOUT_MS): Promise<void> {
    return this.end(drainTimeoutMs, { state: 'left' });
  }

  /** Leaves, then reports `outcome` (the worker id added). */
  private end(drainTimeoutMs: number, outcome: Omit<HostTeamStatus, 'type' | 'workerId'>): Promise<void> {
    return this.queue(async () => {
      const member = this.member;
      if (!member) {
        if (this.status.state === 'failed') this.set({ state: 'left' });
        return;
      }
      const { workerId, labels, acceptUnlabelled, running, server } = this.status;
      // Its running count is still followed while it drains: the quit dialog counts those tasks.
      this.set({
        state: 'leaving',
        ...(workerId && { workerId }),
        ...(labels && { labels }),
        ...(acceptUnlabelled && { acceptUnlabelled }),
        ...(server && { server }),
        ...(running !== undefined && { running }),
      });
      try {
        await member.stop(drainTimeoutMs);
      } finally {
        if (this.poll) clearInterval(this.poll);
        this.poll = undefined;
        this.member = undefined;
        await member.dispose().catch(() => undefined);
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

const IDENTITY_LOST = 'another node took this worker id (this one was judged lost): join again';

/** Labels as given (trimmed, no empties, no repeats), or undefined when none are. */
export function givenLabels(labels: unknown): string[] | undefined {
  const given = Array.isArray(labels)
    ? labels
        .filter((l): l is string => typeof l === 'string')
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
  return given.length > 0 ? [...new Set(given)] : undefined;
}

/** Labels as given (trimmed, no empties, no repeats), or the default when none are. */
export function cleanLabels(labels: unknown): string[] {
  return givenLabels(labels) ?? [...DEFAULT_TEAM_LABELS];
}

// This laptop as a temporary worker of the team (design.md §6): the tray's and the settings page's
// "Join team as worker" / "Leave team", carried out by the engine host (host-team.ts) through the
// supervisor. The person's wish is remembered (shell-state.json): after a restart of the app or of
// the engine host, a laptop that was joined joins again once the engine runs. Leaving forgets it.
//
// Sleep: on powerMonitor 'suspend' a joined worker leaves at once (takes nothing new; what runs
// finishes, if need be after the wake, within the drain time) so that the team stops routing
// tasks to a machine about to sleep; on 'resume' it joins again if the person still wants it.
// Rejoining is the choice because the person never asked to leave: the sleep did. A drain asked
// by the team (`ax drain WORKER`) is a leave, and forgets the wish like the person's.
import type { TeamJoinOptions, TeamWorkerStatus } from '../engine/api/host-protocol.ts';
import type { DesktopEngineStatus } from '../engine/api/desktop-bridge.ts';
import type { ShellState } from './shell-state.ts';

/** How long a leave (the person's, or before sleep) lets the worker's running tasks finish. */
export const TEAM_LEAVE_DRAIN_MS = 30_000;

/** Electron's powerMonitor, as far as this module uses it. */
export interface SuspendMonitor {
  on(event: 'suspend' | 'resume', listener: () => void): unknown;
}

export interface TeamHost {
  status(): DesktopEngineStatus;
  onStatus(listener: (status: DesktopEngineStatus) => void): () => void;
  teamStatus(): TeamWorkerStatus;
  onTeamStatus(listener: (status: TeamWorkerStatus) => void): () => void;
  joinTeam(options?: TeamJoinOptions): boolean;
  leaveTeam(drainTimeoutMs?: number): boolean;
}

export interface TeamMembershipDeps {
  host: TeamHost;
  /** a server address and a worker token, or both database connection strings, are saved (secret-store.ts) */
  hasConnection(): boolean;
  state: { get(): Readonly<ShellState>; update(patch: ShellState): void };
}

export class TeamMembership {
  private sleeping = false;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly deps: TeamMembershipDeps) {
    deps.host.onStatus((status) => {
      // A host that (re)starts has no team worker: join it again if that is the wish.
      if (status.state === 'running' && this.wanted() && !this.sleeping) this.ask();
      this.changed();
    });
    deps.host.onTeamStatus((status) => {
      // The team drained this worker (`ax drain`): a wake or a restart must not bring it back.
      if (status.state === 'left' && status.drainedByTeam) deps.state.update({ teamJoined: false });
      this.changed();
    });
  }

  /** what the tray and the settings page show */
  status(): TeamWorkerStatus {
    return this.deps.host.teamStatus();
  }

  canJoin(): boolean {
    return this.deps.hasConnection();
  }

  /** whether the person asked to be in the team (remembered across restarts) */
  wanted(): boolean {
    return this.deps.state.get().teamJoined === true;
  }

  /**
   * The person joins; labels and whether unlabelled tasks are taken replace the remembered ones
   * when given (the tray's Join gives neither). False: nothing to join with, or no engine runs.
   */
  join(labels?: string[], acceptUnlabelled?: boolean): boolean {
    if (!this.canJoin()) return false;
    this.deps.state.update({
      teamJoined: true,
      ...(labels && labels.length > 0 && { teamLabels: labels }),
      ...(acceptUnlabelled !== undefined && { teamAcceptUnlabelled: acceptUnlabelled }),
    });
    this.changed();
    return this.ask();
  }

  /** The person leaves: the worker drains and deregisters; the wish is forgotten. */
  leave(): void {
    this.deps.state.update({ teamJoined: false });
    this.deps.host.leaveTeam(TEAM_LEAVE_DRAIN_MS);
    this.changed();
  }

  /** Follows the machine's sleep and wake (see the top of this file). */
  followPower(power: SuspendMonitor): void {
    power.on('suspend', () => {
      this.sleeping = true;
      const state = this.status().state;
      if (state === 'joined' || state === 'joining') this.deps.host.leaveTeam(TEAM_LEAVE_DRAIN_MS);
    });
    power.on('resume', () => {
      this.sleeping = false;
      if (this.wanted() && this.deps.host.status().state === 'running') this.ask();
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private ask(): boolean {
    if (!this.canJoin()) return false;
    const { teamLabels: labels, teamAcceptUnlabelled } = this.deps.state.get();
    return this.deps.host.joinTeam({
      ...(labels && labels.length > 0 && { labels: [...labels] }),
      ...(teamAcceptUnlabelled === true && { acceptUnlabelled: true }),
    });
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

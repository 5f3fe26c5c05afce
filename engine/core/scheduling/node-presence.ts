// A scheduler node announces itself in the coordinator, so that `ax workers` lists schedulers that
// run no tasks and can mark the one holding the leader lease. It beats on its own timer, like the
// worker heartbeat, never behind the scheduler's tick. Only a listing reads it: dispatch, routing
// and fail-over see workers alone (Coordinator.listWorkers).
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator, NodePresence } from '../../ports/coordinator.ts';
import { repeat } from '../support/repeat.ts';

/**
 * The presence outlives the lost threshold (3 beats) fourfold, so a scheduler that died without
 * a goodbye is listed as lost for a while before it drops out; one that stops cleanly leaves at once.
 */
export const NODE_PRESENCE_BEATS = 12;

export class NodePresenceBeat {
  private cancel: (() => void) | undefined;
  private beating: Promise<void> | undefined;
  private readonly startedAt: number;

  constructor(
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    private readonly heartbeatMs: number,
    private readonly node: Omit<NodePresence, 'startedAt' | 'lastHeartbeat'>,
  ) {
    this.startedAt = clock.now();
  }

  async start(): Promise<void> {
    await this.beat();
    // A missed beat is no news of its own: Redis away is said by the worker heartbeat and the
    // scheduler's tick; the listing just shows this node's heartbeat growing old.
    this.cancel = repeat(this.clock, this.heartbeatMs, () => this.beat(), {
      cadence: 'fixed',
      onError: () => undefined,
    });
  }

  /** Leaves the listing; a beat still under way must not bring it back. */
  async stop(): Promise<void> {
    this.cancel?.();
    this.cancel = undefined;
    await this.beating?.catch(() => undefined);
    await this.coordinator.removeNode(this.node.nodeId);
  }

  private beat(): Promise<void> {
    const presence: NodePresence = { ...this.node, startedAt: this.startedAt, lastHeartbeat: this.clock.now() };
    const beat = this.coordinator.heartbeatNode(presence, NODE_PRESENCE_BEATS * this.heartbeatMs);
    this.beating = beat;
    return beat;
  }
}

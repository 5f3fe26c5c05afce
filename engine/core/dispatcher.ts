// Hands WAITING instances to workers: routing by labels and accept-policy, a worker's load taken
// from the database (DISPATCHED + RUNNING), a compare-and-set to DISPATCHED, then the queue.
import type { InstanceRecord, RoutingStrategy, WorkerRecord } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type { Store } from '../ports/store.ts';
import { type Router, type WorkerCandidate, whyNoWorker } from './routing.ts';
import type { WorkflowCache } from './workflow-cache.ts';

export interface DispatcherOptions {
  staleAfterMs: number;
  queueAlertThreshold: number;
  batch: number;
}

function candidate(w: WorkerRecord, running: number): WorkerCandidate {
  return {
    id: w.id,
    running,
    maxConcurrency: w.maxConcurrency,
    lastHeartbeat: w.lastHeartbeat,
    status: w.status,
    policy: { labels: w.labels, workflows: w.acceptWorkflows, acceptUnlabelled: w.acceptUnlabelled },
  };
}

export class Dispatcher {
  private pass: Promise<void> | undefined;
  private again = false;
  private lastAlertAt = 0;

  constructor(
    private readonly store: Store,
    private readonly coordinator: Coordinator,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly router: Router,
    private readonly options: DispatcherOptions,
    private readonly onDispatched: (instanceId: number, taskName: string, runId: number, attempt: number) => void,
  ) {}

  /** Runs a dispatch pass now, or right after the one under way; passes never overlap. */
  kick(): Promise<void> {
    if (this.pass) {
      this.again = true;
      return this.pass;
    }
    this.pass = (async () => {
      try {
        do {
          this.again = false;
          await this.dispatchDue();
        } while (this.again);
      } finally {
        this.pass = undefined;
      }
    })();
    return this.pass;
  }

  /**
   * One pass over the due instances, a page at a time, until no worker has room or none is left.
   * The pages follow a cursor rather than re-reading the head: a full page of instances that no
   * worker can take (say, labelled for a worker that is offline) must not hide those behind it.
   */
  private async dispatchDue(): Promise<void> {
    const now = this.clock.now();
    const workers = await this.coordinator.listWorkers();
    // A drain request takes effect at once (SPEC §6): the worker sees it only at its next
    // heartbeat, up to an interval later, and must not be handed new work meanwhile.
    const draining = await Promise.all(workers.map((w) => (w.status === 'online' ? this.coordinator.drainRequested(w.id) : false)));
    const load = await this.store.activeCountByWorker();
    const candidates = workers.map((w, i) => candidate(draining[i] ? { ...w, status: 'draining' } : w, load.get(w.id) ?? 0));
    const live = candidates.filter((w) => w.status === 'online' && now - w.lastHeartbeat < this.options.staleAfterMs);
    const room = () => live.some((w) => w.running < w.maxConcurrency);
    if (live.length === 0) {
      // Nobody to dispatch to: say so on the head of the line, so `ax runs` explains the wait.
      await this.place(await this.store.dueWaiting(now, 50), candidates, now, () => true);
    }
    let after: { notBefore: number; id: number } | undefined;
    // No worker with a free slot: nothing to read (every finished task kicks a pass).
    while (room()) {
      const due = await this.store.dueWaiting(now, this.options.batch, after);
      await this.place(due, candidates, now, room);
      const last = due[due.length - 1];
      if (!last || due.length < this.options.batch || !room()) break;
      after = { notBefore: last.notBefore, id: last.id };
    }
    await this.checkQueues(workers, now);
  }

  private async place(due: InstanceRecord[], candidates: WorkerCandidate[], now: number, room: () => boolean): Promise<void> {
    for (const inst of due) {
      const wf = await this.workflows.get(inst.workflowId);
      const task = wf?.tasks.get(inst.taskId);
      if (!wf || !task) {
        await this.store.transitionInstance(inst.id, { from: ['WAITING'], attempt: inst.attempt }, 'CANCELLED', {
          reason: 'the task was removed from its workflow',
          finishedAt: now,
        });
        continue;
      }
      const routable = { workflowName: wf.graph.name, labels: task.labels };
      const strategy: RoutingStrategy = wf.graph.routing;
      const worker = this.router.pick(strategy, routable, candidates, now, this.options.staleAfterMs);
      if (!worker) {
        // Every slot is taken: the rest simply wait their turn; a reason is for tasks nobody can take.
        if (!room()) return;
        const reason = `waiting: ${whyNoWorker(routable, candidates, now, this.options.staleAfterMs)}`;
        if (inst.reason !== reason) {
          await this.store.transitionInstance(inst.id, { from: ['WAITING'], attempt: inst.attempt }, undefined, { reason });
        }
        continue;
      }
      const ok = await this.store.transitionInstance(inst.id, { from: ['WAITING'], attempt: inst.attempt }, 'DISPATCHED', {
        workerId: worker.id,
        dispatchedAt: now,
      });
      if (!ok) continue;
      worker.running += 1;
      await this.coordinator.enqueue(worker.id, { instanceId: inst.id, attempt: inst.attempt, workerId: worker.id, dispatchedAt: now });
      this.onDispatched(inst.id, inst.taskName, inst.runId, inst.attempt);
    }
  }

  private async checkQueues(workers: WorkerRecord[], now: number): Promise<void> {
    if (now - this.lastAlertAt < 60_000) return;
    for (const w of workers) {
      const length = await this.coordinator.queueLength(w.id);
      if (length > this.options.queueAlertThreshold) {
        this.lastAlertAt = now;
        await this.coordinator.publish({
          type: 'alert',
          message: `worker ${w.id} has ${length} queued instances (threshold ${this.options.queueAlertThreshold}): workers cannot keep up`,
          at: now,
        });
      }
    }
  }
}

// Hands WAITING instances to workers: routing by labels and accept-policy, a worker's load taken
// from the database (DISPATCHED + RUNNING), the store's claim-due-instances (WAITING →
// DISPATCHED within the worker's free slots, fenced), then the queue.
import { because } from '../../api/reasons.ts';
import type { InstanceRecord, RoutingStrategy, WorkerRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { InstanceStore, TaskDefinition } from '../../ports/store.ts';
import type { LeaderLease } from '../scheduling/leader-lease.ts';
import { type Router, type WorkerCandidate, whyNoWorker } from '../model/routing.ts';
import type { RunManager } from '../runs/run-manager.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

/**
 * How many due instances a pass reads per free slot: enough that a few the router cannot place
 * (labels, accept-policy) do not starve the slots, few enough that a long queue is not read
 * to place one task.
 */
const READ_FACTOR = 2;

/** How often a pass with no live worker at all writes why the head of the line waits. */
const REASONS_EVERY_MS = 1_000;

/**
 * How often a pass looks at the workers' queue lengths (the queue_long rule): a busy leader
 * passes once or more per finished task, and asked Redis every worker's length each time.
 */
const QUEUES_EVERY_MS = 1_000;

export interface DispatcherOptions {
  staleAfterMs: number;
  queueAlertThreshold: number;
  batch: number;
  /** a worker's queue is past the threshold (the `queue_long` alert rule) */
  onQueueLong?: (worker: string, length: number, threshold: number) => void;
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
  private lastReasonsAt = Number.NEGATIVE_INFINITY;
  private lastQueuesAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: InstanceStore,
    private readonly coordinator: Coordinator,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    private readonly router: Router,
    private readonly options: DispatcherOptions,
    private readonly onDispatched: (instanceId: number, taskName: string, runId: number, attempt: number) => void,
    /** ends an instance that can never run, with its follow-ups (RunManager.finish) */
    private readonly finish: RunManager['finish'],
    /** only the lease's holder dispatches on a wake-up */
    private readonly lease: Pick<LeaderLease, 'isLeader'>,
    private readonly alert: (message: string) => void,
    /** a `call:` task's due instance: it starts its child run here, on no worker (RunManager.calls.start) */
    private readonly startCall?: (inst: InstanceRecord, task: TaskDefinition) => Promise<void>,
  ) {}

  /**
   * The dispatch wake-up every part of this process calls when it made work or freed a slot (new
   * WAITING instances, a retry's backoff over, a redispatch, an outcome recorded): a pass in the
   * background, by the leader only — one dispatcher per team (and should two overlap at a
   * hand-over, the store's claims still hold each worker to its limit). A failed pass (store or
   * Redis away) is an alert; the next tick tries again.
   */
  wake(): void {
    if (!this.lease.isLeader) return;
    void this.runPass().catch((err: unknown) =>
      this.alert(`dispatch: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  /** Runs a dispatch pass now, or right after the one under way; passes never overlap. */
  runPass(): Promise<void> {
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
   * One pass: reads only what the workers can take (free slots × READ_FACTOR due instances, by
   * the (state, not_before) index), routes them in memory and claims each worker's share in one
   * fenced store step that re-checks the worker's limit, so two dispatchers racing (a lease
   * hand-over) still never take a worker past it. Further pages follow a cursor rather than
   * re-reading the head: a page of instances no worker can take (say, labelled for a worker
   * that is offline) must not hide those behind it; each further page is twice the last.
   */
  private async dispatchDue(): Promise<void> {
    const now = this.clock.now();
    const workers = await this.coordinator.listWorkers();
    // A drain request takes effect at once (design.md §6): the worker sees it only at its next
    // heartbeat, up to an interval later, and must not be handed new work meanwhile.
    const draining = await Promise.all(
      workers.map((w) => (w.status === 'online' ? this.coordinator.drainRequested(w.id) : false)),
    );
    const load = await this.store.activeCountByWorker();
    const candidates = workers.map((w, i) =>
      candidate(draining[i] ? { ...w, status: 'draining' } : w, load.get(w.id) ?? 0),
    );
    const live = candidates.filter((w) => w.status === 'online' && now - w.lastHeartbeat < this.options.staleAfterMs);
    const free = () => live.reduce((n, w) => n + Math.max(0, w.maxConcurrency - w.running), 0);
    if (live.length === 0 && now - this.lastReasonsAt >= REASONS_EVERY_MS) {
      // Nobody to dispatch to: say so on the head of the line, so `ax runs` explains the wait;
      // at most once a second, not on every event while no worker is registered.
      this.lastReasonsAt = now;
      await this.place(await this.store.dueWaiting(now, 50), candidates, now, () => true);
    }
    let after: { notBefore: number; id: number } | undefined;
    let limit = 0;
    // No worker with a free slot: nothing to read (every finished task wakes the dispatcher).
    while (free() > 0) {
      limit = Math.min(this.options.batch, Math.max(limit * 2, free() * READ_FACTOR));
      const due = await this.store.dueWaiting(now, limit, after);
      await this.place(due, candidates, now, () => free() > 0);
      const last = due[due.length - 1];
      if (!last || due.length < limit) break;
      after = { notBefore: last.notBefore, id: last.id };
    }
    await this.checkQueues(workers, now);
  }

  /** Routes a page in memory, then claims each worker's share in one store step. */
  private async place(
    due: InstanceRecord[],
    candidates: WorkerCandidate[],
    now: number,
    room: () => boolean,
  ): Promise<void> {
    const routed = new Map<WorkerCandidate, InstanceRecord[]>();
    for (const inst of due) {
      const wf = await this.workflows.get(inst.workflowId);
      const task = wf?.tasks.get(inst.taskId);
      if (!wf || !task) {
        await this.finish(inst, { from: ['WAITING'], attempt: inst.attempt }, 'CANCELLED', {
          ...because('task_removed'),
          finishedAt: now,
        });
        continue;
      }
      if (task.call && this.startCall) {
        // One call that cannot start (the store away) must not hold up the page: said, tried next pass.
        await this.startCall(inst, task).catch((err: unknown) =>
          this.alert(
            `call ${inst.taskName} (instance ${inst.id}): ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
        continue;
      }
      const routable = { workflowName: wf.graph.name, labels: task.labels };
      const strategy: RoutingStrategy = wf.graph.routing;
      const worker = this.router.pick(strategy, routable, candidates, now, this.options.staleAfterMs);
      if (!worker) {
        // Every slot is taken: the rest simply wait their turn; a reason is for tasks nobody can take.
        if (!room()) break;
        const why = whyNoWorker(routable, candidates, now, this.options.staleAfterMs);
        if (inst.reason !== why.reason) {
          await this.store.setWaitingReason(inst.id, inst.attempt, why.reason, why.reasonCode);
        }
        continue;
      }
      // Counted as taken now, so routing the rest of the page sees it; corrected by the claim.
      worker.running += 1;
      const share = routed.get(worker);
      if (share) share.push(inst);
      else routed.set(worker, [inst]);
    }
    for (const [worker, share] of routed) {
      const claimed = new Set(
        await this.store.claimDueInstances(
          worker.id,
          share.map((i) => ({ id: i.id, attempt: i.attempt })),
          now,
        ),
      );
      // Some not claimed: taken by another dispatcher, or the worker is fuller than its load
      // said. Either way give it nothing more this pass (the next pass reads its load afresh)
      // rather than page through the queue offering it more.
      if (claimed.size < share.length) worker.running = Math.max(worker.running, worker.maxConcurrency);
      // Asked for together, in the share's order (one connection keeps it), so they travel
      // together rather than one round trip each. One that failed leaves its instance DISPATCHED
      // with no message: the redispatch rule sends it again.
      const sent = share.filter((inst) => claimed.has(inst.id));
      const enqueued = await Promise.allSettled(
        sent.map((inst) =>
          this.coordinator.enqueue(worker.id, {
            instanceId: inst.id,
            attempt: inst.attempt,
            workerId: worker.id,
            dispatchedAt: now,
          }),
        ),
      );
      let failed: PromiseRejectedResult | undefined;
      enqueued.forEach((e, i) => {
        const inst = sent[i] as InstanceRecord;
        if (e.status === 'fulfilled') this.onDispatched(inst.id, inst.taskName, inst.runId, inst.attempt);
        else failed ??= e;
      });
      if (failed) throw failed.reason;
    }
  }

  private async checkQueues(workers: WorkerRecord[], now: number): Promise<void> {
    if (now - this.lastAlertAt < 60_000 || now - this.lastQueuesAt < QUEUES_EVERY_MS) return;
    this.lastQueuesAt = now;
    for (const w of workers) {
      const length = await this.coordinator.queueLength(w.id);
      if (length > this.options.queueAlertThreshold) {
        this.lastAlertAt = now;
        this.options.onQueueLong?.(w.id, length, this.options.queueAlertThreshold);
        await this.coordinator.publish({
          type: 'alert',
          message: `worker ${w.id} has ${length} queued instances (threshold ${this.options.queueAlertThreshold}): workers cannot keep up`,
          at: now,
        });
      }
    }
  }
}

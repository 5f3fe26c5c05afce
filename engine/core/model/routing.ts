// Which worker gets a task (design.md §6): only online, fresh, non-full workers whose accept-policy
// matches qualify; the workflow's strategy picks among them.
import { because, type Reason } from '../../api/reasons.ts';
import type { RoutingStrategy } from '../../api/types.ts';

export interface AcceptPolicy {
  /** labels this worker offers; a task qualifies only if all its labels are among them */
  labels: string[];
  /** if given, only these workflows' tasks */
  workflows?: string[];
  /** whether tasks without labels qualify (a laptop usually says no) */
  acceptUnlabelled: boolean;
}

export interface RoutableTask {
  workflowName: string;
  labels: string[];
}

export interface WorkerCandidate {
  id: string;
  running: number;
  maxConcurrency: number;
  lastHeartbeat: number;
  status: string;
  policy: AcceptPolicy;
}

export function accepts(policy: AcceptPolicy, task: RoutableTask): boolean {
  if (policy.workflows && !policy.workflows.includes(task.workflowName)) return false;
  if (task.labels.length === 0) return policy.acceptUnlabelled;
  return task.labels.every((label) => policy.labels.includes(label));
}

function isLive(w: WorkerCandidate, now: number, staleAfterMs: number): boolean {
  return w.status === 'online' && now - w.lastHeartbeat < staleAfterMs;
}

function byId(a: WorkerCandidate, b: WorkerCandidate): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function qualifying(
  task: RoutableTask,
  workers: WorkerCandidate[],
  now: number,
  staleAfterMs: number,
): WorkerCandidate[] {
  return workers
    .filter((w) => isLive(w, now, staleAfterMs) && w.running < w.maxConcurrency && accepts(w.policy, task))
    .sort(byId);
}

export class Router {
  /**
   * round_robin cursors: the id last picked, per task requirement (workflow + labels). Keyed so
   * that tasks which only one worker can take do not skew the rotation of tasks any worker can
   * take; an id rather than an index so workers joining or leaving do not reset the rotation.
   */
  private readonly lastPicked = new Map<string, string>();

  /** random: the host's randomness (in [0, 1)) for the `random` strategy */
  constructor(private readonly random: () => number) {}

  pick(
    strategy: RoutingStrategy,
    task: RoutableTask,
    workers: WorkerCandidate[],
    now: number,
    staleAfterMs: number,
  ): WorkerCandidate | undefined {
    const ready = qualifying(task, workers, now, staleAfterMs);
    if (ready.length === 0) return undefined;
    switch (strategy) {
      case 'random': {
        const index = Math.min(ready.length - 1, Math.floor(this.random() * ready.length));
        return ready[Math.max(0, index)];
      }
      case 'least_busy':
        // Compare running/max by cross-multiplying: exact, and ties fall back to the id order.
        return ready.reduce((best, w) =>
          w.running * best.maxConcurrency < best.running * w.maxConcurrency ? w : best,
        );
      case 'round_robin': {
        const key = `${task.workflowName}\u0000${[...task.labels].sort().join('\u0000')}`;
        const last = this.lastPicked.get(key);
        const next = (last === undefined ? undefined : ready.find((w) => w.id > last)) ?? (ready[0] as WorkerCandidate);
        this.lastPicked.set(key, next.id);
        return next;
      }
    }
  }
}

function labelList(labels: string[]): string {
  return `[${labels.join(', ')}]`;
}

/** whole seconds, in ms (the reason's `seconds` argument) */
const wholeSeconds = (ms: number): number => Math.round(ms / 1000) * 1000;

/** Why `pick` found nobody, in words a user can act on. */
export function whyNoWorker(task: RoutableTask, workers: WorkerCandidate[], now: number, staleAfterMs: number): Reason {
  if (workers.length === 0) return because('no_worker_registered');
  const online = workers.filter((w) => w.status === 'online');
  if (online.length === 0) {
    const states = [...new Set(workers.map((w) => w.status))].sort().join(', ');
    return workers.length === 1
      ? because('lone_worker_offline', { states })
      : because('no_worker_online', { workers: workers.length, states });
  }
  const live = online.filter((w) => isLive(w, now, staleAfterMs));
  if (live.length === 0) {
    const newest = Math.max(...online.map((w) => w.lastHeartbeat));
    return because('workers_stale', { age: wholeSeconds(now - newest), limit: wholeSeconds(staleAfterMs) });
  }
  const forWorkflow = live.filter((w) => !w.policy.workflows || w.policy.workflows.includes(task.workflowName));
  if (forWorkflow.length === 0) return because('no_worker_for_workflow', { workflow: task.workflowName });
  const accepting = forWorkflow.filter((w) => accepts(w.policy, task));
  if (accepting.length === 0) {
    return task.labels.length > 0
      ? because('no_worker_for_labels', { labels: labelList(task.labels) })
      : because('no_worker_for_unlabelled');
  }
  const free = accepting.filter((w) => w.running < w.maxConcurrency);
  if (free.length === 0 && accepting.length === 1)
    return because('only_worker_busy', { worker: (accepting[0] as WorkerCandidate).id });
  if (free.length === 0) return because('all_workers_busy', { workers: accepting.length });
  return because('worker_can_take', { worker: (free.sort(byId)[0] as WorkerCandidate).id });
}

// A run's life: creating it (with the overlap policy), advancing dependencies event by event,
// retries, failing downstream, and deriving the run's state from its instances.
import { AxError } from '../api/errors.ts';
import type { InstanceRecord, InstanceState, RunRecord, RunState } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import { instanceEvent } from './events.ts';
import type { NewRun, Store, TaskDefinition } from '../ports/store.ts';
import { retryDelay } from './backoff.ts';
import { FAILOVER_PREFIX, MAX_FAILOVERS } from './backstops.ts';
import { type CachedWorkflow, downstreamClosure, type WorkflowCache } from './workflow-cache.ts';

/** What a trigger says about a run; the state and times are the RunManager's to decide. */
export type StartRunInput = Pick<NewRun, 'workflowId' | 'trigger' | 'triggeredBy' | 'logicalTime' | 'scheduleId' | 'onlyTask' | 'eventPayload'> & {
  /** manual runs ignore the overlap policy: a person asked for this run */
  applyOverlap: boolean;
};

const FAILED_STATES: InstanceState[] = ['FAILED', 'TIMEOUT'];

export class RunManager {
  constructor(
    private readonly store: Store,
    private readonly coordinator: Coordinator,
    private readonly workflows: WorkflowCache,
    private readonly clock: Clock,
    /** called when new WAITING instances exist */
    private readonly onWaiting: () => void,
  ) {}

  /** Creates the run, or returns undefined when this cron fire already has one. */
  async startRun(input: StartRunInput): Promise<RunRecord | undefined> {
    const wf = await this.workflows.get(input.workflowId);
    if (!wf) throw new AxError('not_found', `workflow ${input.workflowId} no longer exists`);
    if (input.onlyTask && !wf.byName.has(input.onlyTask)) {
      throw new AxError('not_found', `workflow "${wf.graph.name}" has no task "${input.onlyTask}": tasks are ${[...wf.byName.keys()].join(', ')}`);
    }
    const now = this.clock.now();
    let state: RunState = 'RUNNING';
    let reason: string | undefined;
    const overlap = wf.graph.schedule?.overlap ?? 'skip';
    if (input.applyOverlap && overlap !== 'parallel') {
      const active = await this.store.listRuns({ workflowName: wf.graph.name, states: ['RUNNING', 'QUEUED'], limit: 1 });
      if (active[0]) {
        state = overlap === 'queue' ? 'QUEUED' : 'SKIPPED';
        reason = `run #${active[0].id} was still ${active[0].state.toLowerCase()} (overlap policy: ${overlap})`;
      }
    }
    const run = await this.store.createRun({
      workflowId: wf.graph.id,
      state,
      trigger: input.trigger,
      triggeredBy: input.triggeredBy,
      logicalTime: input.logicalTime,
      scheduleId: input.scheduleId,
      onlyTask: input.onlyTask,
      eventPayload: input.eventPayload,
      reason,
      createdAt: now,
    });
    if (!run) return undefined;
    await this.publishRun(run);
    if (state === 'RUNNING') await this.createRoots(run, wf);
    return run;
  }

  /** A RUNNING run with no instances (the engine died right after creating it) starts again. */
  async resumeRun(run: RunRecord): Promise<void> {
    const wf = await this.workflows.get(run.workflowId);
    if (wf) await this.createRoots(run, wf);
  }

  private async createRoots(run: RunRecord, wf: CachedWorkflow): Promise<void> {
    const tasks = run.onlyTask ? [wf.byName.get(run.onlyTask) as TaskDefinition] : wf.roots;
    for (const t of tasks) await this.createWaiting(run, t, 1, this.clock.now());
    this.onWaiting();
  }

  private async createWaiting(run: RunRecord, task: TaskDefinition, attempt: number, notBefore: number): Promise<void> {
    const inst = await this.store.createInstance({
      runId: run.id,
      workflowId: run.workflowId,
      taskId: task.id,
      taskName: task.name,
      attempt,
      state: 'WAITING',
      notBefore,
      createdAt: this.clock.now(),
    });
    if (inst) await this.publishInstance(inst);
  }

  /**
   * Reacts to an instance's final state: retry, advance downstream (O(downstream)), or fail the
   * downstream; then settles the run. Idempotent: instance creation is keyed by (run, task,
   * attempt), so a re-delivered event creates nothing twice.
   */
  async handleFinished(inst: InstanceRecord): Promise<void> {
    const run = await this.store.getRun(inst.runId);
    const wf = await this.workflows.get(inst.workflowId);
    const task = wf?.tasks.get(inst.taskId);
    if (run && wf && task && run.state === 'RUNNING') {
      if (inst.state === 'SUCCESS') {
        if (!run.onlyTask) await this.advance(run, wf, task);
      } else if (FAILED_STATES.includes(inst.state) && (inst.attempt <= task.retries || this.isFailover(inst, task))) {
        const delay = this.isFailover(inst, task) ? 0 : retryDelay(task.retryBackoff, inst.attempt);
        await this.createWaiting(run, task, inst.attempt + 1, this.clock.now() + delay);
        this.onWaiting();
      } else if (inst.state !== 'UPSTREAM_FAILED' && !run.onlyTask) {
        await this.failDownstream(run, wf, task, inst);
      }
    }
    await this.store.markHandled(inst.id);
    if (run) await this.settle(run);
  }

  /** The worker died, not the task: run it again elsewhere without spending a retry (bounded). */
  private isFailover(inst: InstanceRecord, task: TaskDefinition): boolean {
    return (inst.reason ?? '').startsWith(FAILOVER_PREFIX) && inst.attempt <= task.retries + MAX_FAILOVERS;
  }

  private async advance(run: RunRecord, wf: CachedWorkflow, task: TaskDefinition): Promise<void> {
    let created = false;
    for (const downId of wf.downstream.get(task.id) ?? []) {
      const ups = wf.upstream.get(downId) ?? [];
      const others = ups.filter((u) => u !== task.id);
      if (others.length > 0) {
        const done = await this.store.succeededTasks(run.id, others);
        if (done.size < others.length) continue;
      }
      await this.createWaiting(run, wf.tasks.get(downId) as TaskDefinition, 1, this.clock.now());
      created = true;
    }
    if (created) this.onWaiting();
  }

  private async failDownstream(run: RunRecord, wf: CachedWorkflow, task: TaskDefinition, inst: InstanceRecord): Promise<void> {
    for (const id of downstreamClosure(wf, task.id)) {
      const t = wf.tasks.get(id) as TaskDefinition;
      const created = await this.store.createInstance({
        runId: run.id,
        workflowId: run.workflowId,
        taskId: t.id,
        taskName: t.name,
        attempt: 1,
        state: 'UPSTREAM_FAILED',
        notBefore: 0,
        reason: `upstream "${task.name}" ended ${inst.state}`,
        createdAt: this.clock.now(),
        handled: true,
      });
      if (created) await this.publishInstance(created);
    }
  }

  /** When nothing of the run is pending any more, its state follows from its instances. */
  async settle(run: RunRecord): Promise<void> {
    if (run.state !== 'RUNNING') return;
    if ((await this.store.pendingInstanceCount(run.id)) > 0) return;
    const wf = await this.workflows.get(run.workflowId);
    const scope = run.onlyTask ? [wf?.byName.get(run.onlyTask)?.id ?? -1] : [...(wf?.tasks.keys() ?? [])];
    const succeeded = wf ? await this.store.succeededTasks(run.id, scope) : new Set<number>();
    const state: RunState = wf && succeeded.size === scope.length ? 'SUCCESS' : 'FAILED';
    if (!(await this.store.transitionRun(run.id, ['RUNNING'], state, { finishedAt: this.clock.now() }))) return;
    await this.publishRun({ ...run, state });
    await this.startQueued(run.workflowId, run.workflowName);
  }

  /** Overlap policy `queue`: the oldest queued run starts when the previous one ends. */
  private async startQueued(workflowId: number, workflowName: string): Promise<void> {
    const queued = await this.store.listRuns({ workflowName, states: ['QUEUED'], limit: 1000 });
    const next = queued[queued.length - 1];
    if (!next) return;
    if (!(await this.store.transitionRun(next.id, ['QUEUED'], 'RUNNING', { startedAt: this.clock.now() }))) return;
    const wf = await this.workflows.get(workflowId);
    if (!wf) return;
    const started = { ...next, state: 'RUNNING' as const };
    await this.publishRun(started);
    await this.createRoots(started, wf);
  }

  /**
   * Re-runs a task that failed for good, in the same run, with its downstream: a new attempt of
   * the task; the downstream's UPSTREAM_FAILED markers (which never ran) are removed so the
   * downstream runs again once the task succeeds.
   */
  async rerun(runId: number, taskName: string): Promise<InstanceRecord[]> {
    const run = await this.store.getRun(runId);
    if (!run) throw new AxError('not_found', `no run #${runId}`);
    const wf = await this.workflows.get(run.workflowId);
    const task = wf?.byName.get(taskName);
    if (!wf || !task) throw new AxError('not_found', `run #${runId} has no task "${taskName}"`);
    const instances = await this.store.listInstances(runId);
    const mine = instances.filter((i) => i.taskId === task.id);
    const latest = mine[mine.length - 1];
    if (!latest || !['FAILED', 'TIMEOUT', 'CANCELLED'].includes(latest.state)) {
      throw new AxError('conflict', `task "${taskName}" of run #${runId} is ${latest?.state ?? 'not started'}: only a failed task can be re-run`);
    }
    const down = new Set(downstreamClosure(wf, task.id));
    const markers = instances.filter((i) => down.has(i.taskId) && i.state === 'UPSTREAM_FAILED').map((i) => i.id);
    const now = this.clock.now();
    if (run.state !== 'RUNNING') {
      await this.store.transitionRun(runId, [run.state], 'RUNNING', { reason: `re-run of "${taskName}"` });
    }
    await this.store.deleteInstances(markers);
    await this.createWaiting({ ...run, state: 'RUNNING' }, task, latest.attempt + 1, now);
    this.onWaiting();
    return this.store.listInstances(runId);
  }

  // Live events are for followers (UI, --follow), who read the store for the truth: with Redis
  // away they are dropped, never allowed to stop a run half-way between its store writes.
  async publishInstance(inst: InstanceRecord): Promise<void> {
    await this.coordinator.publish(instanceEvent(inst, this.clock.now())).catch(() => undefined);
  }

  private async publishRun(run: RunRecord): Promise<void> {
    await this.coordinator
      .publish({ type: 'run', runId: run.id, workflowName: run.workflowName, state: run.state, at: this.clock.now() })
      .catch(() => undefined);
  }
}

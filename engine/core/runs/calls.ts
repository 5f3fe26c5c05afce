// Sub-workflows: a `call:` task's instance runs no process. The dispatcher hands its due WAITING
// instance here instead of to a worker, and one store step (start-call) makes it RUNNING with no
// worker and starts its child run. It then waits without a slot or a process: the step that ends
// the child run is told (RunManager.publish), and the calling instance takes the child's state in
// a step of its own (SUCCESS, else FAILED "child run #N failed"; a retry starts a new child). The
// leader's backstop pass sweeps what a crash between those two steps left, a lost child, and a
// call's timeout; a calling instance that ends otherwise (cancelled, timed out) cancels its child.
import { because, type Reason } from '../../api/reasons.ts';
import { AxError } from '../../api/errors.ts';
import { checkParams, paramProblemsText } from '../../api/params.ts';
import type { InstanceRecord, InstanceState, RunRecord, RunState } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type {
  Finish,
  InstanceGuard,
  InstanceStore,
  Outcome,
  RunStore,
  TaskDefinition,
  TransitionResult,
} from '../../ports/store.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';
import { instanceDraft } from './follow-ups.ts';

const FINAL_RUN: RunState[] = ['SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED'];
const ACTIVE_RUN: RunState[] = ['RUNNING', 'QUEUED'];
/** orphaned child runs cancelled per sweep */
const ORPHANS_PER_SWEEP = 100;

export interface CallDeps {
  store: RunStore & InstanceStore;
  workflows: WorkflowCache;
  clock: Clock;
  finish(
    inst: InstanceRecord,
    guard: InstanceGuard,
    to: Finish['to'],
    outcome: Outcome,
    opts?: { final?: boolean },
  ): Promise<boolean>;
  /** cancels a whole run (RunManager.cancel), which cancels its own children in turn */
  cancelRun(runId: number, reason: Reason): Promise<void>;
  publish(result: TransitionResult): Promise<void>;
  publishInstance(inst: InstanceRecord): Promise<void>;
}

/** Why a calling instance failed with its child run. */
export function childFailedReason(run: Pick<RunRecord, 'id' | 'state' | 'reason'>): Reason {
  if (run.state === 'CANCELLED')
    return run.reason
      ? because('child_cancelled_because', { child: run.id, reason: run.reason })
      : because('child_cancelled', { child: run.id });
  return because('child_failed', { child: run.id });
}

export class Calls {
  constructor(private readonly d: CallDeps) {}

  /**
   * A due WAITING instance of a call: task starts its child run (start-call), with the parent
   * run's logical time (moved by the call's logical_time); a call of a workflow that does not exist (or is a monitor) fails the task
   * for good, saying so.
   */
  async start(inst: InstanceRecord, task: TaskDefinition): Promise<void> {
    const call = task.call;
    if (!call) return;
    const now = this.d.clock.now();
    const fail = async (why: Reason) => {
      await this.d.finish(
        inst,
        { from: ['WAITING'], attempt: inst.attempt },
        'FAILED',
        { ...why, finishedAt: now },
        { final: true },
      );
    };
    const childId = await this.d.workflows.findId(call.workflow);
    const child = childId === undefined ? undefined : await this.d.workflows.get(childId);
    if (!child) return fail(because('call_no_workflow', { workflow: call.workflow }));
    if (child.graph.schedule?.monitorGraceMs !== undefined)
      return fail(because('call_monitor', { workflow: call.workflow }));
    // The call's params (text, as the file wrote them) checked as any door's: a refusal fails the
    // task for good, naming each param (a retry would be refused the same).
    const checked = checkParams(child.graph.params ?? [], call.params ?? {});
    if ('problems' in checked)
      return fail(
        because('call_params_refused', {
          workflow: call.workflow,
          problems: paramProblemsText(checked.problems).split('\n').join('; '),
        }),
      );
    const params = checked.values;
    const parent = await this.d.store.getRun(inst.runId);
    if (parent?.state !== 'RUNNING') return;
    let started;
    try {
      started = await this.d.store.startCall(
        {
          instance: { id: inst.id, runId: inst.runId, attempt: inst.attempt },
          run: {
            workflowId: child.graph.id,
            state: 'RUNNING',
            trigger: 'call',
            triggeredBy: `run #${parent.id} (${parent.workflowName}.${inst.taskName})`,
            logicalTime: parent.logicalTime + (call.logicalTimeOffsetMs ?? 0),
            createdAt: now,
            parentRunId: parent.id,
            parentInstanceId: inst.id,
            ...(Object.keys(params).length > 0 && { params }),
          },
          roots: child.roots.map((t) => instanceDraft(t, 1, now, 0, child)),
        },
        now,
      );
    } catch (err) {
      // removed between the look-up and the step: as if it had never been there
      if (err instanceof AxError && err.code === 'not_found')
        return fail(because('call_workflow_removed', { workflow: call.workflow }));
      throw err;
    }
    if (!started) return;
    await this.d.publishInstance(started.instance);
    await this.d.publish({ done: true, created: started.created, ended: [], runs: [started.run] });
  }

  /** A child run ended: its calling instance, still waiting for it, takes its state. */
  async childEnded(run: RunRecord): Promise<void> {
    if (run.parentInstanceId === undefined || !FINAL_RUN.includes(run.state)) return;
    const inst = await this.d.store.getInstance(run.parentInstanceId);
    if (inst?.state !== 'RUNNING' || inst.childRunId !== run.id) return;
    const ok = run.state === 'SUCCESS';
    await this.d.finish(inst, { from: ['RUNNING'], attempt: inst.attempt }, ok ? 'SUCCESS' : 'FAILED', {
      ...(ok ? { reason: null } : childFailedReason(run)),
      finishedAt: this.d.clock.now(),
    });
  }

  /** A calling instance ended other than by its child (cancelled, timed out): the child is cancelled. */
  async callerEnded(inst: InstanceRecord, to: InstanceState): Promise<void> {
    if (inst.childRunId === undefined || to === 'SUCCESS') return;
    const child = await this.d.store.getRun(inst.childRunId);
    if (!child || !ACTIVE_RUN.includes(child.state)) return;
    await this.d
      .cancelRun(child.id, because('caller_ended', { task: inst.taskName, run: inst.runId, state: to }))
      // ended meanwhile: nothing left to stop
      .catch((err: unknown) => {
        if (!(err instanceof AxError && err.code === 'conflict')) throw err;
      });
  }

  /**
   * The leader's look at calling instances (each backstop pass, and at start): a child run that
   * ended without its caller hearing (a crash between the two steps), a child that is gone (the
   * lost link fails the task), a call past its timeout (TIMEOUT; its child is cancelled); then
   * child runs nobody waits for any more (a parent's cancel a crash cut short) are cancelled.
   */
  async sweep(active: InstanceRecord[]): Promise<void> {
    for (const inst of active) {
      if (inst.state !== 'RUNNING' || inst.childRunId === undefined) continue;
      const now = this.d.clock.now();
      const guard: InstanceGuard = { from: ['RUNNING'], attempt: inst.attempt };
      const child = await this.d.store.getRun(inst.childRunId);
      if (!child) {
        await this.d.finish(inst, guard, 'FAILED', {
          ...because('child_gone', { child: inst.childRunId }),
          finishedAt: now,
        });
        continue;
      }
      if (FINAL_RUN.includes(child.state)) {
        await this.childEnded(child);
        continue;
      }
      const timeoutMs = (await this.d.workflows.get(inst.workflowId))?.tasks.get(inst.taskId)?.timeoutMs;
      if (timeoutMs !== undefined && inst.startedAt !== undefined && now - inst.startedAt > timeoutMs)
        await this.d.finish(inst, guard, 'TIMEOUT', {
          ...because('call_timeout', { timeout: timeoutMs, child: child.id }),
          finishedAt: now,
        });
    }
    for (const id of await this.d.store.orphanedChildRuns(ORPHANS_PER_SWEEP)) {
      await this.d.cancelRun(id, because('caller_gone')).catch((err: unknown) => {
        if (!(err instanceof AxError && err.code === 'conflict')) throw err;
      });
    }
  }
}

// Start-up recovery (solo: this engine holds the data dir, so every instance still DISPATCHED or
// RUNNING was left by an engine that died; team mode: the instances this worker id left, found
// by a worker restarted before the leader judged it lost). Leftover process groups are killed and
// confirmed gone first. Solo, RUNNING instances then fail with "engine restarted" (retried where
// retries remain). In team mode they fail over as the leader fails over a lost worker's (design.md
// §7): FAILED as failed over, a new attempt at once that spends no retry, so a crash ends alike
// however fast the worker comes back. DISPATCHED ones never started and go back to WAITING (in
// team mode with their start locks freed: the dead process may have taken one). Runs left without
// (all of) their root instances get them.
import { because } from '../../api/reasons.ts';
import type { Clock } from '../../ports/clock.ts';
import type { ProcessRunner } from '../../ports/process-runner.ts';
import { EXTERNAL_TASK_ID, type Finish, type InstanceStore, type RunStore } from '../../ports/store.ts';
import type { RunManager } from '../runs/run-manager.ts';

export interface RecoveryReport {
  failed: number;
  requeued: number;
  killed: number;
}

export async function recoverOrphans(
  store: InstanceStore & RunStore,
  runner: ProcessRunner,
  runs: RunManager,
  clock: Clock,
  killGraceMs: number,
  /**
   * team mode: only the instances this worker id left (or these ids: a simulating process's
   * identities); solo: undefined (all of them)
   */
  workerId?: string | readonly string[],
  /**
   * team mode: frees an attempt's start lock (the coordinator's clearStartLock). The dead process
   * may have died between taking it and starting the task; the same attempt, requeued here, would
   * otherwise be refused as a duplicate by every worker until the lock expires (a day for a task
   * without a timeout).
   */
  clearStartLock?: (instanceId: number, attempt: number) => Promise<void>,
): Promise<RecoveryReport> {
  const report: RecoveryReport = { failed: 0, requeued: 0, killed: 0 };
  const ids = workerId === undefined ? undefined : new Set<string | undefined>([workerId].flat());
  const team = ids !== undefined;
  for (const inst of await store.instancesInStates(['DISPATCHED', 'RUNNING'])) {
    if (ids && !ids.has(inst.workerId)) continue;
    // A monitor's run goes on outside the engine: a restart ends nothing of it (design.md §13).
    if (inst.taskId === EXTERNAL_TASK_ID) continue;
    // A call: task runs no process: it waits for its child run, which a restart does not end.
    if (inst.childRunId !== undefined) continue;
    const guard = { from: [inst.state], attempt: inst.attempt, workerId: inst.workerId };
    const worker = { worker: inst.workerId ?? '?' };
    if (inst.state === 'DISPATCHED') {
      const why = team ? because('worker_restarted_before_start', worker) : because('engine_restarted_before_start');
      if (await store.requeueInstance(inst.id, guard, why.reason, why.reasonCode)) {
        report.requeued++;
        await clearStartLock?.(inst.id, inst.attempt);
      }
      continue;
    }
    // The old group is gone (killed and confirmed, or found dead) before the instance is handed
    // back: its next attempt never runs beside it.
    const killed = inst.pid !== undefined && (await runner.killLeftover(inst.pid, inst.id, killGraceMs));
    if (killed) report.killed++;
    const why = team
      ? because(killed ? 'failover_worker_restarted_killed' : 'failover_worker_restarted', worker)
      : because(killed ? 'engine_restarted_killed' : 'engine_restarted');
    const outcome = { ...why, finishedAt: clock.now(), ...(team && { failedOver: true }) };
    if (await runs.finish(inst, guard, 'FAILED', outcome)) report.failed++;
  }
  // Runs are the scheduler's: in team mode its leader checks them when it takes the lead.
  if (workerId === undefined) await checkRuns(store, runs);
  return report;
}

/**
 * The start-up check of runs, by a solo engine at start and by a scheduler taking the lead: an
 * outcome recorded without its follow-ups gets them, a RUNNING run gets any root instance it
 * lacks, or is settled if nothing of it is pending. Every step that writes these is one
 * transaction, so after a clean stop (or a crash) of this version it finds nothing; it is there
 * for what an earlier version left.
 */
export async function checkRuns(store: InstanceStore & RunStore, runs: RunManager): Promise<void> {
  for (const inst of await store.unhandledFinished(10_000)) {
    if (inst.state !== 'UPSTREAM_FAILED')
      await runs.finish(inst, { from: [inst.state], attempt: inst.attempt }, inst.state as Finish['to'], {});
  }
  for (const run of await store.listRuns({ states: ['RUNNING'], limit: 10_000 })) await runs.resumeRun(run);
  // call: tasks whose child run ended while no engine heard of it
  await runs.calls.sweep(await store.instancesInStates(['RUNNING']));
}

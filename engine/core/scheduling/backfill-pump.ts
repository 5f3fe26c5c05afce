// The leader's part of every tick for backfills: each RUNNING backfill is topped up to its
// maxParallel live runs (QUEUED or RUNNING) with its next logical times that have no run yet,
// oldest first; its failed runs asked to run again (rerun_at) are re-run in place within the same
// limit; and once all its times have runs and none is live or due, it ends SUCCESS, or FAILED when
// a run failed. Everything it decides it reads from the store, so after a crash the next leader
// goes on where it stopped; the store's unique (backfill, logical time) keeps a time to one run
// even when two schedulers both believe they lead.
import type { EngineEvent } from '../../api/events.ts';
import type { InstanceRecord, InstanceState, RunRecord } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { BackfillRow, BackfillStore, InstanceStore, RunStore } from '../../ports/store.ts';
import type { StartRunInput } from '../runs/run-manager.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

export interface BackfillPumpDeps {
  store: BackfillStore & RunStore & InstanceStore;
  workflows: WorkflowCache;
  clock: Clock;
  startRun: (input: StartRunInput) => Promise<RunRecord | undefined>;
  /** re-runs one failed task of a run, with its downstream (RunManager.rerun) */
  rerunTask: (runId: number, task: string) => Promise<unknown>;
  publish: (event: EngineEvent) => void;
  alert: (message: string) => void;
}

const RERUNNABLE: InstanceState[] = ['FAILED', 'TIMEOUT', 'CANCELLED'];

/** The tasks of a run whose latest attempt failed for good: what a re-run of the run runs again. */
function failedTasks(instances: InstanceRecord[]): string[] {
  const latest = new Map<string, InstanceRecord>();
  for (const i of instances) {
    const seen = latest.get(i.taskName);
    if (!seen || i.attempt >= seen.attempt) latest.set(i.taskName, i);
  }
  return [...latest.values()].filter((i) => RERUNNABLE.includes(i.state)).map((i) => i.taskName);
}

export class BackfillPump {
  /** logical times per backfill: they never change, and a long backfill's list is long */
  private readonly times = new Map<number, number[]>();
  /** failed runs whose re-run this node could not make (said once, not every tick) */
  private readonly unrerunnable = new Set<number>();
  /** what stops each backfill, as last said: said again only when it changes, not every tick */
  private readonly said = new Map<number, string>();

  constructor(private readonly deps: BackfillPumpDeps) {}

  async topUp(): Promise<void> {
    const running = await this.deps.store.listBackfills({ states: ['RUNNING'], limit: 1000 });
    const ids = new Set(running.map((b) => b.id));
    for (const id of this.times.keys()) if (!ids.has(id)) this.times.delete(id);
    for (const id of this.said.keys()) if (!ids.has(id)) this.said.delete(id);
    for (const b of running) {
      // One backfill that cannot go on must not hold up the others.
      try {
        await this.topUpOne(b);
        this.said.delete(b.id);
      } catch (err) {
        const message = `backfill #${b.id}: ${err instanceof Error ? err.message : String(err)}`;
        if (this.said.get(b.id) !== message) this.deps.alert(message);
        this.said.set(b.id, message);
      }
    }
  }

  private async topUpOne(b: BackfillRow): Promise<void> {
    const { store } = this.deps;
    const wf = await this.deps.workflows.get(b.workflowId);
    if (!wf) {
      // the workflow was removed (with its runs): nothing is left to run
      if (await store.endBackfill(b.id, 'CANCELLED', this.deps.clock.now())) this.publish(b, 'CANCELLED');
      return;
    }
    const runs = await store.backfillRuns(b.id);
    const live = runs.filter((r) => r.state === 'RUNNING' || r.state === 'QUEUED').length;
    // A disabled workflow starts nothing of its own, a backfill's runs included, until enabled again.
    let slots = wf.graph.enabled ? b.maxParallel - live : 0;
    let changed = false;
    const rerunAt = b.rerunAt;
    const due =
      rerunAt === undefined
        ? []
        : runs.filter((r) => r.state === 'FAILED' && (r.finishedAt ?? 0) <= rerunAt && !this.unrerunnable.has(r.id));
    for (const run of due) {
      if (slots <= 0) break;
      await this.rerun(run);
      slots--;
      changed = true;
    }
    let times = this.times.get(b.id);
    if (!times) this.times.set(b.id, (times = await store.backfillTimes(b.id)));
    const have = new Set(runs.map((r) => r.logicalTime));
    const next = times.filter((t) => !have.has(t));
    const overlap = wf.graph.schedule?.overlap;
    for (const logicalTime of next) {
      if (slots <= 0) break;
      // undefined: another scheduler made it, or the backfill was cancelled meanwhile
      const run = await this.deps.startRun({
        workflowId: b.workflowId,
        trigger: 'backfill',
        triggeredBy: `backfill #${b.id}`,
        logicalTime,
        backfillId: b.id,
        ...(b.params !== undefined && { params: b.params }),
        // skip or queue: a backfill's run waits its turn behind the workflow's other runs
        applyOverlap: overlap === 'skip' || overlap === 'queue',
      });
      if (run) changed = true;
      slots--;
    }
    if (next.length === 0 && live === 0 && due.length === 0) {
      const state = runs.some((r) => r.state === 'FAILED') ? 'FAILED' : 'SUCCESS';
      if (await store.endBackfill(b.id, state, this.deps.clock.now())) {
        this.times.delete(b.id);
        this.publish(b, state);
      }
      return;
    }
    if (changed) this.publish(b, 'RUNNING');
  }

  /** A failed run again, in place: each task that failed for good, with its downstream. */
  private async rerun(run: RunRecord): Promise<void> {
    const tasks = failedTasks(await this.deps.store.listInstances(run.id));
    if (tasks.length === 0) {
      this.unrerunnable.add(run.id);
      this.deps.alert(`backfill run #${run.id} failed with no task to re-run: it stays FAILED`);
      return;
    }
    for (const task of tasks) await this.deps.rerunTask(run.id, task);
  }

  private publish(b: BackfillRow, state: BackfillRow['state']): void {
    this.deps.publish({
      type: 'backfill',
      backfillId: b.id,
      workflowName: b.workflowName,
      state,
      at: this.deps.clock.now(),
    });
  }
}

// The run records a worker's tasks start from. What a task's environment takes from its run (id,
// logical time, trigger, payload) never changes: read once per run, not once per task (a run of
// 2,000 tasks is one read).
import type { RunRecord } from '../../api/types.ts';
import type { RunStore } from '../../ports/store.ts';
import { SharedLoads } from '../support/shared-loads.ts';

/** how many runs' records a worker keeps for its tasks' environments */
const RUN_CACHE_SIZE = 64;

export class RunCache {
  /** runs of recent tasks, oldest first */
  private readonly runs = new Map<number, RunRecord>();
  /** reads under way: the tasks of a batch that start together share one (20 reads of one run before) */
  private readonly reading = new SharedLoads<number, RunRecord | undefined>();

  constructor(private readonly store: RunStore) {}

  get(runId: number): Promise<RunRecord | undefined> {
    const cached = this.runs.get(runId);
    if (cached) return Promise.resolve(cached);
    return this.reading.get(runId, () => this.read(runId));
  }

  private async read(runId: number): Promise<RunRecord | undefined> {
    const run = await this.store.getRun(runId);
    if (run) {
      if (this.runs.size >= RUN_CACHE_SIZE) this.runs.delete(this.runs.keys().next().value as number);
      this.runs.set(runId, run);
    }
    return run;
  }
}

// The Store's read models over Kysely (the screens' and the metrics' reads: ReadModelStore), a
// base of SqlStore (over the accounts, SqlAccounts): each method hands the query to the file that
// holds its SQL.
import type { InstanceRecord, InstanceState, RunState } from '../../api/types.ts';
import type { RunWait } from '../../api/run-views.ts';
import type { FinishedRunDurations, ReadModelStore } from '../../ports/store-views.ts';
import type { RunCountQuery, RunCountRow, TaskRuntime, TaskSearchRow } from '../../ports/store.ts';
import { SqlAccounts } from './accounts-queries.ts';
import { runCounts } from './run-count-queries.ts';
import { runWaits } from './run-waits.ts';
import { finishedRunDurations } from './trend-queries.ts';
import * as views from './view-queries.ts';

export class SqlReadModels extends SqlAccounts implements ReadModelStore {
  instancesOfRuns(runIds: number[]): Promise<InstanceRecord[]> {
    return views.instancesOfRuns(this.db, runIds);
  }
  finalFailures(runIds: number[]): Promise<InstanceRecord[]> {
    return views.finalFailures(this.db, runIds);
  }
  instancesFinishedSince(states: InstanceState[], since: number, limit: number): Promise<InstanceRecord[]> {
    return views.instancesFinishedSince(this.db, states, since, limit);
  }
  runsFinishedSince(since: number): Promise<Partial<Record<RunState, number>>> {
    return views.runsFinishedSince(this.db, since);
  }
  runCounts(query: RunCountQuery): Promise<RunCountRow[]> {
    return runCounts(this.db, query);
  }
  latestAttempts(keys: { runId: number; taskId: number }[]): Promise<InstanceRecord[]> {
    return views.latestAttempts(this.db, keys);
  }
  runningCountByWorker(): Promise<Map<string, number>> {
    return views.runningCountByWorker(this.db);
  }
  countInstances(states: InstanceState[], opts?: { queuedOnly?: boolean }): Promise<number> {
    return views.countInstances(this.db, states, opts);
  }
  countRuns(states: RunState[]): Promise<number> {
    return views.countRuns(this.db, states);
  }
  searchTasks(query: string, limit: number): Promise<TaskSearchRow[]> {
    return views.searchTasks(this.db, query, limit);
  }
  recentRuntimes(workflowId: number, limit: number): Promise<TaskRuntime[]> {
    return views.recentRuntimes(this.db, workflowId, limit);
  }
  runWaits(runId: number): Promise<RunWait[]> {
    return runWaits(this.db, runId);
  }

  finishedRunDurations(workflowId: number, limit: number): Promise<FinishedRunDurations> {
    return finishedRunDurations(this.db, workflowId, limit);
  }
}

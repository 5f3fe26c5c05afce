// Read models behind the UI's screens (and the CLI's): validation for forms, fire previews, the
// workflow and worker listings, the run-history grid, the dashboard, search, runtimes and a log's
// extent. They only read.
import type {
  DashboardSummary,
  FailureItem,
  FirePreview,
  GridCell,
  LogInfo,
  LogSearchHit,
  RunGrid,
  SearchHit,
  TaskStats,
  ValidationReport,
  WorkflowListing,
} from '../api/engine-api.ts';
import { AxError, ValidationError, type ValidationProblem } from '../api/errors.ts';
import type { InstanceRecord, RunRecord, WorkerRecord, WorkflowSpec, WorkflowSummary } from '../api/types.ts';
import type { Clock } from '../ports/clock.ts';
import type { Coordinator } from '../ports/coordinator.ts';
import type {
  ReadModelStore,
  DefinitionStore,
  RunStore,
  WorkerStore,
  LogStore,
  InstanceStore,
} from '../ports/store.ts';
import { taskOrder } from './model/dag.ts';
import { missingUpstreams } from './workflow/lineage.ts';
import { describeCron, nextFire, validateCron, validateTimezone } from './model/cron.ts';
import { hasComments, isCheckedSpec, parseWorkflowFile } from './workflow/workflow-file.ts';
import { serializeWorkflow } from './workflow/workflow-serialize.ts';
import { LogSearch } from './logs/log-search.ts';
import type { NextTurn } from './workflow/workflow-cache.ts';

/** validate's warning for a text with comments: what is taken in keeps none. */
export const COMMENTS_DROPPED = 'its comments are not kept: the workflow is stored, and exported, without them';

export const clamp = (n: unknown, min: number, max: number, fallback: number): number =>
  typeof n === 'number' && Number.isFinite(n) ? Math.min(max, Math.max(min, Math.floor(n))) : fallback;

/** Timeout suggestion (design.md §10): observed runtime × 1.5 + 5 min, rounded up to the minute. */
export function suggestTimeout(observedMs: number): number {
  return Math.ceil((observedMs * 1.5 + 300_000) / 60_000) * 60_000;
}

export class EngineViews {
  private readonly logSearch: LogSearch;

  constructor(
    private readonly store: ReadModelStore & DefinitionStore & RunStore & WorkerStore & LogStore & InstanceStore,
    private readonly coordinator: Coordinator,
    private readonly clock: Clock,
    private readonly workflowId: (name: string) => Promise<number>,
    /** a worker silent for longer than this is lost */
    private readonly lostAfterMs: number,
    /** the zone of this engine's machine (the host's): the default for files that name none */
    private readonly zone: () => string,
    /** a turn of the host's event loop, between the windows of a log search */
    nextTurn: NextTurn,
  ) {
    this.logSearch = new LogSearch(store, { clock, nextTurn });
  }

  async listWorkflows(): Promise<WorkflowListing[]> {
    const now = this.clock.now();
    const next = (w: WorkflowSummary): { nextFireAt?: number; scheduleError?: string } => {
      if (!w.schedule || !w.enabled) return {};
      try {
        return { nextFireAt: nextFire(w.schedule.cron, w.schedule.timezone, now) };
      } catch (err) {
        return {
          scheduleError:
            w.scheduleError ?? `its schedule cannot fire: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
    };
    const missing = await missingUpstreams(this.store);
    return (await this.store.listWorkflows()).map((w) => ({
      ...w,
      scheduleText: w.schedule ? describeCron(w.schedule.cron, w.schedule.timezone) : undefined,
      ...next(w),
      ...(missing.has(w.name) && { missingUpstreams: missing.get(w.name) }),
    }));
  }

  /**
   * Every known worker: its live registration (draining from the moment a drain is asked, as the
   * dispatcher judges it), else its last stored heartbeat judged by age; the leader marked. With
   * `schedulers`, the scheduler nodes that run no tasks too, from their presence (node-presence.ts).
   */
  async listWorkers(options: { schedulers?: boolean } = {}): Promise<WorkerRecord[]> {
    const [liveList, known, nodes, holder, running] = await Promise.all([
      this.coordinator.listWorkers(),
      this.store.listWorkers(),
      this.coordinator.listNodes(),
      this.coordinator.leaseHolder('scheduler'),
      this.store.runningCountByWorker(),
    ]);
    const drains = await Promise.all(
      liveList.map((w) => (w.status === 'online' ? this.coordinator.drainRequested(w.id) : false)),
    );
    const live = new Map(liveList.map((w, i) => [w.id, drains[i] ? { ...w, status: 'draining' as const } : w]));
    const leader = nodes.find((n) => n.nodeId === holder);
    const now = this.clock.now();
    const judged = (at: number, status: WorkerRecord['status']) =>
      status === 'offline' ? 'offline' : now - at > this.lostAfterMs ? 'lost' : status;
    const workers = known.map((w): WorkerRecord => {
      const row = live.get(w.id) ?? { ...w, status: judged(w.lastHeartbeat, w.status) };
      // A worker row is a node that works: a scheduler's own worker says `scheduler`.
      const role = row.role === 'scheduler' ? 'scheduler+worker' : row.role;
      // The load is the store's count, not the heartbeat's copy (up to one interval old).
      return { ...row, running: running.get(w.id) ?? 0, role, ...(leader?.workerId === w.id && { leader: true }) };
    });
    if (!options.schedulers) return workers;
    const schedulers = nodes
      .filter((n) => n.workerId === undefined)
      .map((n): WorkerRecord => ({
        id: n.nodeId,
        host: n.host,
        pid: n.pid,
        version: n.version,
        labels: [],
        maxConcurrency: 0,
        running: 0,
        startedAt: n.startedAt,
        lastHeartbeat: n.lastHeartbeat,
        status: judged(n.lastHeartbeat, 'online'),
        role: 'scheduler',
        acceptUnlabelled: false,
        ...(n === leader && { leader: true }),
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
    return [...schedulers, ...workers];
  }

  validate(input: { spec?: WorkflowSpec; text?: string; file?: string }): ValidationReport {
    if (typeof input?.text !== 'string' && !input?.spec)
      throw new AxError('validation', 'validate needs { text } (a workflow file) or { spec }');
    // A spec the file checks produced in this process: its re-parse would find nothing new.
    if (typeof input.text !== 'string' && input.spec && isCheckedSpec(input.spec))
      return { ok: true, spec: input.spec, problems: [], warnings: [] };
    try {
      const text = typeof input.text === 'string' ? input.text : serializeWorkflow(input.spec as WorkflowSpec);
      const { spec, warnings } = parseWorkflowFile(text, {
        file: input.file,
        defaultTimezone: this.zone(),
        fromSpec: typeof input.text !== 'string',
      });
      // A text taken in (the designer's import) is held without its comments from then on: that
      // is when losing them matters, and worth a word (a file applied from disk stays the user's).
      if (typeof input.text === 'string' && hasComments(input.text)) warnings.push(COMMENTS_DROPPED);
      return { ok: true, spec, problems: [], warnings: warnings.map((message) => ({ path: '', message })) };
    } catch (err) {
      if (err instanceof ValidationError) return { ok: false, problems: err.problems, warnings: [] };
      throw err;
    }
  }

  formatWorkflow(spec: WorkflowSpec): string {
    const report = this.validate({ spec });
    if (!report.ok || !report.spec) throw new ValidationError(report.problems);
    return serializeWorkflow(report.spec);
  }

  nextFires(schedule: { cron: string; timezone?: string }, count: number): FirePreview {
    const timezone = schedule?.timezone || this.zone();
    const problems: ValidationProblem[] = [];
    const cronError = validateCron(String(schedule?.cron ?? ''));
    if (cronError) problems.push({ path: 'schedule.cron', message: cronError });
    const tzError = validateTimezone(timezone);
    if (tzError) problems.push({ path: 'schedule.timezone', message: tzError });
    if (problems.length) throw new ValidationError(problems);
    const times: number[] = [];
    let after = this.clock.now();
    for (let i = 0; i < clamp(count, 1, 50, 5); i++) {
      after = nextFire(schedule.cron, timezone, after);
      times.push(after);
    }
    return { text: describeCron(schedule.cron, timezone), timezone, times };
  }

  async runGrid(workflow: string, page: { limit?: number; beforeRunId?: number }): Promise<RunGrid> {
    await this.workflowId(workflow);
    const limit = clamp(page?.limit, 1, 200, 25);
    const spec = await this.store.getWorkflowSpec(workflow);
    const runs = await this.store.listRuns({ workflowName: workflow, limit, beforeId: page?.beforeRunId });
    const instances = await this.store.instancesOfRuns(runs.map((r) => r.id));
    const byRun = new Map<number, Record<string, GridCell>>(runs.map((r) => [r.id, {}]));
    // Instances come in id order, so the last one seen per task is its latest attempt.
    for (const i of instances) {
      const cells = byRun.get(i.runId);
      if (cells)
        cells[i.taskName] = {
          instanceId: i.id,
          state: i.state,
          attempt: i.attempt,
          startedAt: i.startedAt,
          finishedAt: i.finishedAt,
        };
    }
    const last = runs[runs.length - 1];
    return {
      tasks: spec ? taskOrder(spec.tasks) : [],
      rows: runs.map((run) => ({ run, cells: byRun.get(run.id) ?? {} })),
      nextBeforeRunId: runs.length === limit && last ? last.id : undefined,
    };
  }

  async dashboard(): Promise<DashboardSummary> {
    const [workflows, workers] = await Promise.all([this.listWorkflows(), this.listWorkers()]);
    const now = this.clock.now();
    const midnight = new Date(now);
    midnight.setHours(0, 0, 0, 0);
    const since = midnight.getTime();
    const [running, runningOn, queueLength, failed, finished] = await Promise.all([
      this.store.listRuns({ states: ['QUEUED', 'RUNNING'], limit: 50 }),
      this.store.runningCountByWorker(),
      this.store.countInstances(['WAITING', 'DISPATCHED'], { queuedOnly: true }),
      this.store.instancesFinishedSince(['FAILED', 'TIMEOUT'], since, 200),
      this.store.runsFinishedSince(since),
    ]);
    const runningTasks = [...runningOn.values()].reduce((a, b) => a + b, 0);
    const { failuresToday, recoveredToday } = await this.failuresSince(failed);
    const nextFires = workflows
      .filter((w) => w.nextFireAt !== undefined && w.schedule)
      .map((w) => ({
        workflow: w.name,
        at: w.nextFireAt as number,
        timezone: w.schedule?.timezone ?? 'UTC',
        scheduleText: w.scheduleText ?? '',
      }))
      .sort((a, b) => a.at - b.at)
      .slice(0, 20);
    const count = (s: WorkerRecord['status']) => workers.filter((w) => w.status === s).length;
    const success = finished.SUCCESS ?? 0;
    const failedRuns = finished.FAILED ?? 0;
    return {
      now,
      running,
      runningTasks,
      failuresToday,
      recoveredToday,
      today: { success, failed: failedRuns, total: Object.values(finished).reduce((a, b) => a + (b ?? 0), 0) },
      nextFires,
      workers: { online: count('online'), draining: count('draining'), lost: count('lost') },
      queueLength,
    };
  }

  /**
   * Failed attempts, one per task of a run: a task whose latest attempt (a retry, a re-run)
   * succeeded is recovered, not failed; the others are listed by their latest failed attempt.
   */
  private async failuresSince(
    failed: InstanceRecord[],
  ): Promise<{ failuresToday: FailureItem[]; recoveredToday: FailureItem[] }> {
    const lastFailed = new Map<string, InstanceRecord>();
    for (const i of failed) {
      const key = `${i.runId}:${i.taskId}`;
      const seen = lastFailed.get(key);
      if (!seen || i.attempt > seen.attempt) lastFailed.set(key, i);
    }
    const keys = [...lastFailed.values()].map((i) => ({ runId: i.runId, taskId: i.taskId }));
    const [latest, runList] = await Promise.all([
      this.store.latestAttempts(keys),
      this.store.listRuns({ ids: [...new Set(keys.map((k) => k.runId))], limit: keys.length || 1 }),
    ]);
    const latestOf = new Map(latest.map((i) => [`${i.runId}:${i.taskId}`, i]));
    const runs = new Map<number, RunRecord>(runList.map((r) => [r.id, r]));
    const failuresToday: FailureItem[] = [];
    const recoveredToday: FailureItem[] = [];
    // newest failure first, as instancesFinishedSince gave them
    for (const [key, i] of lastFailed) {
      const run = runs.get(i.runId);
      if (!run) continue;
      const item: FailureItem = {
        run,
        instanceId: i.id,
        taskName: i.taskName,
        attempt: i.attempt,
        state: i.state,
        reason: i.reason,
        ...(i.reasonCode && { reasonCode: i.reasonCode }),
        finishedAt: i.finishedAt,
      };
      const now = latestOf.get(key);
      if (now?.state === 'SUCCESS')
        recoveredToday.push({
          ...item,
          recoveredBy: { instanceId: now.id, attempt: now.attempt, finishedAt: now.finishedAt },
        });
      else failuresToday.push(item);
    }
    return { failuresToday: failuresToday.slice(0, 50), recoveredToday: recoveredToday.slice(0, 50) };
  }

  async search(query: string, limit?: number): Promise<SearchHit[]> {
    const q = String(query ?? '').trim();
    if (q === '') return [];
    const lower = q.toLowerCase();
    const rows = await this.store.searchTasks(q.slice(0, 200), clamp(limit, 1, 500, 50));
    return rows.map((r) => ({
      ...r,
      field: r.task.toLowerCase().includes(lower)
        ? 'task'
        : r.command.toLowerCase().includes(lower)
          ? 'command'
          : 'workflow',
    }));
  }

  async taskStats(workflow: string): Promise<TaskStats[]> {
    const id = await this.workflowId(workflow);
    const perTask = new Map<string, number[]>();
    for (const r of await this.store.recentRuntimes(id, 2000)) {
      const list = perTask.get(r.task) ?? [];
      if (list.length < 20) list.push(r.ms);
      perTask.set(r.task, list);
    }
    return [...perTask].map(([task, ms]) => {
      const maxMs = Math.max(...ms);
      return {
        task,
        samples: ms.length,
        avgMs: Math.round(ms.reduce((a, b) => a + b, 0) / ms.length),
        maxMs,
        suggestedTimeoutMs: suggestTimeout(maxMs),
      };
    });
  }

  async logInfo(instanceId: number): Promise<LogInfo> {
    return { instanceId, ...(await this.store.logExtent(instanceId)) };
  }

  async searchLog(
    instanceId: number,
    query: string,
    options: { afterSeq?: number; limit?: number },
  ): Promise<LogSearchHit[]> {
    const q = String(query ?? '');
    if (q === '') return [];
    return this.logSearch.search(
      instanceId,
      q.slice(0, 1000),
      clamp(options?.afterSeq, 0, Number.MAX_SAFE_INTEGER, 0),
      clamp(options?.limit, 1, 1000, 100),
    );
  }
}

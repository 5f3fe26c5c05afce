// Backfills as the API asks for them (api/backfill.ts): the plan of a window (its logical times,
// those that have a run already, the limits), the backfill object, cancel and re-run of its
// failed runs. Its runs are created by the leading scheduler (scheduling/backfill-pump.ts), so a
// backfill goes on after a restart and is topped up by one node at a time.
import { because, type Reason } from '../../api/reasons.ts';
import { type Actor, actorName } from '../../api/actor.ts';
import {
  BACKFILL_FORCE_LIMIT,
  BACKFILL_MAX_RUNS,
  type BackfillDetail,
  type BackfillPlan,
  type BackfillRecord,
  type BackfillRequest,
} from '../../api/backfill.ts';
import { AxError } from '../../api/errors.ts';
import { checkParams, paramProblemsText } from '../../api/params.ts';
import type { EngineEvent } from '../../api/events.ts';
import type { ParamValue } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { BackfillRow, BackfillStore, DefinitionStore, RunStore } from '../../ports/store.ts';
import { backfillTimes } from '../model/backfill-times.ts';
import { formatDuration, parseDuration } from '../model/duration.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';

export interface BackfillDeps {
  store: BackfillStore & RunStore & DefinitionStore;
  workflows: WorkflowCache;
  clock: Clock;
  workflowId: (name: string) => Promise<number>;
  audit: (actor: Actor, action: string, object: string, detail?: string) => Promise<void>;
  publish: (event: EngineEvent) => void;
  /** cancels one run of the backfill (RunManager.cancel and the local worker's stop) */
  cancelRun: (runId: number, reason: Reason) => Promise<void>;
}

const iso = (t: number) => new Date(t).toISOString();

/** A refusal of one field of the request: the message, and the field's path for a form. */
function refuse(path: keyof BackfillRequest, message: string): AxError {
  return new AxError('validation', message, [{ path, message }]);
}

/** The record as the API shows it (the pump's fields left out). */
export function backfillRecord(row: BackfillRow): BackfillRecord {
  const { workflowId: _w, rerunAt: _r, ...record } = row;
  return record;
}

export class Backfills {
  constructor(private readonly deps: BackfillDeps) {}

  /** The plan of a request, checked: every refusal names the field and what to do. */
  async plan(
    request: BackfillRequest,
  ): Promise<BackfillPlan & { workflowId: number; params?: Record<string, ParamValue> }> {
    const { store, workflows } = this.deps;
    const workflowId = await this.deps.workflowId(request.workflow);
    const wf = await workflows.get(workflowId);
    if (!wf) throw new AxError('not_found', `workflow "${request.workflow}" was removed`);
    const schedule = wf.graph.schedule;
    if (schedule?.monitorGraceMs !== undefined)
      throw new AxError(
        'validation',
        `"${request.workflow}" is a monitor: it runs nothing itself, so it has nothing to backfill`,
      );
    if (request.to < request.from)
      throw refuse(
        'to',
        `to (${iso(request.to)}) is before from (${iso(request.from)}): give the window's start first`,
      );
    const notes: string[] = [];
    // Checked now, not at each run: a wrong value refuses the backfill, naming the param.
    const checked = checkParams(wf.graph.params ?? [], request.params ?? {});
    if ('problems' in checked)
      throw new AxError(
        'validation',
        `backfill of "${request.workflow}" refused: ${checked.problems.length > 1 ? 'its params are wrong' : 'a param is wrong'}:\n${paramProblemsText(checked.problems)}`,
        checked.problems.map((p) => ({ path: `params.${p.param}`, message: p.message })),
      );
    const maxParallel = request.maxParallel ?? 1;
    if (maxParallel > 1 && schedule && schedule.overlap !== 'parallel')
      throw refuse(
        'maxParallel',
        `maxParallel ${maxParallel}: workflow "${request.workflow}" has overlap: ${schedule.overlap}, so its runs must not overlap and a backfill of it runs one at a time: leave out --max-parallel, or set the schedule's overlap: parallel`,
      );
    let everyMs: number | undefined;
    if (request.every !== undefined) {
      const parsed = parseDuration(request.every);
      if ('error' in parsed) throw refuse('every', `every: ${parsed.error}`);
      if (parsed.ms < 1000)
        throw refuse('every', `every: "${request.every}" is under a second: give a step of 1s or more, e.g. "1d"`);
      everyMs = parsed.ms;
    } else if (!schedule) {
      throw refuse(
        'every',
        `every: workflow "${request.workflow}" has no schedule, so a backfill needs a step: give --every (e.g. --every 1d for one run per day from --from)`,
      );
    }
    const range = { from: request.from, to: request.to, cap: BACKFILL_MAX_RUNS + 1 };
    const all =
      everyMs !== undefined
        ? backfillTimes({ everyMs, ...range })
        : backfillTimes({
            cron: (schedule as { cron: string }).cron,
            timezone: (schedule as { timezone: string }).timezone,
            ...range,
          });
    if (all.length > BACKFILL_MAX_RUNS)
      throw refuse(
        'to',
        `the window holds more than ${BACKFILL_MAX_RUNS} logical times, the most one backfill may have: split it into several backfills`,
      );
    if (all.length === 0)
      throw refuse(
        'to',
        everyMs !== undefined
          ? `the window ${iso(request.from)} – ${iso(request.to)} is empty`
          : `the schedule "${schedule?.cron}" (${schedule?.timezone}) does not fire between ${iso(request.from)} and ${iso(request.to)}: widen the window`,
      );
    const existing = request.rerunExisting
      ? new Set<number>()
      : new Set(await store.runLogicalTimes(workflowId, request.from, request.to));
    // A running backfill of the workflow will make its times: the same request twice (a double
    // click) must not make every day twice.
    if (!request.rerunExisting) {
      const inWindow = new Set(all);
      for (const other of await store.listBackfills({ workflowName: request.workflow, states: ['RUNNING'] })) {
        const theirs = (await store.backfillTimes(other.id)).filter((t) => t >= request.from && t <= request.to);
        const planned = theirs.filter((t) => inWindow.has(t) && !existing.has(t));
        for (const t of planned) existing.add(t);
        if (planned.length > 0)
          notes.push(`${planned.length} logical time(s) left to running backfill #${other.id}, which will run them`);
      }
    }
    const logicalTimes = all.filter((t) => !existing.has(t));
    const skippedExisting = all.filter((t) => existing.has(t));
    if (logicalTimes.length > BACKFILL_FORCE_LIMIT && !request.force)
      throw refuse(
        'force',
        `the backfill would create ${logicalTimes.length} runs, over the limit of ${BACKFILL_FORCE_LIMIT}: narrow the window, or pass --force (force: true) to create them all`,
      );
    if (everyMs !== undefined && schedule)
      notes.push(`one run every ${formatDuration(everyMs)}, not at the schedule's fires`);
    return {
      workflowId,
      ...(Object.keys(checked.values).length > 0 && { params: checked.values }),
      logicalTimes,
      skippedExisting,
      total: logicalTimes.length,
      ...(notes.length > 0 && { notes }),
    };
  }

  /** A backfill, or its plan on a dry run. */
  async create(request: BackfillRequest, actor: Actor): Promise<BackfillPlan> {
    const { workflowId, params, ...plan } = await this.plan(request);
    if (request.dryRun) return plan;
    if (plan.total === 0)
      throw new AxError(
        'conflict',
        `nothing to backfill: all ${plan.skippedExisting.length} logical times of the window have runs already: pass --rerun-existing (rerunExisting: true) to run them again`,
      );
    const row = await this.deps.store.createBackfill({
      workflowId,
      workflowName: request.workflow,
      from: request.from,
      to: request.to,
      ...(request.every !== undefined && { every: request.every }),
      times: plan.logicalTimes,
      ...(params !== undefined && { params }),
      maxParallel: request.maxParallel ?? 1,
      rerunExisting: request.rerunExisting === true,
      createdBy: actorName(actor),
      createdAt: this.deps.clock.now(),
    });
    await this.deps.audit(
      actor,
      'backfill.create',
      `backfill:${row.id}`,
      `workflow ${request.workflow}: ${plan.total} run(s) from ${iso(plan.logicalTimes[0] as number)} to ${iso(plan.logicalTimes[plan.total - 1] as number)}, at most ${row.maxParallel} at once${plan.skippedExisting.length ? `, ${plan.skippedExisting.length} existing skipped` : ''}`,
    );
    this.published(row);
    return { ...plan, backfill: backfillRecord(row) };
  }

  async list(filter: { workflow?: string; limit?: number }): Promise<BackfillRecord[]> {
    const rows = await this.deps.store.listBackfills({
      ...(filter.workflow !== undefined && { workflowName: filter.workflow }),
      limit: filter.limit ?? 50,
    });
    return rows.map(backfillRecord);
  }

  async get(id: number): Promise<BackfillDetail> {
    const row = await this.row(id);
    const [logicalTimes, runs] = await Promise.all([
      this.deps.store.backfillTimes(id),
      this.deps.store.backfillRuns(id),
    ]);
    return { backfill: backfillRecord(row), logicalTimes, runs };
  }

  /** Cancelled as a whole: no more runs (the store step sees to that), its live runs cancelled. */
  async cancel(id: number, actor: Actor): Promise<BackfillDetail> {
    const row = await this.row(id);
    if (!(await this.deps.store.endBackfill(id, 'CANCELLED', this.deps.clock.now())))
      throw new AxError(
        'conflict',
        `backfill #${id} is ${row.state === 'RUNNING' ? 'no longer running' : row.state}: only a running backfill can be cancelled`,
      );
    const reason = because('backfill_cancelled', { backfill: id, actor: actorName(actor) });
    for (const run of await this.deps.store.backfillRuns(id)) {
      if (run.state !== 'RUNNING' && run.state !== 'QUEUED') continue;
      // a run that ended meanwhile needs no cancel
      await this.deps.cancelRun(run.id, reason).catch((err: unknown) => {
        if (!(err instanceof AxError && err.code === 'conflict')) throw err;
      });
    }
    await this.deps.audit(actor, 'backfill.cancel', `backfill:${id}`, `workflow ${row.workflowName}`);
    const detail = await this.get(id);
    this.published(detail.backfill);
    return detail;
  }

  /**
   * Its FAILED runs run again, each in place (its failed tasks and their downstream, as
   * `ax rerun` does), topped up by the scheduler like the first ones (maxParallel holds).
   */
  async rerunFailed(id: number, actor: Actor): Promise<BackfillDetail> {
    const row = await this.row(id);
    if (row.failed === 0) throw new AxError('conflict', `backfill #${id} has no failed run: nothing to re-run`);
    if (!(await this.deps.store.reopenBackfill(id, this.deps.clock.now())))
      throw new AxError(
        'conflict',
        `backfill #${id} is ${row.state}: ${row.state === 'RUNNING' ? 'wait until it ends, or cancel it' : 'a cancelled backfill is not run again: start a new one'}`,
      );
    await this.deps.audit(
      actor,
      'backfill.rerun',
      `backfill:${id}`,
      `${row.failed} failed run(s) of ${row.workflowName}`,
    );
    const detail = await this.get(id);
    this.published(detail.backfill);
    return detail;
  }

  private async row(id: number): Promise<BackfillRow> {
    const row = await this.deps.store.getBackfill(id);
    if (!row) throw new AxError('not_found', `no backfill #${id}: "ax backfills" lists them`);
    return row;
  }

  private published(b: Pick<BackfillRecord, 'id' | 'workflowName' | 'state'>): void {
    this.deps.publish({
      type: 'backfill',
      backfillId: b.id,
      workflowName: b.workflowName,
      state: b.state,
      at: this.deps.clock.now(),
    });
  }
}

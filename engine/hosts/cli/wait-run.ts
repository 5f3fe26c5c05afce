// Following a run until it ends, printing each task's outcome as it happens.
import type { EngineApi } from '../../api/engine-api.ts';
import type { InstanceRecord, RunRecord, WorkerRecord } from '../../api/types.ts';
import { accepts } from '../../core/model/routing.ts';
import { describeWorkers, offering } from '../../core/workflow/spec-warnings.ts';
import { follow } from './follow.ts';
import { elapsed, mark } from './format.ts';
import { runNotes } from './run-notes.ts';

const FINAL_RUN = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];
const SHOWN = ['RUNNING', 'SUCCESS', 'FAILED', 'TIMEOUT', 'CANCELLED', 'UPSTREAM_FAILED', 'SKIPPED'];
/**
 * How long a task may wait while no online worker accepts it (labels nobody offers) before
 * --wait stops waiting: long enough for a worker that is just starting to register.
 */
export const UNTAKEN_GRACE_MS = 5_000;
/** How often, at most, --wait asks whether its waiting tasks can be taken. */
const UNTAKEN_CHECK_MS = 500;

export interface WaitOptions {
  /** print no outcomes (--json) */
  quiet?: boolean;
  /**
   * The run is this process's (no server runs): when no worker can take one of its tasks, cancel
   * it as this actor, since nothing else would ever run it. Otherwise it stays queued.
   */
  cancelAs?: string;
}

/**
 * Prints each outcome until the run ends, and returns it. When a task has waited
 * UNTAKEN_GRACE_MS with no online worker accepting it, says so on stderr and returns the run as
 * it is (not SUCCESS, so callers exit 1) instead of waiting forever.
 */
export async function waitForRun(api: EngineApi, runId: number, options: WaitOptions = {}): Promise<RunRecord> {
  /** instance id → the state its last event said */
  const changed = new Map<number, string>();
  let runChanged = false;
  const changes = await follow(api, ['runs'], (e) => {
    if (e.type === 'instance' && e.runId === runId) {
      // DISPATCHED is neither printed nor noted, and RUNNING follows within milliseconds: not
      // worth a read (one per task of a big run).
      if (e.state !== 'DISPATCHED') changed.set(e.instanceId, e.state);
    } else if (e.type === 'run' && e.runId === runId) runChanged = true;
    else return false;
    return true;
  });
  try {
    // The events say which instances changed: those are read again, not the whole run; the run
    // is read whole at first, when it changes (it started or ended), when many of its instances
    // changed at once, and when no event came for a while (one may have been lost).
    const reads: Reads = async () => {
      while (changed.size === 0 && !runChanged) if (!(await changes.next())) return 'all';
      const ids = [...changed].map(([id, state]) => ({ id, state }));
      changed.clear();
      const whole = runChanged;
      runChanged = false;
      return whole ? 'all' : ids;
    };
    return await printUntilDone(api, runId, options, reads);
  } finally {
    changes.close();
  }
}

/** What to read next: the whole run, or the instances that changed (with the state their event said). */
type Reads = () => Promise<'all' | { id: number; state: string }[]>;

/** A share of the run's instances past which reading them one by one costs more than the whole run. */
const WHOLE_READ_SHARE = 0.25;

async function printUntilDone(api: EngineApi, runId: number, options: WaitOptions, reads: Reads): Promise<RunRecord> {
  const untaken = untakenTasks(api, options.cancelAs === undefined);
  // Lines go out once per wake-up, not one write each: a write to a pipe or terminal is a system
  // call, and a line per task was the largest single cost of following a run of `true` tasks.
  const out: string[] = [];
  const print = (line: string): void => {
    out.push(line);
  };
  const flush = (): void => {
    if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
    out.length = 0;
  };
  const notes = runNotes(api, print);
  const seen = new Map<number, string>();
  let heldNoted = false;
  const known = new Map<number, InstanceRecord>();
  let since: number | undefined;
  let readAt = Date.now();
  let { run, instances: fresh } = await api.getRun(runId);
  let wholeReadMs = Date.now() - readAt;
  // Work per wake-up is kept to the instances read: a run of thousands of tasks wakes this loop
  // thousands of times. The whole list is built only when a note or the check below needs it.
  const all = () => [...known.values()];
  let checkedAt = 0;
  let why: string | undefined;
  for (;;) {
    for (const i of fresh) known.set(i.id, i);
    for (const i of fresh) {
      if (!options.quiet) await notes.retry(i, all);
      // A task waiting for another workflow says so: it may wait for hours.
      const shown = i.state === 'WAITING' && i.reason?.startsWith('waiting for ') ? `WAITING ${i.reason}` : i.state;
      if (seen.get(i.id) === shown || !(SHOWN.includes(i.state) || shown !== i.state)) continue;
      seen.set(i.id, shown);
      // Here (no server), this command holds the data dir: nothing on it can run the upstream meanwhile.
      if (shown !== i.state && options.cancelAs !== undefined && !heldNoted) {
        heldNoted = true;
        process.stderr.write(
          `ax: "${i.taskName}" starts once ${i.reason?.slice('waiting for '.length)} succeeds; while this command holds the data dir nothing here can run it: run the upstream through "ax serve" (or a team), or stop with Ctrl-C\n`,
        );
      }
      if (options.quiet) continue;
      const attempt = i.attempt > 1 ? ` (attempt ${i.attempt})` : '';
      const took = i.state === 'RUNNING' ? '' : ` ${elapsed(i.startedAt, i.finishedAt) ?? ''}`;
      const because = i.reason && i.state !== 'SUCCESS' && i.state !== 'RUNNING' ? ` — ${i.reason}` : '';
      print(`${mark(i.state)} ${i.taskName}${attempt} ${i.state}${took}  [instance ${i.id}]${because}`);
    }
    if (!options.quiet) await notes.failures(fresh, all);
    if (FINAL_RUN.includes(run.state)) {
      if (!options.quiet)
        print(
          `run #${run.id} ${run.state}${run.finishedAt ? ` in ${elapsed(run.createdAt, run.finishedAt)}` : ''}${run.reason ? ` — ${run.reason}` : ''}`,
        );
      flush();
      return run;
    }
    flush();
    // Whether a waiting task can be taken at all: a question for seconds (UNTAKEN_GRACE_MS), so
    // asked at most every UNTAKEN_CHECK_MS, not at every wake-up.
    if (Date.now() - checkedAt >= UNTAKEN_CHECK_MS) {
      checkedAt = Date.now();
      why = await untaken(run, all());
    }
    since = why === undefined ? undefined : (since ?? Date.now());
    if (why !== undefined && since !== undefined && Date.now() - since >= UNTAKEN_GRACE_MS) {
      if (options.cancelAs === undefined) {
        process.stderr.write(`ax: ${why} — run #${run.id} stays queued until one joins; stopped waiting\n`);
        return run;
      }
      await api.cancelRun(runId, { actor: options.cancelAs });
      process.stderr.write(`ax: ${why} — run #${run.id} cancelled, as nothing here can run it\n`);
      return (await api.getRun(runId)).run;
    }
    const next = await reads();
    if (next !== 'all' && next.length <= WHOLE_READ_SHARE * known.size) {
      // RUNNING says all its line needs (the name and attempt are known): the start time is the
      // only field it changes that a note could want, and the outcome's read brings it.
      const started = (c: { id: number; state: string }) => {
        const before = known.get(c.id);
        return c.state === 'RUNNING' && before && (before.state === 'WAITING' || before.state === 'DISPATCHED')
          ? { ...before, state: 'RUNNING' as const }
          : undefined;
      };
      fresh = (await Promise.all(next.map((c) => started(c) ?? api.getInstance(c.id)))).sort((a, b) => a.id - b.id);
      continue;
    }
    // In this process a whole read is the engine's own time: after one of a run of thousands of
    // tasks, the next waits ten readings' time, so following takes at most a tenth of the thread.
    if (wholeReadMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 10 * wholeReadMs)));
    readAt = Date.now();
    ({ run, instances: fresh } = await api.getRun(runId));
    wholeReadMs = Date.now() - readAt;
  }
}

/**
 * Why a WAITING task of the run can be taken by no online worker (its labels, an accept-policy),
 * or undefined. With no online worker at all, the same through a server (`remote`), after the
 * same grace, in which a restarting worker registers again; in this process the one worker is
 * only away while it drains.
 */
function untakenTasks(
  api: EngineApi,
  remote: boolean,
): (run: RunRecord, instances: InstanceRecord[]) => Promise<string | undefined> {
  let labels: Map<string, string[]> | undefined;
  let workers: { at: number; online: WorkerRecord[] } | undefined;
  return async (run, instances) => {
    const waiting = instances.filter((i) => i.state === 'WAITING');
    if (waiting.length === 0) return undefined;
    labels ??= new Map((await api.exportWorkflow(run.workflowName)).tasks.map((t) => [t.name, t.labels]));
    if (!workers || Date.now() - workers.at > 1_000)
      workers = { at: Date.now(), online: (await api.listWorkers()).filter((w) => w.status === 'online') };
    const online = workers.online;
    if (online.length === 0) {
      if (!remote) return undefined;
      const start = (await api.engineInfo()).mode === 'team' ? 'ax serve --role worker' : 'ax serve';
      return `task "${waiting[0]?.taskName}" waits and no worker is online (start one: ${start})`;
    }
    for (const i of waiting) {
      const need = labels.get(i.taskName) ?? [];
      const task = { workflowName: run.workflowName, labels: need };
      if (
        online.some((w) =>
          accepts({ labels: w.labels, acceptUnlabelled: w.acceptUnlabelled, workflows: w.acceptWorkflows }, task),
        )
      )
        continue;
      const list = `(workers: ${describeWorkers(online)})`;
      if (need.length > 0 && offering(need, online).length === 0)
        return `task "${i.taskName}" needs labels [${need.join(', ')}]; no online worker offers them ${list}`;
      if (need.length === 0)
        return `task "${i.taskName}" has no labels; no online worker accepts unlabelled tasks ${list}`;
      return `task "${i.taskName}" of workflow "${run.workflowName}" is accepted by no online worker ${list}`;
    }
    return undefined;
  };
}

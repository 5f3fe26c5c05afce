// One task's execution on its worker, from DISPATCHED to its recorded outcome: RUNNING (fenced),
// its process started in its own process group with the task's environment, its lines streamed
// to the log writer, the timeout enforced (SIGTERM, SIGKILL after the grace), and the outcome
// recorded with a fenced compare-and-set once its log is in. Whatever the task left running
// outside its group is said at the end of its log afterwards.
import type { InstanceRecord, InstanceState } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator, DispatchMessage } from '../../ports/coordinator.ts';
import type { EngineMetrics } from '../../ports/metrics.ts';
import type { ProcessRunner, RunningProcess } from '../../ports/process-runner.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import type { Finish, InstanceStore, RunStore, TaskDefinition, LogStore } from '../../ports/store.ts';
import type { Dispatcher } from '../dispatch/dispatcher.ts';
import { formatDuration } from '../model/duration.ts';
import { instanceEvent } from '../model/instance-event.ts';
import { appendLateLine } from '../logs/late-log-line.ts';
import type { LogWriter } from '../logs/log-writer.ts';
import { persistently } from '../support/store-retry.ts';
import { RunCache } from './run-cache.ts';
import type { RunManager } from '../runs/run-manager.ts';
import type { SecretMask } from '../secrets/secret-mask.ts';
import { taskLaunch, taskOutcome } from './task-launch.ts';

/** A task its worker runs, from its start lock to its recorded outcome. */
export interface Running {
  inst: InstanceRecord;
  message: DispatchMessage;
  process?: RunningProcess;
  timedOut: boolean;
  /** set when the worker itself stops the process (fenced off, shutdown) */
  stopReason?: string;
  /** its process ended and the outcome is being written: a beat that misses it is no take-over */
  reporting?: boolean;
  /** a user cancelled it: the store already says CANCELLED, so the refused outcome is expected */
  cancelled?: boolean;
}

/** What an execution takes from its worker's options. */
export interface ExecutionOptions {
  /** the worker's id, which fences every write of the execution */
  id: string;
  killGraceMs: number;
  maxLineBytes: number;
  /** the environment every task starts from (the engine's own, usually) */
  baseEnv: Record<string, string>;
  /** this node's secrets, for env values marked { secret: NAME }; none when absent */
  secrets?: SecretSource;
  /** the node's masking step: each value resolved is masked in logs, reasons and alerts (set by the engine) */
  secretMask?: SecretMask;
  /** counts each start's dispatch latency (set by the engine's wiring) */
  metrics?: EngineMetrics;
}

/** Runs a worker's tasks, one `run` per task; the worker keeps the slots, the take loop and the stops. */
export class TaskExecutor {
  private readonly runs: RunCache;

  constructor(
    private readonly store: InstanceStore & RunStore & LogStore,
    private readonly coordinator: Coordinator,
    private readonly runner: ProcessRunner,
    private readonly logs: LogWriter,
    private readonly clock: Clock,
    private readonly options: ExecutionOptions,
    /** another node holds the worker's id now: an outcome is no longer its to record */
    private readonly identityLost: () => boolean,
    /** records an outcome with its follow-ups (one store step); false when the guard refused it */
    private readonly recordOutcome: RunManager['finish'],
    /** told once an outcome is recorded: a slot is free */
    private readonly wakeDispatcher: Dispatcher['wake'],
    private readonly alert: (message: string) => void,
  ) {
    this.runs = new RunCache(store);
  }

  /** Runs one task to its recorded outcome; a start the store refuses (it changed state meanwhile) is only said. */
  async run(entry: Running, task: TaskDefinition, workflowName: string): Promise<void> {
    const { inst } = entry;
    const guard = { from: ['DISPATCHED' as InstanceState], attempt: inst.attempt, workerId: this.options.id };
    const startedAt = this.clock.now();
    if (!(await this.store.markRunning(inst.id, guard, startedAt))) {
      this.alert(`instance ${inst.id} attempt ${inst.attempt}: start refused, it changed state meanwhile`);
      return;
    }
    // Due since it was created, or since its retry's backoff ended.
    this.options.metrics?.instanceStarted(startedAt - Math.max(inst.createdAt, inst.notBefore));
    const running = { ...inst, state: 'RUNNING' as const, startedAt };
    void this.coordinator.publish(instanceEvent(running, this.clock.now())).catch(() => undefined);
    // RUNNING now: a read that failed here (the database away) would leave it RUNNING with no
    // process, to be failed over later; so it waits for the database like the writes do.
    const run = await this.persist(`read the run of instance ${inst.id}`, () => this.runs.get(inst.runId));
    this.logs.open(inst.id, 0, task.logLimitBytes);
    const { env, envFiles, secretValues, missing } = taskLaunch(
      this.options.baseEnv,
      task,
      workflowName,
      inst,
      run,
      startedAt,
      this.options.secrets,
    );
    const fence = { from: ['RUNNING' as InstanceState], attempt: inst.attempt, workerId: this.options.id };
    if (missing) {
      const reason = `could not start: ${this.masked(missing)}`;
      this.logs.system(inst.id, reason);
      await this.finish(entry, fence, 'FAILED', { reason });
      return;
    }
    // Masked before the writer sees a line (and before a long one is cut), so neither the store
    // nor a live follower gets a value, nor the first part of one.
    this.options.secretMask?.add(secretValues);
    const mask = this.options.secretMask?.lineMask();
    try {
      entry.process = await this.runner.start(
        {
          command: task.command,
          cwd: task.cwd,
          env,
          maxLineBytes: this.options.maxLineBytes,
          ...(envFiles && { envFiles }),
        },
        { onLine: (stream, line, bytes) => this.logs.append(inst.id, stream, line, bytes), ...(mask && { mask }) },
      );
    } catch (err) {
      // Node's spawn errors may quote the environment (a value with a NUL byte): masked.
      const reason = `could not start: ${this.masked(err instanceof Error ? err.message : String(err))}`;
      this.logs.system(inst.id, reason);
      await this.finish(entry, fence, 'FAILED', { reason });
      return;
    }
    // Cancelled (or otherwise stopped) between RUNNING and the spawn: it goes at once.
    if (entry.stopReason) void entry.process.terminate(this.options.killGraceMs);
    await this.persist(`record the pid of instance ${inst.id}`, () =>
      this.store.recordPid(inst.id, fence, entry.process?.pid),
    );
    const cancelTimeout =
      task.timeoutMs === undefined
        ? undefined
        : this.clock.setTimer(task.timeoutMs, () => {
            entry.timedOut = true;
            this.logs.system(
              inst.id,
              `timed out after ${formatDuration(task.timeoutMs as number)}: SIGTERM to the process group, SIGKILL after ${formatDuration(this.options.killGraceMs)}`,
            );
            void entry.process?.terminate(this.options.killGraceMs);
          });
    const exit = await entry.process.exited;
    cancelTimeout?.();
    // Anything the command left running in its group goes with it: a retry must never overlap
    // a live leftover of the previous attempt (design.md §7).
    await entry.process.terminate(this.options.killGraceMs);
    // What `ax cancel` waits for: the cancelled task's group is gone.
    if (entry.cancelled) this.logs.system(inst.id, 'stopped: no process of its group is left');
    const { state, reason, failedOver } = taskOutcome(entry, exit, task.timeoutMs);
    if (failedOver) this.logs.system(inst.id, reason as string);
    await this.finish(entry, fence, state, { exitCode: exit.code ?? undefined, reason, failedOver });
    // What left the group (setsid, a daemon) outlives the task: said at the end of its log where
    // the platform can tell, after the outcome, so that looking never delays a task or a slot.
    void this.reportLeftRunning(inst.id, entry.process);
  }

  private async reportLeftRunning(instanceId: number, process: RunningProcess): Promise<void> {
    const left = await process.leftRunning?.().catch(() => []);
    for (const l of left ?? []) {
      await appendLateLine(
        this.store,
        this.coordinator,
        this.clock,
        instanceId,
        `left running: pid ${l.pid} (${l.command}): it left the task's process group, so it was not stopped with the task`,
      );
    }
  }

  private async finish(
    entry: Running,
    fence: { from: InstanceState[]; attempt: number; workerId: string },
    state: Finish['to'],
    patch: { exitCode?: number; reason?: string; failedOver?: true },
  ): Promise<void> {
    const { inst } = entry;
    if (this.identityLost()) {
      // Not ours to report: the scheduler fails it over (its new holder does not list it).
      this.alert(`instance ${inst.id} attempt ${inst.attempt}: ${state} not recorded: this worker lost its id`);
      return;
    }
    entry.reporting = true;
    // The log goes in before the outcome: a finished task's log is never lost. If the store
    // keeps refusing it, the outcome says so rather than passing for complete.
    const unstored = await this.logs.close(inst.id);
    if (unstored > 0) {
      const lost = `its log is incomplete: ${unstored} line(s) could not be stored`;
      patch = { ...patch, reason: patch.reason ? `${patch.reason}; ${lost}` : lost };
      this.alert(`instance ${inst.id} attempt ${inst.attempt} (${state}): ${lost}`);
    }
    const finishedAt = this.clock.now();
    let recorded: boolean;
    try {
      recorded = await this.persist(`record ${state} of instance ${inst.id}`, () =>
        this.recordOutcome(inst, fence, state, { ...patch, finishedAt }),
      );
    } catch (err) {
      // The store refuses for good (its file deleted under the engine): the outcome is said here,
      // since it can be kept nowhere else.
      const exit = patch.exitCode === undefined ? '' : ` (exit code ${patch.exitCode})`;
      this.alert(
        `task ${inst.taskName} of run #${inst.runId} (instance ${inst.id}, attempt ${inst.attempt}) ended ${state}${exit}, NOT recorded: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    if (!recorded) {
      // A retried write is refused when an earlier try landed but its reply was lost with the
      // connection: then the row holds exactly this outcome, and it is ours.
      const now = await this.persist(`read instance ${inst.id}`, () => this.store.getInstance(inst.id));
      const ours =
        now?.state === state &&
        now.attempt === inst.attempt &&
        now.workerId === this.options.id &&
        now.finishedAt === finishedAt;
      if (!ours) {
        if (entry.cancelled || now?.state === 'CANCELLED') return;
        this.alert(
          `instance ${inst.id} attempt ${inst.attempt}: outcome ${state} refused, the instance was taken over`,
        );
        return;
      }
    }
    this.wakeDispatcher();
  }

  private masked(text: string): string {
    return this.options.secretMask ? this.options.secretMask.mask(text) : text;
  }

  /** Up to ten minutes of retries, then the scheduler's backstops take over. */
  private persist<T>(what: string, write: () => Promise<T>): Promise<T> {
    return persistently(this.clock, write, (err, delay) =>
      this.alert(
        `worker ${this.options.id}: could not ${what} (${err instanceof Error ? err.message : String(err)}); retrying in ${delay} ms`,
      ),
    );
  }
}

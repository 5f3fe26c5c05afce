// One task's execution on its worker, from DISPATCHED to its recorded outcome: RUNNING (fenced),
// its process started in its own process group with the task's environment, its lines streamed
// to the log writer, the timeout enforced (SIGTERM, SIGKILL after the grace), and the outcome
// recorded with a fenced compare-and-set once its log is in. Whatever the task left running
// outside its group is said at the end of its log afterwards.
import type { ReasonCode } from '../../api/reason-code.ts';
import { because, reasonText, type Reason } from '../../api/reasons.ts';
import type { InstanceRecord, InstanceState } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator, DispatchMessage } from '../../ports/coordinator.ts';
import type { EngineMetrics } from '../../ports/metrics.ts';
import type { ProcessExit, ProcessRunner, RunningProcess } from '../../ports/process-runner.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import type { TeamSecretResolver } from '../../ports/team-secrets.ts';
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
import { startingTaskSecrets } from '../secrets/team-secret-source.ts';
import { taskLaunch, taskOutcome } from './task-launch.ts';
import { checkPrecondition, type Precondition } from './task-precondition.ts';
import { OUTPUT_MAX_BYTES, parseOutputs } from '../model/task-outputs.ts';
import type { CachedWorkflow } from '../workflow/workflow-cache.ts';
import { upstreamOutputVariables } from './upstream-outputs.ts';
import { instanceLaunch } from './instance-launch.ts';

/** A task its worker runs, from its start lock to its recorded outcome. */
/** Said in a cancelled task's log once no process of its group is left: what `ax cancel` waits for. */
export const STOPPED_LINE = 'stopped: no process of its group is left';

export interface Running {
  inst: InstanceRecord;
  message: DispatchMessage;
  process?: RunningProcess;
  timedOut: boolean;
  /** set when the worker itself stops the process (fenced off, shutdown) */
  stopReason?: Reason;
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
  /**
   * team mode: the team secrets a task refers to and this node does not hold itself, asked at
   * each start (a database worker decrypts them itself; a token-only worker gets them from the
   * server with its dispatch)
   */
  teamSecrets?: TeamSecretResolver;
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
  async run(entry: Running, task: TaskDefinition, workflowName: string, wf?: CachedWorkflow): Promise<void> {
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
    // Its upstreams' outputs, from the store: the node that ran them may be another.
    const upstreamOutputs = await this.persist(`read the upstream outputs of instance ${inst.id}`, () =>
      upstreamOutputVariables(this.store, task, wf, run),
    );
    const secrets = await startingTaskSecrets(
      this.options.secrets,
      this.options.teamSecrets,
      { instanceId: inst.id, workflow: workflowName, workflowId: inst.workflowId, env: task.env },
      (what, read) => this.persist(what, read),
    );
    this.logs.open(inst.id, 0, task.logLimitBytes);
    const { env, envFiles, secretValues, missing } = taskLaunch(
      this.options.baseEnv,
      task,
      workflowName,
      inst,
      run,
      startedAt,
      secrets,
      upstreamOutputs,
    );
    const fence = { from: ['RUNNING' as InstanceState], attempt: inst.attempt, workerId: this.options.id };
    if (missing) {
      const why = because('could_not_start', { error: this.masked(missing) });
      this.logs.system(inst.id, why.reason);
      await this.finish(entry, fence, 'FAILED', why);
      return;
    }
    // Masked before the writer sees a line (and before a long one is cut), so neither the store
    // nor a live follower gets a value, nor the first part of one.
    this.options.secretMask?.add(secretValues);
    const mask = this.options.secretMask?.lineMask();
    if (task.when && !(await this.precondition(entry, task, env, envFiles, fence))) return;
    const launch = instanceLaunch(task, this.options.baseEnv, env, envFiles);
    try {
      entry.process = await this.runner.start(
        {
          command: task.command,
          cwd: task.cwd,
          env,
          maxLineBytes: this.options.maxLineBytes,
          ...(envFiles && { envFiles }),
          outputFile: { env: 'AX_OUTPUT', maxBytes: OUTPUT_MAX_BYTES },
          ...(task.simulate && { simulate: task.simulate }),
        },
        { onLine: (stream, line, bytes) => this.logs.append(inst.id, stream, line, bytes), ...(mask && { mask }) },
      );
    } catch (err) {
      // Node's spawn errors may quote the environment (a value with a NUL byte): masked.
      const why = because('could_not_start', { error: this.masked(err instanceof Error ? err.message : String(err)) });
      this.logs.system(inst.id, why.reason);
      // What it tried to run is what explains most failed starts (a cwd that does not exist).
      await this.persist(`record the launch of instance ${inst.id}`, () =>
        this.store.recordPid(inst.id, fence, undefined, launch),
      );
      await this.finish(entry, fence, 'FAILED', why);
      return;
    }
    // Cancelled (or otherwise stopped) between RUNNING and the spawn: it goes at once.
    if (entry.stopReason) void entry.process.terminate(this.options.killGraceMs);
    // The timeout counts from the spawn, before the pid is written: a write that waits for a slow
    // or absent database must not leave the process running past its timeout, nor let the
    // scheduler's backstop (counted from RUNNING) judge this live worker silent and record a
    // TIMEOUT while the group still lives (test/team/timeout-retry.test.ts).
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
    await this.persist(`record the pid of instance ${inst.id}`, () =>
      this.store.recordPid(inst.id, fence, entry.process?.pid, launch),
    );
    const exit = await entry.process.exited;
    cancelTimeout?.();
    // Anything the command left running in its group goes with it: a retry must never overlap
    // a live leftover of the previous attempt (design.md §7).
    await entry.process.terminate(this.options.killGraceMs);
    // What `ax cancel` waits for: the cancelled task's group is gone.
    if (entry.cancelled) this.logs.system(inst.id, STOPPED_LINE);
    const { state, reason, reasonCode, failedOver } = taskOutcome(entry, exit, task.timeoutMs);
    if (failedOver) this.logs.system(inst.id, reason as string);
    const outputs = this.outputsOf(inst.id, exit);
    const patch = { exitCode: exit.code ?? undefined, reason, reasonCode, failedOver };
    await this.finish(entry, fence, state, patch, outputs);
    // What left the group (setsid, a daemon) outlives the task: said at the end of its log where
    // the platform can tell, after the outcome, so that looking never delays a task or a slot.
    void this.reportLeftRunning(inst.id, entry.process);
  }

  /**
   * The task's `when:` (task-precondition.ts), with the environment it would start with: false
   * when it said no (the instance ends SKIPPED, with the reason) or could not be checked (FAILED).
   */
  private async precondition(
    entry: Running,
    task: TaskDefinition,
    env: Record<string, string>,
    envFiles: Record<string, string> | undefined,
    fence: { from: InstanceState[]; attempt: number; workerId: string },
  ): Promise<boolean> {
    const { inst } = entry;
    const mask = this.options.secretMask?.lineMask();
    let verdict: Precondition;
    let cancelTimeout: (() => void) | undefined;
    try {
      verdict = await checkPrecondition(task.when, env, {
        runner: this.runner,
        spec: {
          cwd: task.cwd,
          env,
          maxLineBytes: this.options.maxLineBytes,
          ...(envFiles && { envFiles }),
          // On a simulated worker (ax serve --simulate) a when: command passes at once, silently.
          simulate: { durationMs: 0, jitter: 0, lines: 0, failRate: 0 },
        },
        onLine: (stream, line, bytes) => this.logs.append(inst.id, stream, line, bytes),
        started: (process) => {
          entry.process = process;
          if (entry.stopReason) void process.terminate(this.options.killGraceMs);
          // The task's timeout covers its when: command too: a check that hangs is no answer.
          if (task.timeoutMs !== undefined)
            cancelTimeout = this.clock.setTimer(task.timeoutMs, () => {
              entry.timedOut = true;
              void process.terminate(this.options.killGraceMs);
            });
        },
        ...(mask && { mask }),
      });
    } catch (err) {
      const why = because('when_could_not_start', {
        error: this.masked(err instanceof Error ? err.message : String(err)),
      });
      this.logs.system(inst.id, why.reason);
      await this.finish(entry, fence, 'FAILED', why);
      return false;
    } finally {
      cancelTimeout?.();
    }
    entry.process = undefined;
    if (entry.timedOut) {
      const why = because('when_timeout', { timeout: task.timeoutMs as number });
      this.logs.system(inst.id, why.reason);
      await this.finish(entry, fence, 'TIMEOUT', why);
      return false;
    }
    if (entry.stopReason) {
      await this.finish(entry, fence, 'FAILED', entry.stopReason);
      return false;
    }
    if (verdict.run) return true;
    const why = this.maskedReason(verdict);
    this.logs.system(inst.id, `skipped: ${why.reason}`);
    await this.finish(entry, fence, 'SKIPPED', why);
    return false;
  }

  /** What the task wrote to $AX_OUTPUT, masked; what was skipped or cut is said in its log. */
  private outputsOf(instanceId: number, exit: ProcessExit): Record<string, string> | undefined {
    if (!exit.output) return undefined;
    const { outputs, notes } = parseOutputs(exit.output.text, exit.output.bytes, (t) => this.masked(t));
    for (const note of notes) this.logs.system(instanceId, note);
    return Object.keys(outputs).length > 0 ? outputs : undefined;
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
    patch: { exitCode?: number; reason?: string; reasonCode?: ReasonCode; failedOver?: true },
    outputs?: Record<string, string>,
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
      const lost = patch.reason
        ? because('log_incomplete_after', { reason: patch.reason, lines: unstored })
        : because('log_incomplete', { lines: unstored });
      patch = { ...patch, ...lost };
      this.alert(
        `instance ${inst.id} attempt ${inst.attempt} (${state}): ${reasonText({ code: 'log_incomplete', args: { lines: unstored } })}`,
      );
    }
    const finishedAt = this.clock.now();
    let recorded: boolean;
    try {
      recorded = await this.persist(`record ${state} of instance ${inst.id}`, () =>
        this.recordOutcome(inst, fence, state, { ...patch, finishedAt }, outputs && { outputs }),
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

  /** A reason with its text and its code's text arguments masked (a `when:` command's output may quote a secret). */
  private maskedReason(why: Reason): Reason {
    const args = why.reasonCode.args;
    return {
      reason: this.masked(why.reason),
      reasonCode: {
        code: why.reasonCode.code,
        ...(args && {
          args: Object.fromEntries(
            Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? this.masked(v) : v]),
          ),
        }),
      },
    };
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

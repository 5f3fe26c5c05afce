// The process runner of a simulated worker (`ax serve --role worker --simulate N`, a
// capacity-planning tool, never a production mode): a task spawns nothing. It "runs" for the
// duration its `simulate:` asks (± its jitter; defaults when it has none), writes its lines through
// the same line splitter and handlers a real process's output goes through (so the worker's log
// writer, masking and batching are the real ones), and exits 0, or 1 for its fail_rate share.
// Everything around it is the real worker: admission, fencing, heartbeats, timeouts, cancels.
// A stop ends it as a process that obeys its signal would: SIGTERM at once, SIGKILL for a grace of 0.
import type {
  ProcessExit,
  ProcessOutputHandlers,
  ProcessRunner,
  ProcessSpec,
  RunningProcess,
} from '../../ports/process-runner.ts';
import type { TaskSimulation } from '../../api/types.ts';
import { LineSplitter } from '../../core/logs/line-splitter.ts';
import { SIMULATION_DEFAULTS } from '../../core/workflow/task-simulate-fields.ts';
import { DEFAULT_MAX_LINE_BYTES } from './spawn-spec.ts';

/** Lines are written in at most this many steps over the duration: a timer per line would not scale. */
const STEPS = 20;

export interface SimulatedRunnerOptions {
  /** in [0, 1): the jitter and the failures; default Math.random */
  random?: () => number;
}

export class SimulatedProcessRunner implements ProcessRunner {
  /** simulated attempts started, ended: what a benchmark reads */
  readonly counts = { started: 0, ended: 0 };
  private readonly random: () => number;

  constructor(options: SimulatedRunnerOptions = {}) {
    this.random = options.random ?? Math.random;
  }

  start(spec: ProcessSpec, handlers: ProcessOutputHandlers): Promise<RunningProcess> {
    this.counts.started += 1;
    const sim = spec.simulate ?? SIMULATION_DEFAULTS;
    const durationMs = Math.max(0, Math.round(sim.durationMs * (1 + sim.jitter * (2 * this.random() - 1))));
    const fails = this.random() < sim.failRate;
    const simulated = new SimulatedProcess(spec, handlers, sim, durationMs, fails);
    void simulated.exited.then(() => (this.counts.ended += 1));
    return Promise.resolve(simulated);
  }

  /** A simulated task leaves no process behind: nothing of a dead simulating process is alive. */
  killLeftover(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

class SimulatedProcess implements RunningProcess {
  /** no process exists: 0, which no kill ever targets (process-groups.ts validPid) */
  readonly pid = 0;
  readonly exited: Promise<ProcessExit>;
  private resolveExit!: (exit: ProcessExit) => void;
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  private written = 0;
  private readonly splitter: LineSplitter;
  private readonly label: string;
  private readonly onStderr: (line: string) => void;

  constructor(
    spec: ProcessSpec,
    handlers: ProcessOutputHandlers,
    private readonly sim: TaskSimulation,
    private readonly durationMs: number,
    private readonly fails: boolean,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    this.splitter = new LineSplitter(
      spec.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      (line, bytes) => handlers.onLine('stdout', line, bytes),
      handlers.mask,
    );
    const e = spec.env;
    this.label = `${e.AX_WORKFLOW ?? '?'}.${e.AX_TASK ?? '?'} run #${e.AX_RUN_ID ?? '?'} attempt ${e.AX_ATTEMPT ?? '?'}`;
    this.onStderr = (line) => handlers.onLine('stderr', line, Buffer.byteLength(line));
    const steps = Math.min(STEPS, Math.max(1, sim.lines));
    this.step(0, steps);
  }

  /** Step i of steps: the lines due by then, then the next step, or the end after the last. */
  private step(i: number, steps: number): void {
    this.timer = setTimeout(
      () => {
        if (this.done) return;
        const due = Math.round((this.sim.lines * (i + 1)) / steps);
        this.write(due);
        if (i + 1 < steps) this.step(i + 1, steps);
        else this.end({ code: this.fails ? 1 : 0, signal: null });
      },
      Math.round(this.durationMs / steps),
    );
  }

  private write(upTo: number): void {
    let text = '';
    for (; this.written < upTo; this.written += 1)
      text += `simulated line ${this.written + 1} of ${this.sim.lines}: ${this.label}\n`;
    if (text) this.splitter.push(Buffer.from(text));
  }

  private end(exit: ProcessExit): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.splitter.end();
    if (exit.code === 1) this.onStderr(`simulated failure (fail_rate ${this.sim.failRate}): exit 1`);
    this.resolveExit(exit);
  }

  /** Ends it as a process that obeys its signal: SIGTERM now, or SIGKILL when no grace is given. */
  terminate(graceMs: number): Promise<void> {
    this.end({ code: null, signal: graceMs > 0 ? 'SIGTERM' : 'SIGKILL' });
    return this.exited.then(() => undefined);
  }
}

// One `ax serve` of the team-load benchmark (bench/team-load.ts) as a child process: its start
// line, its output kept, its event-loop delay asked of bench/loop-monitor.mjs over SIGUSR2.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { REPO, sleep } from './team-load-common.ts';

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export class AxProcess {
  readonly child: ChildProcess;
  readonly tail: string[] = [];
  private readonly loops: LoopDelay[] = [];
  readonly exited: Promise<void>;
  running = true;

  constructor(
    readonly name: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly nodeArgs: string[],
  ) {
    this.child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue;
      readline.createInterface({ input: stream }).on('line', (line) => {
        if (line.startsWith('AXB_LOOP ')) {
          this.loops.push(JSON.parse(line.slice('AXB_LOOP '.length)) as LoopDelay);
          return;
        }
        this.tail.push(line);
        if (this.tail.length > 200) this.tail.shift();
      });
    }
    this.exited = new Promise((resolve) => this.child.on('close', () => ((this.running = false), resolve())));
  }

  /** The same command started again (after a kill -9), as a new process. */
  respawn(): AxProcess {
    return new AxProcess(this.name, this.args, this.env, this.nodeArgs);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  async waitForLine(re: RegExp, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.tail.some((l) => re.test(l))) {
      if (!this.running) throw new Error(`${this.name} exited before printing ${re}:\n${this.tail.join('\n')}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not print ${re} within ${timeoutMs} ms:\n${this.tail.join('\n')}`);
      await sleep(50);
    }
  }

  /** The event-loop delay since the last call (bench/loop-monitor.mjs); undefined if it did not answer. */
  async loopDelay(): Promise<LoopDelay | undefined> {
    const seen = this.loops.length;
    if (!this.running) return undefined;
    this.child.kill('SIGUSR2');
    const deadline = Date.now() + 10_000;
    while (this.loops.length === seen && Date.now() < deadline && this.running) await sleep(20);
    return this.loops[seen];
  }

  /** SIGTERM (the serve drains: nothing runs by now), SIGKILL after graceMs. */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

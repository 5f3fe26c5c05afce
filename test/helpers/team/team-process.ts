// The `ax` processes of a team test. `ax` is started from a bundle of the current engine sources,
// built once per team (as bin/ax.mjs would run dist/ax.mjs, but never stale while others edit
// engine/): through tsx every start-up compiles the sources again, which on a busy two-core
// machine costs seconds per command.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { copyLauncherBeside } from '../../../engine/adapters/process/launcher-process-runner.ts';
import type { AxResult } from '../ax.ts';
import { REPO } from '../files.ts';
import { collectOutput, kernelView, type OutputLine, processAlive } from '../processes.ts';
import { waitFor } from '../wait-for.ts';

export type Role = 'scheduler' | 'worker';

/** A running `ax` command of a team; a `serve` node has a role. */
export class TeamProcess {
  readonly child: ChildProcess;
  readonly lines: OutputLine[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** the test stopped it, or said it will stop by itself: its exit is no failure */
  exitExpected = false;
  private readonly raw: { stdout: string; stderr: string };
  private readonly cwd: string;

  constructor(
    readonly name: string,
    readonly args: string[],
    bundle: string,
    env: NodeJS.ProcessEnv,
    cwd: string,
    readonly role?: Role,
    /** the worker id it was given; a node without one picks its own */
    readonly workerId?: string,
  ) {
    // --report-on-signal: a node that hangs can be asked where (diagnose()).
    this.child = spawn(process.execPath, ['--report-on-signal', '--report-signal=SIGUSR2', bundle, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.cwd = cwd;
    ({ lines: this.lines, text: this.raw } = collectOutput(this.child));
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exit = { code, signal };
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** What a node holds the leader lease as: "<workerId>:<pid>" (the host name when it has no --worker-id). */
  get nodeId(): string {
    return `${this.workerId ?? os.hostname()}:${this.pid}`;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get stdout(): string {
    return this.raw.stdout;
  }

  get stderr(): string {
    return this.raw.stderr;
  }

  describe(): string {
    return `[${this.name}] ax ${this.args.join(' ')} (pid ${this.pid}, ${this.exit ? `exited ${JSON.stringify(this.exit)}` : 'running'})\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`;
  }

  /**
   * Where a node that seems to hang is: what the kernel says of it, then Node's diagnostic
   * report (asked for with SIGUSR2): its JavaScript and native stacks and its libuv handles.
   */
  async diagnose(): Promise<string> {
    const out = [`--- the kernel's view of pid ${this.pid}:\n${kernelView(this.pid)}`];
    if (!this.running) return out.join('\n');
    const before = new Set(fs.readdirSync(this.cwd));
    this.child.kill('SIGUSR2');
    let report: string | undefined;
    try {
      report = await waitFor(
        () =>
          fs
            .readdirSync(this.cwd)
            .find((f) => !before.has(f) && f.startsWith('report.') && f.includes(`.${this.pid}.`)),
        { timeoutMs: 10_000, intervalMs: 100, message: 'no report' },
      );
      await new Promise((r) => setTimeout(r, 300)); // written in one go, but let it end
      const r = JSON.parse(fs.readFileSync(path.join(this.cwd, report), 'utf8')) as {
        javascriptStack?: { message?: string; stack?: string[] };
        nativeStack?: { symbol?: string }[];
        libuv?: { type?: string; is_active?: boolean; is_referenced?: boolean; remoteEndpoint?: unknown }[];
      };
      out.push(
        `--- its JavaScript stack: ${r.javascriptStack?.message ?? ''}\n${(r.javascriptStack?.stack ?? []).slice(0, 30).join('\n')}`,
        `--- its native stack:\n${(r.nativeStack ?? [])
          .slice(0, 25)
          .map((f) => f.symbol)
          .join('\n')}`,
        `--- its active libuv handles:\n${(r.libuv ?? [])
          .filter((h) => h.is_active)
          .map(
            (h) =>
              `${h.type}${h.is_referenced ? '' : ' (unref)'}${h.remoteEndpoint ? ` ${JSON.stringify(h.remoteEndpoint)}` : ''}`,
          )
          .join('\n')}`,
      );
    } catch (err) {
      out.push(
        `--- no diagnostic report within 10 s (${(err as Error).message.split('\n')[0]}): its JavaScript does not run`,
      );
    }
    return out.join('\n');
  }

  /** Waits for an output line matching re (on either stream); fails at once when the process exits first. */
  async waitForLine(re: RegExp, timeoutMs = 30_000): Promise<OutputLine> {
    return waitFor(
      () => {
        const line = this.lines.find((l) => re.test(l.text));
        if (!line && !this.running) throw new Error('the process exited');
        return line;
      },
      { timeoutMs, intervalMs: 50, message: () => `no output line matching ${re}\n${this.describe()}` },
    );
  }

  async result(timeoutMs = 60_000): Promise<AxResult> {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill('SIGKILL');
        reject(new Error(`did not exit within ${timeoutMs} ms\n${this.describe()}`));
      }, timeoutMs);
    });
    try {
      const { code, signal } = await Promise.race([this.exited, deadline]);
      return { code, signal, stdout: this.stdout, stderr: this.stderr, ms: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a signal to this process only; any but SIGSTOP and SIGCONT makes its exit expected. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (signal !== 'SIGSTOP' && signal !== 'SIGCONT') this.exitExpected = true;
    if (this.running) this.child.kill(signal);
  }

  /** kill -9, on purpose, and its exit. */
  async kill9(): Promise<void> {
    this.kill('SIGKILL');
    await this.exited;
  }

  /** The test made it exit by itself (a drain, a lost id): its exit is no failure. */
  expectExit(): this {
    this.exitExpected = true;
    return this;
  }
}

/** SIGKILLs every live process whose environment has AXT_DIR=dir; returns how many it found. */
export function killMarked(dir: string): number {
  const marker = `AXT_DIR=${dir}`;
  let found = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const pid = Number(entry);
    let env: string[];
    try {
      env = fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
    } catch {
      continue; // gone, or not ours to read
    }
    if (!env.includes(marker) || !processAlive(pid)) continue;
    found++;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Bundles the `ax` CLI from the current sources (see the file comment); returns its path. */
export async function buildBundle(): Promise<string> {
  // Inside the repository, so that the bundle's external imports resolve to its node_modules.
  const dir = path.join(REPO, 'node_modules', '.cache', 'ax-team-test');
  fs.mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `ax-${process.pid}-${randomBytes(4).toString('hex')}.mjs`);
  await build({
    stdin: {
      contents: "import { main } from './engine/hosts/cli/main.ts';\nawait main(process.argv);\n",
      resolveDir: REPO,
      sourcefile: 'ax-team-test-entry.ts',
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  copyLauncherBeside(outfile);
  return outfile;
}

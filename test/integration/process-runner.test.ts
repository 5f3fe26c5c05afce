// Real processes. Unix only: process groups and /proc are what is being tested.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LauncherProcessRunner } from '../../engine/adapters/process/launcher-process-runner.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import type { ProcessRunner, ProcessSpec, RunningProcess } from '../../engine/ports/process-runner.ts';
import { groupMembers } from '../helpers/processes.ts';

const started: RunningProcess[] = [];
const runners: ProcessRunner[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'ax-runner-'));

interface Output {
  stdout: string[];
  stderr: string[];
}

async function start(
  on: ProcessRunner,
  command: string,
  extra: Partial<ProcessSpec> = {},
): Promise<RunningProcess & Output> {
  const out: Output = { stdout: [], stderr: [] };
  const proc = await on.start(
    { command, env: { ...(process.env as Record<string, string>) }, ...extra },
    {
      onLine: (stream, line) => out[stream].push(line),
    },
  );
  started.push(proc);
  return { ...proc, ...out };
}

/** Polls until cond() is true; fails with `what` after the deadline. */
async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether anything of the group led by pgid is alive (read from /proc, not from the runner). */
const groupAlive = (pgid: number): boolean => groupMembers(pgid).length > 0;

afterEach(async () => {
  await Promise.all(started.splice(0).map((proc) => proc.terminate(0)));
});

afterAll(() => {
  for (const r of runners) r.dispose?.();
  rmSync(scratch, { recursive: true, force: true });
});

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function made<T extends ProcessRunner>(runner: T): T {
  runners.push(runner);
  return runner;
}

// The same suite for both runners: spawning in a launcher must change nothing the engine sees.
const RUNNERS: [string, (options?: { shell?: string }) => ProcessRunner][] = [
  ['LauncherProcessRunner', (options) => made(new LauncherProcessRunner({ killGraceMs: 1000, ...options }))],
  ['NodeProcessRunner (direct spawn)', (options) => made(new NodeProcessRunner(options))],
];

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32').each(RUNNERS)('%s', (_name, make) => {
  const runner = make();
  const run = (command: string, extra: Partial<ProcessSpec> = {}, on = runner) => start(on, command, extra);

  it('captures stdout and stderr line by line, in order per stream', async () => {
    const proc = await run('echo a; echo b >&2; printf "c\\nd"; echo e >&2');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.stdout).toEqual(['a', 'c', 'd']);
    expect(proc.stderr).toEqual(['b', 'e']);
  });

  it('reports exit codes and signals', async () => {
    expect(await (await run('exit 3')).exited).toEqual({ code: 3, signal: null });
    expect(await (await run('kill -KILL $$')).exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('honours env exactly and cwd', async () => {
    process.env.AX_RUNNER_TEST_LEAK = 'leak';
    try {
      const proc = await run('echo "$FOO"; echo "${AX_RUNNER_TEST_LEAK-unset}"; pwd', {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FOO: 'bar baz' },
        cwd: scratch,
      });
      expect(await proc.exited).toEqual({ code: 0, signal: null });
      expect(proc.stdout).toEqual(['bar baz', 'unset', realpathSync(scratch)]);
    } finally {
      delete process.env.AX_RUNNER_TEST_LEAK;
    }
  });

  it('rejects a missing working directory before spawning', async () => {
    const cwd = join(scratch, 'missing');
    await expect(runner.start({ command: 'true', env: {}, cwd }, { onLine: () => undefined })).rejects.toThrow(
      `working directory "${cwd}" does not exist`,
    );
  });

  it('reports a shell that cannot be started as exit 127 with an explanation', async () => {
    const proc = await run('true', {}, make({ shell: join(scratch, 'no-such-shell') }));
    expect(await proc.exited).toEqual({ code: 127, signal: null });
    expect(proc.stderr.join('\n')).toMatch(/cannot start shell .*no-such-shell.*ENOENT/);
    await proc.terminate(100); // nothing to kill, must not signal pid 0
  });

  it('terminates the whole group, background children included', async () => {
    const proc = await run('sleep 300 & sleep 300');
    await waitFor(() => groupMembers(proc.pid).length >= 2, 'both sleeps');
    expect(groupAlive(proc.pid)).toBe(true);
    await proc.terminate(2000);
    expect(groupMembers(proc.pid)).toEqual([]);
    expect(groupAlive(proc.pid)).toBe(false);
    // sleep obeys SIGTERM: no need for SIGKILL (how long it takes: bench/guard-times.ts)
    expect((await proc.exited).signal).toBe('SIGTERM');
    await proc.terminate(2000); // idempotent after exit
  });

  it('SIGKILLs a group that ignores SIGTERM, after the grace period', async () => {
    const proc = await run('trap "" TERM; echo ready; sleep 300');
    await waitFor(() => proc.stdout.includes('ready'), 'trap installed');
    const t0 = Date.now();
    await proc.terminate(500);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(groupMembers(proc.pid)).toEqual([]);
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('SIGKILLs a shell that traps SIGTERM and carries on', async () => {
    const proc = await run('trap "echo got term" TERM; echo ready; while true; do sleep 0.1; done');
    await waitFor(() => proc.stdout.includes('ready'), 'trap installed');
    const t0 = Date.now();
    await proc.terminate(500);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(groupMembers(proc.pid)).toEqual([]);
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(proc.stdout).toContain('got term');
  });

  it('resolves exited promptly when a background child holds the pipe open', async () => {
    const proc = await run('sleep 300 & echo started');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.stdout).toEqual(['started']);
    // exited came with the shell's end, not the pipe's: the sleeper still holds it (the time: bench/guard-times.ts)
    expect(groupMembers(proc.pid).length).toBe(1); // the sleeper, leaderless
    expect(groupAlive(proc.pid)).toBe(true);
    await proc.terminate(2000);
    expect(groupMembers(proc.pid)).toEqual([]);
    expect(groupAlive(proc.pid)).toBe(false);
  });

  it.each([
    ['the leader', 'sleep 300 & wait'],
    ['a member after the leader exited', 'sleep 300 & echo started'],
  ])('killLeftover kills only a group that belongs to the instance (%s)', async (_, command) => {
    const proc = await run(command, { env: { ...(process.env as Record<string, string>), AX_INSTANCE_ID: '42' } });
    await waitFor(() => groupMembers(proc.pid).some((pid) => pid !== proc.pid), 'the sleeper');
    expect(await runner.killLeftover(proc.pid, 41, 1000)).toBe(false);
    expect(groupAlive(proc.pid)).toBe(true);
    expect(await runner.killLeftover(proc.pid, 42, 1000)).toBe(true);
    expect(groupAlive(proc.pid)).toBe(false);
    expect(groupMembers(proc.pid)).toEqual([]);
    expect(await runner.killLeftover(proc.pid, 42, 1000)).toBe(false);
  });

  it('reports what left the group (setsid) as left running, and not what stayed in it', async () => {
    const pidFile = join(mkdtempSync(join(scratch, 'escaped-')), 'escaped.pid');
    // setsid forks when the shell's child leads a group already: the escaped sleeper writes its own pid.
    const proc = await run(
      `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 300' </dev/null >/dev/null 2>&1 & sleep 300 & echo started`,
    );
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    await waitFor(() => readFileSafe(pidFile) !== '', 'the escaped sleeper');
    const escaped = Number(readFileSafe(pidFile));
    await proc.terminate(2000);
    expect(groupMembers(proc.pid)).toEqual([]);
    try {
      expect(await proc.leftRunning?.()).toEqual([{ pid: escaped, command: 'sleep 300' }]);
    } finally {
      process.kill(escaped, 'SIGKILL');
    }
    await waitFor(
      () => !existsSync(`/proc/${escaped}/stat`) || readFileSafe(`/proc/${escaped}/stat`).includes(') Z '),
      'the escaped sleeper gone',
    );
    expect(await proc.leftRunning?.()).toEqual([]);
  });

  it('many tasks ending together are answered by shared scans, each with its own escapee', async () => {
    // the suite runs once per runner: file names of their own, never a pid file of the last run
    const pidFiles = [0, 1, 2].map((i) => join(mkdtempSync(join(scratch, 'many-')), `${i}.pid`));
    const procs = await Promise.all(
      pidFiles.map((f) =>
        run(`setsid sh -c 'echo $$ > ${f}; exec sleep 300' </dev/null >/dev/null 2>&1 & echo started`),
      ),
    );
    await Promise.all(procs.map((p) => p.exited));
    await waitFor(() => pidFiles.every((f) => readFileSafe(f) !== ''), 'the escaped sleepers');
    const escaped = pidFiles.map((f) => Number(readFileSafe(f)));
    try {
      await Promise.all(procs.map((p) => p.terminate(1000)));
      const found = await Promise.all(procs.map((p) => p.leftRunning?.()));
      expect(found).toEqual(escaped.map((pid) => [{ pid, command: 'sleep 300' }]));
    } finally {
      for (const pid of escaped) killQuietly(pid);
    }
  });

  it('a task that leaves nothing running reports nothing, even with other tasks alive', async () => {
    const other = await run('sleep 300');
    const proc = await run('echo done');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    await proc.terminate(1000);
    expect(await proc.leftRunning?.()).toEqual([]);
    expect(groupAlive(other.pid)).toBe(true);
  });

  it('turns binary output into valid, control-free strings', async () => {
    const proc = await run('head -c 100000 /dev/urandom');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    const text = proc.stdout.join('\n');
    expect(text.length).toBeGreaterThan(0);
    // A lone surrogate would not survive an encode/decode round trip.
    expect(new TextDecoder().decode(new TextEncoder().encode(text))).toBe(text);
    expect(proc.stdout.some((line) => /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(line))).toBe(false);
  });

  it('cuts over-long lines at maxLineBytes', async () => {
    const proc = await run("head -c 300000 /dev/zero | tr '\\0' x; echo; echo after", { maxLineBytes: 1000 });
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.stdout).toEqual([`${'x'.repeat(1000)} … [line truncated: 300000 bytes]`, 'after']);
  });
});

/** SIGKILL to a pid that may be gone already. */
function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // ESRCH: gone
  }
}

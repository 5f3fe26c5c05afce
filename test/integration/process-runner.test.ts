// Real processes. Unix only: process groups and /proc are what is being tested.
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import type { ProcessSpec, RunningProcess } from '../../engine/ports/process-runner.ts';

const runner = new NodeProcessRunner();
const started: RunningProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'ax-runner-'));

interface Output {
  stdout: string[];
  stderr: string[];
}

function run(command: string, extra: Partial<ProcessSpec> = {}, on = runner): RunningProcess & Output {
  const out: Output = { stdout: [], stderr: [] };
  const proc = on.start({ command, env: { ...(process.env as Record<string, string>) }, ...extra }, {
    onLine: (stream, line) => out[stream].push(line),
  });
  started.push(proc);
  return { ...proc, ...out };
}

/** Polls until cond() is true; fails with `what` after the deadline. */
async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Processes of group pgid from /proc, independent of the runner's own scan. Zombies are left
 * out: where init does not reap orphans (this container) they stay forever, dead but listed.
 */
function liveMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((proc) => proc.terminate(0)));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('NodeProcessRunner', () => {
  it('captures stdout and stderr line by line, in order per stream', async () => {
    const proc = run('echo a; echo b >&2; printf "c\\nd"; echo e >&2');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.stdout).toEqual(['a', 'c', 'd']);
    expect(proc.stderr).toEqual(['b', 'e']);
  });

  it('reports exit codes and signals', async () => {
    expect(await run('exit 3').exited).toEqual({ code: 3, signal: null });
    expect(await run('kill -KILL $$').exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('honours env exactly and cwd', async () => {
    process.env.AX_RUNNER_TEST_LEAK = 'leak';
    try {
      const proc = run('echo "$FOO"; echo "${AX_RUNNER_TEST_LEAK-unset}"; pwd', {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FOO: 'bar baz' },
        cwd: scratch,
      });
      expect(await proc.exited).toEqual({ code: 0, signal: null });
      expect(proc.stdout).toEqual(['bar baz', 'unset', realpathSync(scratch)]);
    } finally {
      delete process.env.AX_RUNNER_TEST_LEAK;
    }
  });

  it('rejects a missing working directory before spawning', () => {
    const cwd = join(scratch, 'missing');
    expect(() => runner.start({ command: 'true', env: {}, cwd }, { onLine: () => undefined })).toThrow(
      `working directory "${cwd}" does not exist`,
    );
  });

  it('reports a shell that cannot be started as exit 127 with an explanation', async () => {
    const proc = run('true', {}, new NodeProcessRunner({ shell: join(scratch, 'no-such-shell') }));
    expect(await proc.exited).toEqual({ code: 127, signal: null });
    expect(proc.stderr.join('\n')).toMatch(/cannot start shell .*no-such-shell.*ENOENT/);
    await proc.terminate(100); // nothing to kill, must not signal pid 0
  });

  it('terminates the whole group, background children included', async () => {
    const proc = run('sleep 300 & sleep 300');
    await waitFor(() => liveMembers(proc.pid).length >= 2, 'both sleeps');
    expect(runner.isGroupAlive(proc.pid)).toBe(true);
    const t0 = Date.now();
    await proc.terminate(2000);
    expect(Date.now() - t0).toBeLessThan(2000); // sleep obeys SIGTERM: no need for SIGKILL
    expect(liveMembers(proc.pid)).toEqual([]);
    expect(runner.isGroupAlive(proc.pid)).toBe(false);
    expect((await proc.exited).signal).toBe('SIGTERM');
    await proc.terminate(2000); // idempotent after exit
  });

  it('SIGKILLs a group that ignores SIGTERM, after the grace period', async () => {
    const proc = run('trap "" TERM; echo ready; sleep 300');
    await waitFor(() => proc.stdout.includes('ready'), 'trap installed');
    const t0 = Date.now();
    await proc.terminate(500);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(liveMembers(proc.pid)).toEqual([]);
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('SIGKILLs a shell that traps SIGTERM and carries on', async () => {
    const proc = run('trap "echo got term" TERM; echo ready; while true; do sleep 0.1; done');
    await waitFor(() => proc.stdout.includes('ready'), 'trap installed');
    const t0 = Date.now();
    await proc.terminate(500);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(liveMembers(proc.pid)).toEqual([]);
    expect(await proc.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(proc.stdout).toContain('got term');
  });

  it('resolves exited promptly when a background child holds the pipe open', async () => {
    const t0 = Date.now();
    const proc = run('sleep 300 & echo started');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(proc.stdout).toEqual(['started']);
    expect(liveMembers(proc.pid).length).toBe(1); // the sleeper, leaderless
    expect(runner.isGroupAlive(proc.pid)).toBe(true);
    await proc.terminate(2000);
    expect(liveMembers(proc.pid)).toEqual([]);
    expect(runner.isGroupAlive(proc.pid)).toBe(false);
  });

  it.each([
    ['the leader', 'sleep 300 & wait'],
    ['a member after the leader exited', 'sleep 300 & echo started'],
  ])('killLeftover kills only a group that belongs to the instance (%s)', async (_, command) => {
    const proc = run(command, { env: { ...(process.env as Record<string, string>), AX_INSTANCE_ID: '42' } });
    await waitFor(() => liveMembers(proc.pid).some((pid) => pid !== proc.pid), 'the sleeper');
    expect(await runner.killLeftover(proc.pid, 41, 1000)).toBe(false);
    expect(runner.isGroupAlive(proc.pid)).toBe(true);
    expect(await runner.killLeftover(proc.pid, 42, 1000)).toBe(true);
    expect(runner.isGroupAlive(proc.pid)).toBe(false);
    expect(liveMembers(proc.pid)).toEqual([]);
    expect(await runner.killLeftover(proc.pid, 42, 1000)).toBe(false);
  });

  it('turns binary output into valid, control-free strings', async () => {
    const proc = run('head -c 100000 /dev/urandom');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    const text = proc.stdout.join('\n');
    expect(text.length).toBeGreaterThan(0);
    // A lone surrogate would not survive an encode/decode round trip.
    expect(new TextDecoder().decode(new TextEncoder().encode(text))).toBe(text);
    expect(proc.stdout.some((line) => /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(line))).toBe(false);
  });

  it('cuts over-long lines at maxLineBytes', async () => {
    const proc = run("head -c 300000 /dev/zero | tr '\\0' x; echo; echo after", { maxLineBytes: 1000 });
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.stdout).toEqual([`${'x'.repeat(1000)} … [line truncated: 300000 bytes]`, 'after']);
  });
});

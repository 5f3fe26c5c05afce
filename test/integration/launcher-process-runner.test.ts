// What only the launcher-based runner does (the shared behaviour is process-runner.test.ts):
// its launcher is the watchdog that kills the engine's task groups when the engine dies, and a
// launcher that dies on its own loses its tasks (killed, reported `lost`) and is replaced.
// Real processes; Linux only: groups are judged from /proc, zombies included.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LauncherProcessRunner } from '../../engine/adapters/process/launcher-process-runner.ts';
import type { ProcessSpec } from '../../engine/ports/process-runner.ts';
import { REPO, tempDir } from '../helpers/files.ts';
import { groupMembers, killGroup, processAlive, procState } from '../helpers/processes.ts';
import { waitFor } from '../helpers/wait-for.ts';

const cleanups: (() => void)[] = [];

afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const env = (): ProcessSpec['env'] => ({ ...(process.env as Record<string, string>) });

// Linux only: the launcher's watchdog (parent pid) and these checks read /proc.
describe.skipIf(process.platform !== 'linux')('LauncherProcessRunner', () => {
  it('a launcher killed on its own: its tasks are killed and reported lost, and the next start gets a new launcher', async () => {
    const alerts: string[] = [];
    const runner = new LauncherProcessRunner({ killGraceMs: 1_000, onAlert: (m) => alerts.push(m) });
    cleanups.push(() => runner.dispose());
    const out: string[] = [];
    // `exec`: the group is two sleeps whatever the shell (bash may fork for the last command).
    const proc = await runner.start(
      { command: 'sleep 300 & echo started; exec sleep 300', env: env() },
      { onLine: (_, line) => out.push(line) },
    );
    cleanups.push(() => killGroup(proc.pid));
    // A fresh launcher's first spawn: slow on a loaded machine (the whole suite on 2 cores).
    await waitFor(
      () => {
        const members = groupMembers(proc.pid);
        if (members.length !== 2 || !out.includes('started'))
          throw new Error(`members ${JSON.stringify(members)}, output ${JSON.stringify(out)}`);
        return true;
      },
      { timeoutMs: 20_000, message: 'both sleeps running and "started" printed' },
    );
    const [launcher] = runner.launcherPids();
    expect(launcher).toBeGreaterThan(1);
    expect(groupMembers(proc.pid)).not.toContain(launcher);

    process.kill(launcher as number, 'SIGKILL');
    const exit = await proc.exited;
    expect(exit).toEqual({
      code: null,
      signal: null,
      lost: `its task launcher (pid ${launcher}) was killed by SIGKILL`,
    });
    // Resolved only once the group is gone: a fail-over never overlaps the lost attempt.
    expect(groupMembers(proc.pid)).toEqual([]);
    expect(alerts).toEqual([
      `task launcher (pid ${launcher}) was killed by SIGKILL: 1 running task(s) lost with it fail over; a new launcher takes the next task`,
    ]);

    const lines: string[] = [];
    const next = await runner.start({ command: 'echo again', env: env() }, { onLine: (_, line) => lines.push(line) });
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect(lines).toEqual(['again']);
    expect(runner.launcherPids()).toHaveLength(1);
    expect(runner.launcherPids()).not.toContain(launcher);
  });

  it('the engine killed and left an unreaped zombie: its launcher kills the task groups, SIGKILL for one that ignores SIGTERM', async () => {
    const dir = tempDir('ax-launcher-watchdog-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const engine = path.join(dir, 'engine.mts');
    // An engine stand-in with the default 10 s kill grace: the launcher must not wait that long.
    fs.writeFileSync(
      engine,
      `import fs from 'node:fs';
import { LauncherProcessRunner } from ${JSON.stringify(path.join(REPO, 'engine/adapters/process/launcher-process-runner.ts'))};
const runner = new LauncherProcessRunner({ killGraceMs: 10_000 });
const env = { ...process.env };
const plain = await runner.start({ command: 'sleep 300 & sleep 300', env }, { onLine: () => undefined });
// Its "ready" line may come with its pid, before start() has resolved: written once both are in.
let ready = false;
let stubborn: { pid: number } | undefined;
const tell = () => {
  if (ready && stubborn) fs.writeFileSync(${JSON.stringify(path.join(dir, 'ready'))}, [process.pid, runner.launcherPids().join(','), plain.pid, stubborn.pid].join(' '));
};
stubborn = await runner.start({ command: 'trap "" TERM; echo ready; sleep 300', env }, { onLine: () => { ready = true; tell(); } });
tell();
setInterval(() => undefined, 1000);
`,
    );
    // The engine's parent never reaps it: once killed, it stays a zombie.
    const parent = spawn('/bin/sh', ['-c', `"${process.execPath}" --import tsx "${engine}" & exec sleep 600`], {
      cwd: REPO,
      stdio: 'ignore',
      detached: true,
    });
    cleanups.push(() => killGroup(parent.pid as number));
    const text = await waitFor(
      () => (fs.existsSync(path.join(dir, 'ready')) ? fs.readFileSync(path.join(dir, 'ready'), 'utf8') : undefined),
      {
        timeoutMs: 30_000,
        message: 'the engine did not start its tasks',
      },
    );
    const [enginePid, launchers, plain, stubborn] = text.split(' ');
    const groups = [Number(plain), Number(stubborn)];
    const launcherPids = (launchers as string).split(',').map(Number);
    for (const g of groups) cleanups.push(() => killGroup(g));
    await waitFor(() => groupMembers(groups[0] as number).length >= 2 && groupMembers(groups[1] as number).length > 0, {
      message: 'the tasks run',
    });

    process.kill(Number(enginePid), 'SIGKILL');
    await waitFor(() => procState(Number(enginePid)) === 'Z', { message: 'the killed engine did not become a zombie' });
    // Aimed at 2 s (SIGKILL 1.5 s after the SIGTERM); the deadline is loose for a loaded machine,
    // yet well short of the 10 s kill grace the stand-in was given.
    await waitFor(() => groups.every((g) => groupMembers(g).length === 0), {
      timeoutMs: 6_000,
      message: 'the tasks outlived their engine',
    });
    await waitFor(() => launcherPids.every((p) => !processAlive(p)), { message: 'the launcher outlived its engine' });
    expect(procState(Number(enginePid))).toBe('Z');
  });

  it('the engine killed while its launcher is still starting: the launcher sees it and exits', async () => {
    const dir = tempDir('ax-launcher-orphan-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const engine = path.join(dir, 'engine.mts');
    // start() forks the launcher at once; the stand-in dies before the launcher has loaded its
    // script, so the launcher starts with init as its parent and its channel already closed.
    fs.writeFileSync(
      engine,
      `import fs from 'node:fs';
import { LauncherProcessRunner } from ${JSON.stringify(path.join(REPO, 'engine/adapters/process/launcher-process-runner.ts'))};
const runner = new LauncherProcessRunner({ killGraceMs: 1_000 });
void runner.start({ command: 'sleep 300', env: { ...process.env } }, { onLine: () => undefined });
fs.writeFileSync(${JSON.stringify(path.join(dir, 'launcher'))}, runner.launcherPids().join(','));
process.kill(process.pid, 'SIGKILL');
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', engine], { cwd: REPO, stdio: 'ignore' });
    await new Promise((resolve) => child.on('exit', resolve));
    const launchers = fs.readFileSync(path.join(dir, 'launcher'), 'utf8').split(',').map(Number);
    expect(launchers).toHaveLength(1);
    for (const pid of launchers) cleanups.push(() => processAlive(pid) && process.kill(pid, 'SIGKILL'));
    // Before the fix it lived on for good, holding the engine's stdout and stderr open.
    await waitFor(() => launchers.every((p) => !processAlive(p)), {
      timeoutMs: 10_000,
      message: 'the launcher outlived its engine',
    });
  });
  it("each start's environment is exact, though a launcher gets only its difference from the last base", async () => {
    const runner = new LauncherProcessRunner({ killGraceMs: 1_000, launchers: 1 });
    cleanups.push(() => runner.dispose());
    const run = async (vars: Record<string, string>, drop: string[] = []) => {
      const spec = { ...env(), ...vars };
      for (const name of drop) delete spec[name];
      const lines: string[] = [];
      const proc = await runner.start({ command: 'env', env: spec }, { onLine: (_, line) => lines.push(line) });
      expect(await proc.exited).toEqual({ code: 0, signal: null });
      return new Map(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    };
    const first = await run({ AX_TASK: 'a', SHARED: 'one', ONLY_FIRST: 'x' });
    expect([first.get('AX_TASK'), first.get('SHARED'), first.get('ONLY_FIRST')]).toEqual(['a', 'one', 'x']);
    // A variable of the first start's base removed, one changed, one new.
    const second = await run({ AX_TASK: 'b', SHARED: 'two', ONLY_SECOND: 'y' }, ['HOME']);
    expect([second.get('AX_TASK'), second.get('SHARED'), second.get('ONLY_SECOND')]).toEqual(['b', 'two', 'y']);
    expect(second.has('ONLY_FIRST')).toBe(false);
    expect(second.has('HOME')).toBe(false);
    // Many differences at once: a new base goes first; then back to a small difference.
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`MANY_${i}`, String(i)]));
    const third = await run({ AX_TASK: 'c', ...many });
    expect(third.get('MANY_49')).toBe('49');
    expect(third.get('HOME')).toBe(process.env.HOME);
    const fourth = await run({ AX_TASK: 'd' });
    expect([...fourth.keys()].filter((k) => k.startsWith('MANY_'))).toEqual([]);
    expect(fourth.get('AX_TASK')).toBe('d');
    expect(runner.launcherPids()).toHaveLength(1);
  });
});

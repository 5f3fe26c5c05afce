// The supervisor on real processes: a fixture host that crashes on purpose (restarts with a
// doubling backoff, the crash's stderr tail kept, a crash loop given up, restart() resetting it,
// 'failed' never restarted), and the real engine host (killed, it comes back on the same data
// dir; a second engine on that dir is 'failed' with conflict; stop drains and exits).
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngineSupervisor, STDERR_TAIL_CHARS } from '../../electron/engine-supervisor.ts';
import type { DesktopEngineStatus } from '../../engine/api/desktop-bridge.ts';
import { nodeEngineLauncher } from '../helpers/node-engine-launcher.ts';
import { tempDir } from '../helpers/files.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const CRASHY = path.join(here, 'fixtures', 'crashy-host.mjs');
const ENGINE_HOST = path.resolve(here, '../../engine/hosts/port/engine-host.ts');

let root: string;
const children: ChildProcess[] = [];
const supervisors: EngineSupervisor[] = [];

beforeAll(() => {
  root = tempDir('ax-supervisor-');
});

afterEach(() => {
  for (const s of supervisors.splice(0)) void s.stop(0);
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function crashy(env: Record<string, string>, options: Partial<ConstructorParameters<typeof EngineSupervisor>[0]> = {}) {
  const count = path.join(fs.mkdtempSync(path.join(root, 'crashy-')), 'starts');
  const statuses: DesktopEngineStatus[] = [];
  const supervisor = new EngineSupervisor({
    launch: nodeEngineLauncher({ script: CRASHY, env: { ...process.env, CRASHY_COUNT: count, ...env }, children }),
    firstBackoffMs: 20,
    maxBackoffMs: 80,
    ...options,
  });
  supervisor.onStatus((s) => statuses.push(s));
  supervisors.push(supervisor);
  const starts = () => (fs.existsSync(count) ? fs.readFileSync(count, 'utf8').trim().split('\n').length : 0);
  return { supervisor, statuses, starts };
}

describe('engine supervisor, on a host that crashes on purpose', () => {
  it('restarts a crashed host with a doubling backoff until it runs, keeping the last crash and its stderr tail', async () => {
    const { supervisor, statuses, starts } = crashy({ CRASHY_CRASHES: '3' });
    supervisor.start();
    await waitFor(() => supervisor.status().state === 'running', {
      timeoutMs: 30_000,
      message: 'the host runs after three crashes',
    });
    expect(starts()).toBe(4);

    const restarts = statuses.filter((s) => s.state === 'restarting');
    expect(restarts.map((s) => s.attempt)).toEqual([2, 3, 4]);
    // The planned delays (retryAt - crash time), not measured ones: 20, 40, 80 ms.
    expect(restarts.map((s) => s.retryAt - s.lastCrash.at)).toEqual([20, 40, 80]);
    const last = restarts[2]!.lastCrash;
    expect(last.code).toBe(3);
    expect(last.stderrTail.length).toBeLessThanOrEqual(STDERR_TAIL_CHARS);
    expect(last.stderrTail).toMatch(/crash number 3\n$/);
    // Each crash's tail is its own process's stderr, not the one before.
    expect(last.stderrTail).not.toContain('crash number 2');
    expect(statuses.filter((s) => s.state === 'starting').map((s) => s.attempt)).toEqual([1, 2, 3, 4]);
    const running = supervisor.status();
    expect(running).toMatchObject({ state: 'running', dataDir: '/tmp/crashy', version: 'test' });
  });

  it('gives up after the crash limit within the window, and restart() starts again with a clean history', async () => {
    const { supervisor, statuses, starts } = crashy({ CRASHY_CRASHES: '4' }, { crashLimit: 3, crashWindowMs: 600_000 });
    supervisor.start();
    const gaveUp = await waitFor(
      () => {
        const s = supervisor.status();
        return s.state === 'gave-up' ? s : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(gaveUp.attempts).toBe(3);
    expect(gaveUp.lastCrash.stderrTail).toContain('crash number 3');
    expect(supervisor.process()).toBeUndefined();
    expect(starts()).toBe(3);

    statuses.length = 0;
    supervisor.restart();
    // Start 4 crashes once more, then 5 runs: the history was reset, or this would give up at once.
    await waitFor(() => supervisor.status().state === 'running', { timeoutMs: 30_000 });
    expect(starts()).toBe(5);
    expect(statuses.map((s) => s.state)).toEqual(['starting', 'restarting', 'starting', 'running']);
    expect(statuses[0]).toMatchObject({ state: 'starting', attempt: 1 });
  });

  it("a host that reports 'failed' is failed, not restarted", async () => {
    const { supervisor, statuses, starts } = crashy({ CRASHY_FAIL: '1' });
    supervisor.start();
    await waitFor(() => supervisor.status().state === 'failed', { timeoutMs: 30_000 });
    expect(supervisor.status()).toEqual({
      state: 'failed',
      code: 'conflict',
      message: 'another AX engine is running on /tmp/x',
    });
    expect(statuses.some((s) => s.state === 'restarting')).toBe(false);
    expect(starts()).toBe(1);
  });

  it('what a starting host says is shown with its starting status, until it runs', async () => {
    const note = 'upgrading the log store (once): moving 1,234,567 stored log lines into compressed chunks';
    const { supervisor, statuses } = crashy({ CRASHY_NOTE: note, CRASHY_NOTE_MS: '300' });
    const alerts: string[] = [];
    supervisor.onAlert((a) => alerts.push(a));
    supervisor.start();
    await waitFor(() => supervisor.status().state === 'running', { timeoutMs: 30_000 });
    expect(alerts).toEqual([note]);
    expect(statuses.map((s) => s.state)).toEqual(['starting', 'starting', 'running']);
    expect(statuses[1]).toEqual({ state: 'starting', attempt: 1, note });
    expect(supervisor.status()).not.toHaveProperty('note');
  });

  it('stop() tells the host its drain, waits for its exit, and does not restart it', async () => {
    const { supervisor, statuses, starts } = crashy({});
    const alerts: string[] = [];
    supervisor.onAlert((a) => alerts.push(a));
    supervisor.start();
    await waitFor(() => supervisor.status().state === 'running', { timeoutMs: 30_000 });
    await supervisor.stop(1234);
    expect(alerts).toEqual(['stopping with drain 1234']);
    expect(supervisor.status()).toEqual({ state: 'stopping' });
    expect(supervisor.process()).toBeUndefined();
    expect(statuses.at(-1)).toEqual({ state: 'stopping' });
    expect(starts()).toBe(1);
  });

  it('relaunch() stops the host with its drain and starts a new one: not a crash, nothing counted', async () => {
    const { supervisor, statuses, starts } = crashy({});
    const alerts: string[] = [];
    supervisor.onAlert((a) => alerts.push(a));
    supervisor.start();
    await waitFor(() => supervisor.status().state === 'running', { timeoutMs: 30_000 });
    const first = supervisor.process();
    await supervisor.relaunch(4321);
    expect(alerts).toEqual(['stopping with drain 4321']);
    await waitFor(() => supervisor.status().state === 'running' && supervisor.process() !== first, {
      timeoutMs: 30_000,
      message: 'a new host runs',
    });
    expect(starts()).toBe(2);
    expect(statuses.some((s) => s.state === 'restarting' || s.state === 'gave-up')).toBe(false);
    expect(statuses.filter((s) => s.state === 'starting').map((s) => s.attempt)).toEqual([1, 1]);
  });

  it('kills a host that does not exit within its drain and the grace after it', async () => {
    const { supervisor } = crashy({}, { stopGraceMs: 50 });
    supervisor.start();
    await waitFor(() => supervisor.status().state === 'running', { timeoutMs: 30_000 });
    const proc = supervisor.process()!;
    // The fixture exits on 'stop'; a host that ignores it is simulated by stopping its IPC reader.
    const child = children.at(-1)!;
    child.removeAllListeners('message');
    child.disconnect();
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => proc.onExit(resolve));
    await supervisor.stop(0);
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});

describe('engine supervisor, on the real engine host', () => {
  const hostEnv = (dataDir: string): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
    return { ...env, AX_DATA_DIR: dataDir, AX_ENGINE_CONFIG: JSON.stringify(FAST_CONFIG) };
  };
  const engine = (dataDir: string) => {
    const supervisor = new EngineSupervisor({
      launch: nodeEngineLauncher({
        script: ENGINE_HOST,
        args: ['--data-dir', dataDir],
        env: hostEnv(dataDir),
        children,
      }),
      firstBackoffMs: 50,
    });
    supervisors.push(supervisor);
    return supervisor;
  };

  it('runs the engine, restarts it on the same data dir after a kill, refuses a second engine there as failed, and stops it', async () => {
    const dataDir = fs.mkdtempSync(path.join(root, 'data-'));
    const first = engine(dataDir);
    first.start();
    const running = await waitFor(
      () => {
        const s = first.status();
        return s.state === 'running' ? s : undefined;
      },
      { timeoutMs: 60_000, message: 'the engine host runs' },
    );
    expect(running.dataDir).toBe(dataDir);

    // A second engine on the same data dir: the host says conflict, and that is not retried.
    const second = engine(dataDir);
    second.start();
    const failed = await waitFor(
      () => {
        const s = second.status();
        return s.state === 'failed' ? s : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(failed.code).toBe('conflict');
    expect(failed.message).toContain('another AX engine is running');

    process.kill(running.pid, 'SIGKILL');
    await waitFor(() => first.status().state === 'restarting', { timeoutMs: 30_000 });
    const again = await waitFor(
      () => {
        const s = first.status();
        return s.state === 'running' && s.pid !== running.pid ? s : undefined;
      },
      { timeoutMs: 60_000, message: 'the engine host runs again after a kill' },
    );
    expect(again.dataDir).toBe(dataDir);

    await first.stop(1_000);
    expect(first.process()).toBeUndefined();
    expect(fs.existsSync(path.join(dataDir, 'engine.lock'))).toBe(false);
  });
});

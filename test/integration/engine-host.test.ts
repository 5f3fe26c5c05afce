// The engine host (engine/hosts/port/engine-host.ts) as the desktop app will run it, but under
// child_process.fork, so without Electron: a real process on a real data dir. Killed with
// SIGKILL, its tasks die with it (their launchers' watchdog) and the next host recovers; told to
// stop, it drains; its parent gone, it stops too. The UI's client over its port is in
// engine-host-port.test.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ForkedEngineHost } from '../../engine/hosts/port/fork-host.ts';
import { ax } from '../helpers/ax.ts';
import { readLockFile, REPO, writeFile } from '../helpers/files.ts';
import { groupMembers, launchersOf, processAlive, readPidFile } from '../helpers/processes.ts';
import { applyText } from '../helpers/api-apply.ts';
import { forkedHostsFixture } from '../helpers/forked-hosts.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const hosts = forkedHostsFixture();
const NO_RECOVERY = { failed: 0, requeued: 0, killed: 0 };
const startHost = (args: string[] = []): ForkedEngineHost => hosts.start({ args });

describe('the host process', () => {
  it('killed with SIGKILL, its running task dies within seconds; the next host takes the data dir and recovers the instance', async () => {
    const first = startHost();
    const api = first.connect();
    await first.ready;
    const pidFile = path.join(hosts.root, `sleeper-${path.basename(hosts.dataDir)}.pid`);
    await applyText(api, `workflow: crash\ntasks:\n  sleeper:\n    command: 'echo $$ > "${pidFile}"; sleep 300'\n`);
    const run = await api.runWorkflow('crash', { actor: 'ui' });
    const task = await readPidFile(pidFile);
    expect(groupMembers(task).length).toBeGreaterThan(0);
    const launchers = launchersOf(first.child.pid as number);
    expect(launchers.length).toBeGreaterThan(0);

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await api.closed).toBe('the engine host exited');
    // The launcher's watchdog: SIGTERM to the group at once, SIGKILL after the grace (1 s here).
    await waitFor(() => groupMembers(task).length === 0, { timeoutMs: 6_000, message: 'the task outlived its host' });
    await waitFor(() => launchers.every((p) => !processAlive(p)), { message: 'a launcher outlived its host' });

    const second = startHost();
    const info = await second.ready;
    // The group was gone already, so there was nothing left to kill.
    expect(info.recovery).toEqual({ failed: 1, requeued: 0, killed: 0 });
    const detail = await second.connect().getRun(run.id);
    expect(detail.run.state).toBe('FAILED');
    expect(detail.instances).toEqual([
      expect.objectContaining({ taskName: 'sleeper', state: 'FAILED', reason: 'engine restarted' }),
    ]);
  });

  it('a second host on a held data dir is refused, naming the holder, and exits 4', async () => {
    const first = startHost();
    await first.ready;
    const second = startHost();
    await expect(second.ready).rejects.toThrow(
      /another AX engine is running on .*pid \d+ .*"engine host \(desktop app\)"/,
    );
    expect(await second.exited).toEqual({ code: 4, signal: null });
    expect(second.stderr()).toMatch(/^ax engine host: another AX engine is running on /);
    expect((await first.connect().engineInfo()).dataDir).toBe(hosts.dataDir);
  });

  it('stop drains: the running task finishes, clients are closed, the host exits 0 and frees the data dir', async () => {
    const host = startHost();
    const api = host.connect();
    await host.ready;
    await applyText(api, 'workflow: slow\ntasks:\n  nap:\n    command: "sleep 1; echo finished"\n');
    const run = await api.runWorkflow('slow', { actor: 'ui' });
    await waitFor(async () => (await api.getRun(run.id)).instances[0]?.state === 'RUNNING', {
      timeoutMs: 10_000,
      message: 'the task did not start',
    });

    const exit = host.stop(20_000);
    expect(await api.closed).toBe('the engine is stopping');
    expect(await exit).toEqual({ code: 0, signal: null });

    const next = startHost();
    expect((await next.ready).recovery).toEqual(NO_RECOVERY);
    const after = next.connect();
    const detail = await after.getRun(run.id);
    expect(detail.run.state).toBe('SUCCESS');
    expect((await after.readLogs(detail.instances[0]?.id as number, 0, 10)).map((l) => l.line)).toEqual(['finished']);
  });

  it('opens no port by default; with --local-api, ax commands on its data dir go through it, and stop closes it', async () => {
    const plain = startHost();
    expect((await plain.ready).apiPort).toBeUndefined();
    expect(readLockFile(hosts.dataDir)?.port).toBeUndefined();
    await plain.stop(5_000);

    const host = startHost(['--local-api']);
    const { apiPort } = await host.ready;
    expect(apiPort).toBeGreaterThan(0);
    expect(readLockFile(hosts.dataDir)?.port).toBe(apiPort);
    writeFile(hosts.root, 'hello.yaml', 'workflow: hello\ntasks:\n  say:\n    command: "echo hi from the host"\n');
    const opts = { dataDir: hosts.dataDir, cwd: hosts.root, env: { AX_ENGINE_CONFIG: JSON.stringify(FAST_CONFIG) } };
    expect((await ax(['apply', './hello.yaml'], opts)).code).toBe(0);
    // Without the local API this is refused (the host holds the data dir): it runs in the host.
    const run = await ax(['run', 'hello', '--wait'], opts);
    expect(run.code, run.stderr).toBe(0);
    const api = host.connect();
    const [listed] = await api.listRuns({ workflow: 'hello' });
    expect(listed?.state).toBe('SUCCESS');
    const detail = await api.getRun(listed?.id as number);
    expect((await api.readLogs(detail.instances[0]?.id as number, 0, 10)).map((l) => l.line)).toEqual([
      'hi from the host',
    ]);

    expect(await host.stop(5_000)).toEqual({ code: 0, signal: null });
    expect(readLockFile(hosts.dataDir)).toBeUndefined();
  });

  it('SIGTERM stops it as stop does: exit 0', async () => {
    const host = startHost();
    await host.ready;
    host.child.kill('SIGTERM');
    expect(await host.exited).toEqual({ code: 0, signal: null });
  });

  it('its parent killed with SIGKILL, the host stops and exits; the data dir is free again', async () => {
    // A parent of its own (not this test process), so that it can die.
    const script = path.join(hosts.root, 'parent.mts');
    fs.writeFileSync(
      script,
      `import { forkEngineHost } from ${JSON.stringify(path.join(REPO, 'engine/hosts/port/fork-host.ts'))};
const host = forkEngineHost({ dataDir: process.argv[2] });
console.log(JSON.stringify(await host.ready));
setInterval(() => undefined, 1 << 30);
`,
    );
    const parent = spawn(process.execPath, ['--import', 'tsx', script, hosts.dataDir], {
      cwd: REPO,
      env: hosts.env(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += String(chunk)));
    const parentExit = new Promise((resolve) => parent.on('exit', resolve));
    try {
      const info = await waitFor(
        () => (out.includes('\n') ? (JSON.parse(out.split('\n')[0] as string) as { pid: number }) : undefined),
        {
          timeoutMs: 30_000,
          message: 'the parent did not report its host ready',
        },
      );
      expect(processAlive(info.pid)).toBe(true);
      parent.kill('SIGKILL');
      await parentExit;
      await waitFor(() => !processAlive(info.pid), { timeoutMs: 10_000, message: 'the host outlived its parent' });
    } finally {
      parent.kill('SIGKILL');
    }
    const next = startHost();
    expect((await next.ready).recovery).toEqual(NO_RECOVERY);
  });
});

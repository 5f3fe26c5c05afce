// The desktop app's first launch, with Node 24 standing in for Electron's own Node (run by
// scripts/second-node.mjs, with node_modules as npm installed them under the machine's Node):
// the bundled engine host (dist/engine-host.mjs, what the shell starts in a utility process)
// runs under child_process.fork, driven by the UI's client, and neither it nor the task
// launcher it forks maps a native addon; where no SQLite driver loads, the host says so as a
// failure the supervisor does not retry, and `ax` prints one line and exits 7.
import { type ChildProcess, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngineSupervisor } from '../../electron/engine-supervisor.ts';
import { sqliteDriver } from '../../engine/adapters/sql/sqlite-driver.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import { type ForkedEngineHost, forkEngineHost } from '../../engine/hosts/port/fork-host.ts';
import { REPO, tempDir } from '../helpers/files.ts';
import { killStrays, launchersOf } from '../helpers/processes.ts';
import { applyText } from '../helpers/api-apply.ts';
import { nodeEngineLauncher } from '../helpers/node-engine-launcher.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { holdsFor, waitFor } from '../helpers/wait-for.ts';

const HOST_BUNDLE = path.join(REPO, 'dist', 'engine-host.mjs');
const AX = path.join(REPO, 'bin', 'ax.mjs');
// What makes this Node one without node:sqlite (like Node 20), keeping its ABI (137 ≠ 115).
const NO_BUILT_IN_SQLITE = '--no-experimental-sqlite';

let root: string;
const hosts: ForkedEngineHost[] = [];
const children: ChildProcess[] = [];

function hostEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  // AXT_DATA_DIR marks the tasks (AX_* never reaches one), so killStrays finds them.
  return { ...env, AX_DATA_DIR: dataDir, AXT_DATA_DIR: dataDir, AX_ENGINE_CONFIG: JSON.stringify(FAST_CONFIG) };
}

/** The native addons a process has loaded: every mapped *.node file (Linux's /proc). */
function mappedAddons(pid: number): string[] {
  const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
  return [
    ...new Set(maps.split('\n').flatMap((line) => (/\.node$/.test(line) ? [line.slice(line.indexOf('/'))] : []))),
  ];
}

beforeAll(() => {
  root = tempDir('ax-second-node-');
  // The lane is only worth something where the machine's build of better-sqlite3 cannot load.
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
});

afterEach(async () => {
  const left = hosts.splice(0).filter((h) => h.child.exitCode === null && h.child.signalCode === null);
  for (const h of left) h.child.kill('SIGKILL');
  await Promise.all(left.map((h) => h.exited));
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  killStrays(root);
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('this runtime stands in for Electrons Node', () => {
  it('cannot load the better-sqlite3 npm built under the machine Node, and uses node:sqlite instead', () => {
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { close(): void };
    expect(() => new Database(':memory:')).toThrow(/NODE_MODULE_VERSION|did not self-register/);
    expect(sqliteDriver()).toMatchObject({
      name: 'node:sqlite',
      description: expect.stringContaining(`built into Node ${process.versions.node}`),
    });
  });
});

describe('the bundled engine host under this Node', () => {
  it('is driven by the UI client: apply, run, subscribe, live logs, cancel; it and its launcher map no native addon', async () => {
    expect(fs.existsSync(HOST_BUNDLE), 'dist/engine-host.mjs is built (npm install builds it)').toBe(true);
    const dataDir = fs.mkdtempSync(path.join(root, 'data-'));
    const host = forkEngineHost({ dataDir, entry: HOST_BUNDLE, env: hostEnv(dataDir) });
    hosts.push(host);
    const ui = host.connect();
    const ready = await host.ready;
    expect(ready).toMatchObject({ type: 'ready', dataDir });
    expect((await ui.engineInfo()).sqliteDriver).toMatch(/^node:sqlite \(SQLite 3\.\d+\.\d+, built into Node 2\d\./);

    const events: EngineEvent[] = [];
    await ui.subscribe(['runs'], (e) => events.push(e));
    await applyText(
      ui,
      'workflow: talk\ntasks:\n  say:\n    command: "echo one; sleep 1; echo two"\n  hold:\n    command: "echo holding; sleep 300"\n    upstream: [say]\n',
    );
    const run = await ui.runWorkflow('talk', { actor: 'ui' });
    const started = (task: string) =>
      events.find(
        (e): e is Extract<EngineEvent, { type: 'instance' }> =>
          e.type === 'instance' && e.runId === run.id && e.taskName === task && e.state === 'RUNNING',
      );
    const say = await waitFor(() => started('say'), { timeoutMs: 15_000, message: 'say never ran' });
    const live: string[] = [];
    await ui.subscribe([`log:${say.instanceId}`], (e) => e.type === 'log' && live.push(e.line));
    await waitFor(() => live.includes('two'), { timeoutMs: 15_000, message: 'no live log line' });
    const hold = await waitFor(() => started('hold'), { timeoutMs: 15_000, message: 'hold never ran' });
    expect((await ui.readLogs(say.instanceId, 0, 10)).map((l) => l.line)).toEqual(['one', 'two']);

    // While a task runs: the host and the launcher it forked, both on this Node, carry no addon.
    const launchers = launchersOf(host.child.pid as number);
    expect(launchers.length).toBeGreaterThan(0);
    for (const pid of [host.child.pid as number, ...launchers]) expect(mappedAddons(pid), `process ${pid}`).toEqual([]);

    await ui.cancelRun(run.id, { actor: 'ui' });
    await waitFor(() => events.some((e) => e.type === 'run' && e.runId === run.id && e.state === 'CANCELLED'), {
      timeoutMs: 15_000,
      message: 'the run was not cancelled',
    });
    const detail = await ui.getRun(run.id);
    expect(detail.instances.find((i) => i.id === hold.instanceId)?.state).toBe('CANCELLED');
    expect(await host.stop(5_000)).toEqual({ code: 0, signal: null });
  });

  it('where no SQLite driver loads, it reports a failure the supervisor does not retry, naming the runtime and the fix', async () => {
    const dataDir = fs.mkdtempSync(path.join(root, 'data-'));
    const supervisor = new EngineSupervisor({
      launch: nodeEngineLauncher({
        script: HOST_BUNDLE,
        args: ['--data-dir', dataDir],
        env: { ...hostEnv(dataDir), NODE_OPTIONS: NO_BUILT_IN_SQLITE },
        children,
      }),
      firstBackoffMs: 20,
      maxBackoffMs: 80,
    });
    const states: string[] = [];
    supervisor.onStatus((s) => states.push(s.state));
    supervisor.start();
    const failed = await waitFor(
      () => {
        const s = supervisor.status();
        return s.state === 'failed' ? s : undefined;
      },
      { timeoutMs: 30_000, message: 'the host never reported failed' },
    );
    expect(failed.code).toBe('environment');
    expect(failed.message).toContain(
      `no SQLite driver can load in Node ${process.versions.node} (module ABI ${process.versions.modules}`,
    );
    expect(failed.message).toMatch(/built for module ABI \d+, not this runtime's/);
    expect(failed.message).toContain('npm rebuild better-sqlite3');
    expect(children).toHaveLength(1);
    expect(children[0]?.exitCode).toBe(7);
    // Failed is final until a person asks: no restart after a while either (a crash restarts at
    // once, its backoff starting in milliseconds, so half a second would show one).
    await holdsFor(() => children.length === 1 && !states.includes('restarting'), 500, {
      message: 'no restart after failed',
    });
    expect(children).toHaveLength(1);
    expect(states).not.toContain('restarting');
    await supervisor.stop(0);
  });
});

describe('ax under this Node, where no SQLite driver loads', () => {
  it('prints one line with the runtime, the addon ABI and what to do, and exits 7 (no stack trace)', () => {
    const dataDir = fs.mkdtempSync(path.join(root, 'data-'));
    const r = spawnSync(process.execPath, [NO_BUILT_IN_SQLITE, AX, 'ls'], {
      env: hostEnv(dataDir),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(7);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ax: no SQLite driver can load in Node \d+\.\d+\.\d+ \(module ABI \d+\): this Node has no built-in node:sqlite, and the installed better-sqlite3 was built for module ABI \d+, not this runtime's\. Run ax with Node 22\.13 or later/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

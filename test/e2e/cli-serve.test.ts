// `ax serve` as a real background process: other commands go through it, a second engine on the
// same data dir is refused naming the first, `ax logs --follow` streams, `ax trigger` passes its
// payload, and SIGTERM drains (running tasks finish, or are stopped when the drain times out).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { RunRecord } from '../../engine/api/types.ts';
import { ax, axStart, killAllAx } from '../helpers/ax.ts';
import { openDataDirStore, readLockFile, tempDir, writeFile } from '../helpers/files.ts';
import { groupMembers, killStrays, readPidFile } from '../helpers/processes.ts';
import { type ServeProcess, startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

let root: string;
const stores: SqlStore[] = [];

beforeAll(() => {
  root = tempDir('ax-cli-serve-');
});

afterAll(async () => {
  await killAllAx();
  // whatever is left, tasks in their own process groups included
  killStrays(root);
  for (const s of stores) await s.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function store(dataDir: string): Promise<SqlStore> {
  const s = await openDataDirStore(dataDir);
  stores.push(s);
  return s;
}

const FINAL = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];

async function finalRun(s: SqlStore, runId: number, timeoutMs = 30_000): Promise<RunRecord> {
  return waitFor(
    async () => {
      const run = await s.getRun(runId);
      return run && FINAL.includes(run.state) ? run : undefined;
    },
    { timeoutMs, intervalMs: 50, message: `run #${runId} did not end` },
  );
}

const startedRunId = (stdout: string): number => {
  const m = /^started run #(\d+) of /m.exec(stdout);
  if (!m) throw new Error(`no "started run" line in: ${stdout}`);
  return Number(m[1]);
};

describe('with ax serve running', () => {
  let dataDir: string;
  let serve: ServeProcess;
  let db: SqlStore;
  const opts = () => ({ dataDir, cwd: root });

  beforeAll(async () => {
    dataDir = path.join(root, 'serve-data');
    serve = await startServe(opts());
    db = await store(dataDir);
  });

  afterEach(async () => {
    await killAllAx([serve]);
  });

  afterAll(async () => {
    serve.kill('SIGTERM');
    await serve.result(40_000);
  });

  it('commands go through it: the run executes in the serve process; a second engine is refused (exit 4)', async () => {
    expect(serve.stdout).toMatch(
      new RegExp(
        `^ax serve: solo engine on ${dataDir}, API ws://127\\.0\\.0\\.1:${serve.port}/api \\(pid ${serve.pid}\\)$`,
        'm',
      ),
    );
    const ppidFile = path.join(root, 'through-ppid');
    writeFile(
      root,
      'through.yaml',
      `workflow: through\ntasks:\n  hello:\n    command: 'echo $PPID > "${ppidFile}"; echo hello from serve'\n`,
    );

    const run = await ax(['run', './through.yaml', '--wait'], opts());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^run #1 of through\n/);
    expect(run.stdout).toMatch(/^✓ hello SUCCESS .*\[instance \d+\]$/m);
    expect(run.stdout).toMatch(/^run #1 SUCCESS/m);
    // the task's shell is a child of one of the serve process's task launchers: the run happened
    // there, not in "ax run"
    const launcher = Number(fs.readFileSync(ppidFile, 'utf8').trim());
    const launcherStat = fs.readFileSync(`/proc/${launcher}/stat`, 'latin1');
    expect(Number(launcherStat.slice(launcherStat.lastIndexOf(')') + 2).split(' ')[1])).toBe(serve.pid);
    expect(fs.readFileSync(`/proc/${launcher}/cmdline`, 'utf8')).toContain('launcher-main.mjs');
    expect(readLockFile(dataDir)).toMatchObject({ pid: serve.pid, port: serve.port, command: 'ax serve' });

    const [runs, second] = await Promise.all([ax(['runs'], opts()), ax(['serve'], opts())]);
    expect(runs.code).toBe(0);
    expect(runs.stdout.split('\n')[1]).toMatch(/^1 +through +✓ SUCCESS +manual /);

    expect(second.code).toBe(4);
    expect(second.stderr).toContain(`ax: another AX engine is running on ${dataDir}: pid ${serve.pid} on `);
    expect(second.stderr).toContain(`("ax serve", started `);
    expect(second.stderr).toContain(`API on 127.0.0.1:${serve.port}). Stop it, or use another --data-dir.`);
    // the refused one did not disturb the running one
    expect(serve.running).toBe(true);
    expect(readLockFile(dataDir)).toMatchObject({ pid: serve.pid, port: serve.port });
  });

  it('ax logs --follow prints lines while the task runs and exits when it ends', async () => {
    const gate = path.join(root, 'ticker-gate');
    // "waiting" first; the ticks start only once the follower has shown it (the gate), so the
    // follower is attached for the whole of the ~2 s of output.
    writeFile(
      root,
      'ticker.yaml',
      `workflow: ticker
tasks:
  tick:
    command: 'echo waiting; while [ ! -f "${gate}" ]; do sleep 0.05; done; i=1; while [ $i -le 10 ]; do echo "tick $i"; i=$((i+1)); sleep 0.2; done'
    timeout: 2m
`,
    );
    const started = await ax(['run', './ticker.yaml'], opts());
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^started run #\d+ of ticker: follow it with "ax runs \d+"$/m);
    const runId = startedRunId(started.stdout);
    const inst = await waitFor(async () => (await db.listInstances(runId)).find((i) => i.state === 'RUNNING'), {
      timeoutMs: 20_000,
      message: 'the ticker task did not start',
    });

    const follower = axStart(['logs', String(inst.id), '--follow'], opts());
    await follower.waitForLine(/^waiting$/, 30_000, 'stdout');
    expect(follower.running).toBe(true);
    fs.writeFileSync(gate, '');
    const r = await follower.result(60_000);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(['waiting', ...Array.from({ length: 10 }, (_, i) => `tick ${i + 1}`), ''].join('\n'));

    const done = await db.getInstance(inst.id);
    expect(done).toMatchObject({ state: 'SUCCESS', exitCode: 0 });
    const finishedAt = done?.finishedAt as number;
    const ticks = follower.lines.filter((l) => l.text.startsWith('tick '));
    // streamed: the first tick arrived while the task still ran, and the ticks came in several
    // batches over the ~2 s, not all at once at the end
    expect(ticks[0]?.at).toBeLessThan(finishedAt);
    expect(new Set(ticks.map((l) => l.at)).size).toBeGreaterThanOrEqual(3);
    // and the follower stopped on its own once the task had ended
    expect(follower.exitedAt).toBeGreaterThanOrEqual(finishedAt);
  });

  it('ax trigger starts the on_event workflow; the payload reaches the task as AX_EVENT_PAYLOAD, never as code', async () => {
    const out = path.join(root, 'payload.out');
    writeFile(
      root,
      'events.yaml',
      `workflow: on-orders\non_event: orders-ready\ntasks:\n  receive:\n    command: 'printf "%s" "$AX_EVENT_PAYLOAD" > "${out}"'\n`,
    );
    const [applied, nobody] = await Promise.all([
      ax(['apply', 'events.yaml'], opts()),
      ax(['trigger', 'nobody-listens'], opts()),
    ]);
    expect(applied).toMatchObject({ code: 0, stdout: 'applied on-orders (version 1)\n' });
    expect(nobody.code).toBe(3);
    expect(nobody.stderr).toBe('ax: no enabled workflow has on_event: nobody-listens\n');

    const payload = `{"date":"2026-11-29","note":"it's $(touch pwned) \`touch pwned2\`; \\"quoted\\""}`;
    const trig = await ax(['--json', 'trigger', 'orders-ready', '--payload', payload], opts());
    expect(trig.code).toBe(0);
    const runs = JSON.parse(trig.stdout) as RunRecord[];
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ workflowName: 'on-orders', trigger: 'event', eventPayload: payload });

    const run = await finalRun(db, (runs[0] as RunRecord).id);
    expect(run.state).toBe('SUCCESS');
    expect(fs.readFileSync(out, 'utf8')).toBe(payload);
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toMatchObject({ date: '2026-11-29' });
    // the payload was data: nothing in it ran (the task's cwd is serve's, which is root)
    expect(fs.existsSync(path.join(root, 'pwned'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'pwned2'))).toBe(false);
  });
});

describe('ax serve stopped the moment it prints its sign-in link', () => {
  it('SIGTERM then drains and exits 0, every time (whoever waits for the link may stop it at once)', async () => {
    for (let i = 0; i < 5; i++) {
      const dataDir = path.join(root, `term-at-link-${i}`);
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const serve = axStart(['serve', '--port', '0'], { dataDir });
      // On the very chunk that carries the link, as a supervisor reading its output would.
      serve.child.stdout?.on('data', (chunk: string) => {
        if (chunk.includes('open http://127.0.0.1:') && serve.running) serve.child.kill('SIGTERM');
      });
      const exit = await serve.exited;
      expect(exit, `attempt ${i}: ${serve.stdout}${serve.stderr}`).toEqual({ code: 0, signal: null });
      expect(serve.stdout).toContain('ax serve: SIGTERM received');
      expect(serve.stdout).toContain('ax serve: stopped');
    }
  }, 120_000);
});

describe('an engine without a port (ax run FILE --wait) holds the data dir', () => {
  const opts = () => ({ dataDir: path.join(root, 'run-data'), cwd: root });

  afterEach(async () => {
    await killAllAx();
    killStrays(root);
  });

  it('a second ax run and ax serve are refused naming it (exit 4); nothing of theirs is applied', async () => {
    const gate = path.join(root, 'hold-gate');
    writeFile(
      root,
      'hold.yaml',
      `workflow: hold\ntasks:\n  wait:\n    command: 'while [ ! -f "${gate}" ]; do sleep 0.05; done'\n    timeout: 2m\n`,
    );
    writeFile(root, 'other.yaml', 'workflow: other\ntasks:\n  a:\n    command: echo other\n');
    const first = axStart(['run', './hold.yaml', '--wait'], opts());
    await first.waitForLine(/^▶ wait RUNNING/, 30_000, 'stdout');
    expect(readLockFile(opts().dataDir)).toMatchObject({ pid: first.pid, command: 'ax run ./hold.yaml' });
    expect(readLockFile(opts().dataDir)?.port).toBeUndefined();

    const [second, serve] = await Promise.all([ax(['run', './other.yaml', '--wait'], opts()), ax(['serve'], opts())]);
    for (const r of [second, serve]) {
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^ax: another AX engine is running on ${opts().dataDir}: pid ${first.pid} on \\S+ \\("ax run \\./hold\\.yaml", started [0-9T:.-]+Z\\)\\. Stop it, or use another --data-dir\\.\n$`,
        ),
      );
    }
    expect(first.running).toBe(true);

    fs.writeFileSync(gate, '');
    const done = await first.result(30_000);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^run #1 SUCCESS/m);
    expect(readLockFile(opts().dataDir)).toBeUndefined();
    const db = await store(opts().dataDir);
    expect((await db.listWorkflows()).map((w) => w.name)).toEqual(['hold']);
  });
});

describe('SIGTERM drains ax serve', () => {
  const dataDir = () => path.join(root, 'drain-data');
  const opts = () => ({ dataDir: dataDir(), cwd: root });

  afterEach(async () => {
    await killAllAx();
    killStrays(root);
  });

  it('a task shorter than --drain-timeout finishes SUCCESS and serve exits 0', async () => {
    const started = path.join(root, 'brief-started');
    writeFile(
      root,
      'brief.yaml',
      `workflow: brief\ntasks:\n  brief:\n    command: 'touch "${started}"; sleep 2; echo finished'\n`,
    );
    const serve = await startServe(opts(), ['--drain-timeout', '10']);
    const run = await ax(['run', './brief.yaml'], opts());
    expect(run.code).toBe(0);
    const runId = startedRunId(run.stdout);
    await waitFor(() => fs.existsSync(started), { timeoutMs: 20_000, message: 'the brief task did not start' });

    const sigtermAt = Date.now();
    serve.kill('SIGTERM');
    const r = await serve.result(30_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ax serve: SIGTERM received: taking no new tasks and letting running ones finish \(for up to 10s\)$/m,
    );
    expect(r.stdout).toMatch(/^ax serve: stopped$/m);
    expect(readLockFile(dataDir())).toBeUndefined();

    const db = await store(dataDir());
    const [inst] = await db.listInstances(runId);
    expect(inst).toMatchObject({ taskName: 'brief', state: 'SUCCESS', exitCode: 0, attempt: 1 });
    // it finished after the SIGTERM: the drain waited for it
    expect(inst?.finishedAt).toBeGreaterThan(sigtermAt);
    expect((await db.readLogs(inst?.id as number, 0, 100)).map((l) => l.line)).toContain('finished');
    expect((await db.getRun(runId))?.state).toBe('SUCCESS');
  });

  it('a task longer than --drain-timeout is stopped, recorded FAILED with the reason, and nothing is left', async () => {
    const pidFile = path.join(root, 'forever-pid');
    writeFile(
      root,
      'forever.yaml',
      `workflow: forever\ntasks:\n  forever:\n    command: 'echo $$ > "${pidFile}"; sleep 300; echo never'\n`,
    );
    const serve = await startServe(opts(), ['--drain-timeout', '1']);
    const run = await ax(['run', './forever.yaml'], opts());
    const runId = startedRunId(run.stdout);
    const pgid = await readPidFile(pidFile);
    expect(groupMembers(pgid).length).toBeGreaterThanOrEqual(1);

    const sigtermAt = Date.now();
    serve.kill('SIGTERM');
    const r = await serve.result(30_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ax serve: SIGTERM received: taking no new tasks and letting running ones finish \(for up to 1s\)$/m,
    );
    expect((serve.exitedAt as number) - sigtermAt).toBeLessThan(8_000);
    // the task's whole process group is gone (the shell and its sleep)
    expect(groupMembers(pgid)).toEqual([]);

    const db = await store(dataDir());
    const [inst] = await db.listInstances(runId);
    expect(inst?.state).toBe('FAILED');
    expect(inst?.reason).toMatch(/drain timeout \(1s\) ran out/);
    expect((await db.readLogs(inst?.id as number, 0, 100)).map((l) => l.line)).not.toContain('never');
    // the run's state follows from it; it does not stay RUNNING with nothing running
    expect((await db.getRun(runId))?.state).toBe('FAILED');
    expect(readLockFile(dataDir())).toBeUndefined();
  });
});

// The data-dir lock is the kernel's (design.md §2): an engine killed with SIGKILL holds
// nothing from the moment it dies, even while it is still an unreaped zombie and even when its
// pid now belongs to some other live process; engine.lock still names the running holder.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { openDataDirStore, readLockFile, REPO, writeFile } from '../helpers/files.ts';
import { processAlive, procState, readPidFile } from '../helpers/processes.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

// after each test the sandbox kills every `ax` and the tasks they left under ROOT
const box = cliSandbox('ax-cli-lock-');
const stores: SqlStore[] = [];
const parents: number[] = [];

afterEach(() => {
  for (const pid of parents.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

afterAll(async () => {
  for (const s of stores) await s.close();
});

/**
 * `ax serve` as the child of a parent that never reaps it (`exec sleep`): once killed it stays a
 * zombie, as it does for a moment under any parent (a shell, a desktop app restarting it).
 * Returns the serve's pid once its engine.lock names it with a port.
 */
async function serveUnderNonReapingParent(dataDir: string): Promise<{ servePid: number; parentPid: number }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  const parent = spawn(
    '/bin/sh',
    ['-c', `"${process.execPath}" "${path.join(REPO, 'bin', 'ax.mjs')}" serve >/dev/null 2>&1 & exec sleep 600`],
    {
      cwd: box.root,
      env: { ...env, TZ: 'UTC', AX_DATA_DIR: dataDir },
      stdio: 'ignore',
      detached: true,
    },
  );
  parent.unref();
  parents.push(parent.pid as number);
  const lock = await waitFor(
    () => {
      const l = readLockFile(dataDir);
      return l && l.port && l.pid !== parent.pid ? l : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 50, message: 'ax serve under the non-reaping parent did not start' },
  );
  return { servePid: lock.pid, parentPid: parent.pid as number };
}

describe('the data-dir lock after a crash', () => {
  it('kill -9 of ax serve, then an immediate restart while the dead one is still a zombie: it starts and recovers the killed task', async () => {
    const dataDir = path.join(box.root, 'zombie');
    const pidFile = path.join(box.root, 'zombie-task.pid');
    writeFile(
      box.root,
      'crash.yaml',
      `workflow: crash
tasks:
  long:
    command: 'if [ "$AX_ATTEMPT" = 1 ]; then echo $$ > "${pidFile}"; sleep 300; fi; echo "attempt $AX_ATTEMPT done"'
    retries: 1
    retry_backoff: 200ms
`,
    );
    const { servePid } = await serveUnderNonReapingParent(dataDir);
    const started = await ax(['run', './crash.yaml'], { dataDir, cwd: box.root });
    expect(started.code, started.stderr).toBe(0);
    const taskPid = await readPidFile(pidFile);
    const db = await openDataDirStore(dataDir);
    stores.push(db);
    await waitFor(async () => (await db.listInstances(1))[0]?.pid === taskPid, {
      timeoutMs: 20_000,
      message: 'the task pid was not recorded',
    });

    process.kill(servePid, 'SIGKILL');
    await waitFor(() => procState(servePid) === 'Z', {
      timeoutMs: 5_000,
      message: 'the killed serve did not become a zombie',
    });
    // A pid check calls it alive; the lock file still names it.
    expect(readLockFile(dataDir)?.pid).toBe(servePid);

    const second = await startServe({ dataDir, cwd: box.root });
    expect(procState(servePid)).toBe('Z'); // still a zombie: the restart did not wait for a reaper
    expect(readLockFile(dataDir)).toMatchObject({ pid: second.pid, command: 'ax serve', port: second.port });
    expect(processAlive(taskPid)).toBe(false);
    const run = await waitFor(
      async () => {
        const r = await db.getRun(1);
        return r && r.state !== 'RUNNING' ? r : undefined;
      },
      { timeoutMs: 30_000, message: 'run #1 did not end after the restart' },
    );
    expect(run.state).toBe('SUCCESS');
    const instances = await db.listInstances(1);
    expect(instances.map((i) => [i.attempt, i.state, i.reason ?? null])).toEqual([
      // the launcher killed the task as its engine died; if the restart had come first, it would
      // have killed the leftover group itself ("…; its leftover process group was killed")
      [1, 'FAILED', expect.stringMatching(/^engine restarted(; its leftover process group was killed)?$/)],
      [2, 'SUCCESS', null],
    ]);

    // A third engine while the second lives is still refused, naming the live one.
    const third = await ax(['serve'], { dataDir, cwd: box.root });
    expect(third.code).toBe(4);
    expect(third.stderr).toContain(`another AX engine is running on ${dataDir}: pid ${second.pid} on `);
    second.kill('SIGTERM');
    expect((await second.result(30_000)).code).toBe(0);
    expect(readLockFile(dataDir)).toBeUndefined();
  });

  it('a lock file naming a pid that now belongs to another live process does not block start-up', async () => {
    const dataDir = path.join(box.root, 'reused');
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // What a container restart leaves: the old engine's pid is now some other process (here: this test).
    fs.writeFileSync(
      path.join(dataDir, 'engine.lock'),
      JSON.stringify({
        pid: process.pid,
        host: (await import('node:os')).hostname(),
        command: 'ax serve',
        startedAt: Date.now() - 60_000,
        port: 1,
      }),
    );
    const listed = await ax(['ls'], { dataDir, cwd: box.root });
    expect(listed.code, listed.stderr).toBe(0); // not sent to the dead engine's port
    const serve = await startServe({ dataDir, cwd: box.root });
    expect(readLockFile(dataDir)).toMatchObject({ pid: serve.pid, command: 'ax serve' });
    serve.kill('SIGTERM');
    expect((await serve.result(30_000)).code).toBe(0);
  });
});

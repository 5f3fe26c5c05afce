// A real cron daemon (Debian's `cron`) running a crontab of the test's own (design.md §13): a job
// wrapped with `ax wrap` shows up as a run with its output, and a monitor whose job never comes
// raises monitor_missed after its grace. The daemon runs in a mount namespace of its own
// (`unshare -m`) with temp dirs bound over its spool, /etc/cron.d, /etc/crontab and /run, so the
// machine's crontabs are neither read nor touched and test files running at once do not meet.
// Cron fires on minute boundaries: both things happen at the first one, so the file takes 1-2 min.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { ax } from '../helpers/ax.ts';
import { openDataDirStore, REPO, writeFile } from '../helpers/files.ts';
import { SpawnedProcess } from '../helpers/processes.ts';
import { serveFixture } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { CI } from '../helpers/services.ts';

const has = (bin: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const noCron = "Debian's cron and unshare: apt-get install -y cron util-linux";
// .ci/run installs cron: there a missing one is a failure, as a missing service is (helpers/services.ts)
if (CI && process.getuid?.() === 0 && (!has('cron') || !has('unshare'))) throw new Error(`CI=true and no ${noCron}`);
const skipReason =
  process.getuid?.() !== 0
    ? 'needs root: cron runs a crontab as its owner and unshare -m needs CAP_SYS_ADMIN'
    : !has('cron') || !has('unshare')
      ? `needs ${noCron}`
      : undefined;

const WAIT_MS = 100_000; // the next minute boundary, plus the grace and a tick

describe.skipIf(skipReason !== undefined)(`a real cron daemon${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let cron: SpawnedProcess | undefined;
  let db: SqlStore;
  const served = serveFixture('ax-cron-daemon-', {
    prepare: async ({ root, opts }) => {
      writeFile(root, 'nightly.yaml', 'workflow: nightly\nschedule: "* * * * *"\nmonitor: { grace: 20s }\n');
      writeFile(root, 'forgotten.yaml', 'workflow: forgotten\nschedule: "* * * * *"\nmonitor: { grace: 5s }\n');
      for (const f of ['./nightly.yaml', './forgotten.yaml']) expect((await ax(['apply', f], opts())).code).toBe(0);
    },
  });

  beforeAll(async () => {
    db = await openDataDirStore(served.dataDir);
    const root = path.join(served.root, 'cron');
    const spool = path.join(root, 'crontabs');
    for (const d of [spool, path.join(root, 'cron.d'), path.join(root, 'run')]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(root, 'crontab'), '');
    // What Debian's crontab(1) makes: the spool root:crontab 1730, each crontab its user's, 0600.
    fs.chmodSync(spool, 0o1730);
    const ax = `${process.execPath} ${path.join(REPO, 'bin', 'ax.mjs')} --data-dir ${served.dataDir}`;
    fs.writeFileSync(
      path.join(spool, 'root'),
      `MAILTO=""\n* * * * * ${ax} wrap nightly -- sh -c 'echo from cron; echo to stderr >&2'\n`,
      { mode: 0o600 },
    );
    const binds = [
      [spool, '/var/spool/cron/crontabs'],
      [path.join(root, 'cron.d'), '/etc/cron.d'],
      [path.join(root, 'crontab'), '/etc/crontab'],
      [path.join(root, 'run'), '/run'],
    ]
      .map(([from, to]) => `mount --bind ${from} ${to}`)
      .join(' && ');
    cron = new SpawnedProcess(
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        `chgrp crontab ${spool} 2>/dev/null; ${binds} && exec cron -f -L 15`,
      ],
      { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, label: 'cron -f' },
    );
  });

  afterAll(async () => {
    cron?.kill('SIGTERM');
    await cron?.exited;
    await db?.close();
  });

  it(
    'a job wrapped with ax wrap shows up as a run with its output',
    async () => {
      const run = await waitFor(
        async () => {
          if (cron && !cron.running) throw new Error(`cron exited: ${cron.stderr}`);
          return (await db.listRuns({ workflowName: 'nightly', states: ['SUCCESS'], limit: 1 }))[0];
        },
        { timeoutMs: WAIT_MS, intervalMs: 500, message: 'no run of the wrapped cron job' },
      );
      expect(run).toMatchObject({ trigger: 'external', state: 'SUCCESS' });
      expect(run.triggeredBy).toMatch(/^ax wrap by root@/);
      const [inst] = await db.listInstances(run.id);
      expect(inst).toMatchObject({ state: 'SUCCESS', exitCode: 0 });
      expect((await db.readLogs(inst?.id as number, 0, 100)).map((l) => l.line).sort()).toEqual([
        'from cron',
        'to stderr',
      ]);
    },
    WAIT_MS + 10_000,
  );

  it(
    'a monitor whose job never comes raises monitor_missed after its grace, and its miss is in the history',
    async () => {
      const alert = await waitFor(
        async () => (await db.listAlerts({ workflow: 'forgotten', rule: 'monitor_missed', limit: 10 }))[0],
        { timeoutMs: WAIT_MS, intervalMs: 500, message: 'no monitor_missed alert for the monitor with no job' },
      );
      const run = await db.getRun(alert.runId as number);
      expect(run).toMatchObject({ workflowName: 'forgotten', state: 'FAILED', trigger: 'external' });
      expect(run?.reason).toMatch(/^missed: no ping by \d\d:\d\d:05 \(due at \d\d:\d\d, grace 5s\)$/);
      // the fire it missed is the one the alert names, a whole minute
      expect((run?.logicalTime ?? 1) % 60_000).toBe(0);
    },
    WAIT_MS + 10_000,
  );
});

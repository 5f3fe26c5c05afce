// SPEC §8 "Cron fires are idempotent … two schedulers can never create the same run twice" and
// "several scheduler nodes may run at once: one holds a leader lease": two, then five
// `ax serve --role scheduler --no-work` nodes started at the same moment, plus one worker, on an
// every-second cron (overlap parallel, task `true`). Over the observation window every fire time
// has exactly one run, no fire is missing beyond what the misfire policy dropped (and audited),
// no gap between fires exceeds the misfire tolerance, and every run succeeds once.
// Each scheduler count is watched for 60 s, as the issue asks: 60 fires, each contended by every
// scheduler's tick and timers.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../engine/core/config.ts';
import { tempDir } from '../helpers/solo-engine.ts';
import { mysqlAvailable, redisAvailable, REDIS_URL } from '../helpers/services.ts';
import { checkInvariants, everySecondFires, everySecondWorkflow, getKey, sharedTeam, type Team, wholeSecondAfter } from '../helpers/team-services.ts';

// Off CI a machine without MariaDB or Redis skips this file; under CI=true a missing one throws.
const runnable = (await mysqlAvailable()) && (await redisAvailable());

const WINDOW_MS = 60_000;
const MISFIRE_TOLERANCE_MS = DEFAULT_CONFIG.misfireThresholdMs;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!runnable)('several schedulers on one every-second cron', () => {
  let root: string | undefined;
  let cleanup: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  for (const schedulers of [2, 5]) {
    it(`${schedulers} schedulers started together: one run per fire time, no gap beyond the misfire tolerance`, async () => {
      root = tempDir('ax-team-ha-');
      const t = await sharedTeam(root, REDIS_URL);
      cleanup = t.cleanup;
      const team: Team = t.team;
      const wf = everySecondWorkflow('every-second', team);
      await team.apply(wf.spec);

      const nodes = await team.serveAll([
        ...Array.from({ length: schedulers }, (_, k) => ({ role: 'scheduler' as const, options: { noWork: true, workerId: `s${k + 1}` } })),
        { role: 'worker' as const, options: { workerId: 'w1', concurrency: 16 } },
      ]);
      // From the first whole second after every node runs, for WINDOW_MS.
      const from = wholeSecondAfter(Date.now()) + 1_000;
      const to = from + WINDOW_MS;
      const store = await team.store();
      // Observed through the fires themselves: the window is over once a run for a later fire exists.
      await team.waitFor(async () => (await store.listRuns({ workflowName: 'every-second', limit: 5 })).some((r) => r.logicalTime > to), {
        timeoutMs: WINDOW_MS + 60_000,
        intervalMs: 500,
        message: `a fire after ${new Date(to).toISOString()}`,
      });
      const report = await everySecondFires(team, 'every-second', from, to);
      const runIds = report.runs.map((r) => r.id);
      await team.waitFor(async () => (await Promise.all(runIds.map((id) => store.getRun(id)))).every((r) => r?.state !== 'RUNNING'), {
        timeoutMs: 60_000,
        intervalMs: 250,
        message: 'the runs of the window to end',
      });

      expect(report.duplicates).toEqual([]);
      expect(report.maxGapMs).toBeLessThanOrEqual(MISFIRE_TOLERANCE_MS);
      // A missing fire is one the misfire policy dropped and said so, never a silent loss.
      expect(report.missing.length).toBeLessThanOrEqual(report.skippedByPolicy);
      expect(report.runs.length).toBeGreaterThanOrEqual(WINDOW_MS / 1_000 + 1 - report.skippedByPolicy);
      expect(await checkInvariants(team, runIds, { tasks: wf.tasks, noTimeout: true, noFailover: true, singleExecution: true })).toEqual([]);

      // One leader, one of the schedulers; the others stand by; all of them still run.
      const lease = await getKey(REDIS_URL, `${team.setup.prefix}lease:scheduler`);
      const holder = lease?.split('|')[1];
      expect(nodes.filter((n) => n.role === 'scheduler').map((n) => n.nodeId)).toContain(holder);
      expect(team.unexpectedExits()).toBeUndefined();
    }, 240_000);
  }
});

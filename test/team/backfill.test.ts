// Team mode: a backfill on MariaDB + Redis with two schedulers. The leader tops it up; killed
// with SIGKILL midway, the standby takes the lease and goes on; every logical time gets exactly
// one run (the unique (backfill, logical time) key, whichever scheduler creates it), at most
// maxParallel live at once as the store shows it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackfillPlan } from '../../engine/api/backfill.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';

const available = await teamServicesAvailable();

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('a backfill in a team', () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('backfill');
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'two schedulers, the leader killed midway: one run per logical time, never more than maxParallel live',
    async () => {
      await team.apply({
        workflow: 'hourly',
        schedule: { cron: '0 * * * *', timezone: 'UTC', overlap: 'parallel' },
        // an attempt lost with the killed node is retried elsewhere
        tasks: { work: { command: 'sleep 0.5', retries: 2, retry_backoff: '200ms' } },
      });
      const nodes = await team.serveAll([
        { role: 'scheduler', workerId: 's1' },
        { role: 'scheduler', workerId: 's2' },
      ]);
      const plan = await team.axJson<BackfillPlan>([
        'backfill',
        'hourly',
        '--from',
        '2026-11-01T00:00',
        '--to',
        '2026-11-01T15:59',
        '--max-parallel',
        '2',
      ]);
      expect(plan.total).toBe(16);
      const id = plan.backfill?.id as number;
      let maxLive = 0;
      const look = async () => {
        const b = await team.store.getBackfill(id);
        maxLive = Math.max(maxLive, b?.running ?? 0);
        return b;
      };
      await team.waitFor(async () => ((await look())?.done ?? 0) >= 4 || undefined, {
        timeoutMs: 60_000,
        message: 'four runs of the backfill to end',
      });
      const leader = await team.waitFor(() => team.leaseHolder(), { timeoutMs: 10_000, message: 'a leader' });
      await (nodes.find((n) => n.nodeId === leader) as TeamProcess).kill9();
      const done = await team.waitFor(
        async () => {
          const b = await look();
          return b && b.state !== 'RUNNING' ? b : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 100, message: 'the backfill to end after the failover' },
      );
      expect(done).toMatchObject({ state: 'SUCCESS', total: 16, done: 16, failed: 0, running: 0 });
      const runs = await team.store.listRuns({ workflowName: 'hourly', limit: 1000 });
      expect(runs).toHaveLength(16);
      expect(runs.map((r) => r.logicalTime).sort((a, b) => a - b)).toEqual(plan.logicalTimes);
      expect(runs.every((r) => r.backfillId === id && r.state === 'SUCCESS')).toBe(true);
      expect(maxLive).toBeLessThanOrEqual(2);
    },
    TEST_TIMEOUT_MS,
  );
});

// Team mode: `on: engine_start` runs once per start of the team's scheduling, by the scheduler
// that leads at its start. Two schedulers start: one run, by the leader. The leader dies and the
// standby takes the lease: a failover, not a start, so no second run; a scheduler that joins
// while another leads stands by and starts none either.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../engine/api/types.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { holdsFor } from '../helpers/team/fault-checks.ts';
import { Team, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';

const available = await teamServicesAvailable();
/** two scheduler ticks (1 s each) and then some: a run the new leader would make is made by then */
const QUIET_MS = 4_000;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('on: engine_start in a team', () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('engine-start');
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  const startRuns = async (): Promise<RunRecord[]> =>
    (await team.store.listRuns({ workflowName: 'boot', limit: 100 })).filter((r) => r.trigger === 'engine_start');

  it(
    'one run by the leader at the start; none when a standby takes over or a scheduler joins',
    async () => {
      await team.apply({ workflow: 'boot', on: 'engine_start', tasks: { a: { command: 'true' } } });
      const nodes = await team.serveAll([
        { role: 'scheduler', workerId: 's1' },
        { role: 'scheduler', workerId: 's2' },
      ]);
      const [run] = await team.waitFor(
        async () => {
          const runs = await startRuns();
          return runs.length > 0 ? runs : undefined;
        },
        { timeoutMs: 30_000, message: 'the engine-start run' },
      );
      const leader = await team.waitFor(() => team.leaseHolder(), { timeoutMs: 10_000, message: 'a leader' });
      expect(run?.triggeredBy).toBe(leader);
      await holdsFor(team, QUIET_MS, 'one engine-start run', async () =>
        (await startRuns()).length === 1 ? undefined : `${(await startRuns()).length} runs`,
      );

      const old = nodes.find((n) => n.nodeId === leader) as TeamProcess;
      await old.kill9();
      await team.waitFor(
        async () => {
          const holder = await team.leaseHolder();
          return holder && holder !== leader ? holder : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 100, message: 'the standby takes the lease' },
      );
      await team.serve({ role: 'scheduler', workerId: 's3' });
      await holdsFor(team, QUIET_MS, 'no run from the failover or the new standby', async () =>
        (await startRuns()).length === 1 ? undefined : `${(await startRuns()).length} runs`,
      );
    },
    TEST_TIMEOUT_MS,
  );
});

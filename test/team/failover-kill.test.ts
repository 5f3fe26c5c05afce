// Team mode, a worker killed with SIGKILL mid-task (design.md §7, "worker lost while its task still
// runs"): two workers and a scheduler that runs nothing itself. The dead worker's task launcher
// stops its orphaned task groups; the scheduler judges the worker lost from its database heartbeat
// (3 × 1 s) and fails its instances over: each runs again on the other worker without spending a
// retry (retries: 0), and the run succeeds. No re-run starts while an orphan of the dead worker
// still lives. Alike on PostgreSQL as the team database (the vitest project team-postgres).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { InstanceRecord, WorkerRecord } from '../../engine/api/types.ts';
import { FAILOVER_PREFIX } from '../../engine/core/model/backstops.ts';
import { GroupWatch } from '../helpers/team/group-watch.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS, type WorkerKind } from '../helpers/team/harness.ts';
import { expectRunInvariants } from '../helpers/team/invariants.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The team database: MariaDB, or PostgreSQL in the vitest project team-postgres (which runs this file again).
const available = await teamServicesAvailable();
const DATABASE = process.env.AX_TEST_TEAM_DATABASE === 'postgres' ? 'postgres' : 'mysql';

/** From the kill to the re-run's SUCCESS (the bound). */
const FAILOVER_BOUND_MS = 30_000;
/** Loss is judged 3 heartbeats after the last one, at the next backstop check (every heartbeat), plus a loaded machine. */
const DETECTION_BOUND_MS = 3 * 1_000 + 1_000 + 5_000;

const TASK = (gate: string) => (name: string) => `  ${name}:
    command: '. "$AXT_DIR/lib.sh"; ax_start; if [ "$AX_ATTEMPT" = 1 ]; then ${gate}; fi; ax_end'
`;

// Both kinds of worker fail over alike: database workers, and edge workers (a URL and a token).
const CASES: [WorkerKind, 'mysql' | 'postgres'][] = [
  ['database', DATABASE],
  ['edge', DATABASE],
];
// Skipped only off CI on a machine without the team database or Redis: under CI=true the availability check throws instead.
describe.skipIf(!available).each(CASES)('a %s worker killed with SIGKILL mid-task (%s)', (kind, database) => {
  let team: Team;
  let watch: GroupWatch | undefined;

  beforeAll(async () => {
    team = await Team.open(`failover-${kind}-${database}`, { config: TEAM_CONFIG, database });
  });
  afterEach(async () => {
    watch?.stop();
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'fails its instances over to the other worker, which finishes them; the orphans are gone first',
    async () => {
      const { workers } = await team.cluster(['w1', 'w2'], kind);
      const release = await team.gate('release');
      team.writeWorkflow(
        'failover.yaml',
        `workflow: failover\ntasks:\n${['t1', 't2', 't3', 't4'].map(TASK(release.wait)).join('')}`,
      );
      watch = new GroupWatch(team).start();
      const waiting = team.spawn('ax run --wait', ['run', './failover.yaml', '--wait']);
      const runId = Number((await waiting.waitForLine(/^run #\d+ of failover/)).text.match(/#(\d+)/)?.[1]);

      // round robin over two workers: two tasks each, all running
      const running = await team.waitInstances(
        runId,
        (l) => l.length === 4 && l.every((i) => i.state === 'RUNNING' && i.pid !== undefined && team.startOf(i.id)),
        'the four tasks did not all start',
      );
      const victim = running[0]?.workerId as string;
      const survivor = victim === 'w1' ? 'w2' : 'w1';
      const orphaned = running.filter((i) => i.workerId === victim);
      expect(orphaned.length).toBeGreaterThanOrEqual(1);
      expect(running.filter((i) => i.workerId === survivor).length).toBeGreaterThanOrEqual(1);
      const orphanGroups = new Map(orphaned.map((i) => [i.id, team.startOf(i.id)?.pgid as number]));

      const killedAt = Date.now();
      workers.get(victim)?.kill('SIGKILL');
      expect(await workers.get(victim)?.exited).toEqual({ code: null, signal: 'SIGKILL' });

      // The dead worker's task launcher stops its task groups (SIGTERM at once, SIGKILL 1.5 s later).
      for (const pgid of orphanGroups.values()) await watch.waitDead(pgid, 10_000);
      await release.open();

      // Each orphaned instance: attempt 1 failed over, attempt 2 succeeded on the survivor, in time.
      const final = await team.waitInstances(
        runId,
        (l) =>
          orphaned.every((o) => l.some((i) => i.taskName === o.taskName && i.attempt === 2 && i.state === 'SUCCESS')),
        'the orphaned instances were not re-run to SUCCESS',
        FAILOVER_BOUND_MS + 10_000,
      );
      for (const o of orphaned) {
        const first = final.find((i) => i.id === o.id) as InstanceRecord;
        const rerun = final.find((i) => i.taskName === o.taskName && i.attempt === 2) as InstanceRecord;
        expect(first.state).toBe('FAILED');
        expect(first.reason).toMatch(
          new RegExp(`^${FAILOVER_PREFIX} worker ${victim} lost \\(no heartbeat for \\d+s\\)$`),
        );
        // detected after the kill, within its bound
        expect(first.finishedAt as number).toBeGreaterThanOrEqual(killedAt);
        expect((first.finishedAt as number) - killedAt, 'failure detection').toBeLessThanOrEqual(DETECTION_BOUND_MS);
        expect(rerun.workerId).toBe(survivor);
        expect((rerun.finishedAt as number) - killedAt, 'from the kill to the re-run SUCCESS').toBeLessThanOrEqual(
          FAILOVER_BOUND_MS,
        );
        // the orphan was gone before the re-run started: seen dead by the test, and by the re-run itself
        const rerunStart = team.startOf(rerun.id);
        expect(rerunStart?.worker).toBe(survivor);
        const orphan = watch.get(orphanGroups.get(o.id) as number);
        expect(orphan.deadAt).toBeDefined();
        expect(orphan.lastAliveAt, 'the orphan was last seen alive before the re-run started').toBeLessThan(
          rerunStart?.at as number,
        );
      }

      // retries: 0, and still SUCCESS: fail-over spends no retry
      const waited = await waiting.result(60_000);
      expect(waited.code, waited.stdout).toBe(0);
      expect(waited.stdout).toMatch(new RegExp(`^run #${runId} SUCCESS`, 'm'));
      const instances = await expectRunInvariants(team, runId, { tasks: ['t1', 't2', 't3', 't4'] });
      expect(instances).toHaveLength(4 + orphaned.length);

      // what a user sees
      const shown = await team.axJson<RunDetail>(['runs', String(runId)]);
      expect(shown.run.state).toBe('SUCCESS');
      expect(
        shown.instances
          .filter((i) => i.reason?.startsWith(FAILOVER_PREFIX))
          .map((i) => i.id)
          .sort(),
      ).toEqual(orphaned.map((i) => i.id).sort());
      const listed = await waitFor(
        async () => {
          const ws = await team.axJson<WorkerRecord[]>(['workers']);
          return ws.find((w) => w.id === victim)?.status === 'lost' ? ws : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 200, message: `ax workers does not show ${victim} lost` },
      );
      expect(listed.find((w) => w.id === survivor)?.status).toBe('online');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a task with retries: 2 whose worker is killed fails over and still has both retries',
    async () => {
      const { workers } = await team.cluster(['r1', 'r2'], kind);
      // Attempt 1 waits to be killed with its worker; attempts 2 and 3 fail; attempt 4 (the second retry) succeeds.
      const never = await team.gate('never');
      team.writeWorkflow(
        'retries.yaml',
        `workflow: retries
tasks:
  flaky:
    command: '. "$AXT_DIR/lib.sh"; ax_start; if [ "$AX_ATTEMPT" = 1 ]; then ${never.wait}; fi; ax_end; [ "$AX_ATTEMPT" -ge 4 ]'
    retries: 2
    retry_backoff: 200ms
`,
      );
      const runId = await team.startRun('./retries.yaml');
      const [first] = await team.waitInstances(
        runId,
        (l) => l[0]?.state === 'RUNNING' && team.startOf(l[0].id) !== undefined,
        'the task did not start',
      );
      workers.get(first?.workerId as string)?.kill('SIGKILL');
      const run = await team.waitRun(runId, 60_000);
      const instances = await team.store.listInstances(runId);
      const summary = instances.map((i) => [i.attempt, i.state, i.failedOver ?? false, i.failovers ?? 0]);
      expect(run.state, JSON.stringify(instances, null, 1)).toBe('SUCCESS');
      expect(summary).toEqual([
        [1, 'FAILED', true, 0],
        [2, 'FAILED', false, 1],
        [3, 'FAILED', false, 1],
        [4, 'SUCCESS', false, 1],
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});

if (!available) {
  describe('a worker killed with SIGKILL mid-task', () => {
    // Not under CI (teamServicesAvailable throws there): a developer machine without the services.
    it.skip(SKIP_REASON, () => undefined);
  });
}

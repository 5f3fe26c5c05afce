// Team mode, design.md §6: `ax drain WORKER` on a worker with running tasks. From the request on,
// nothing new is routed to it (work started after the request runs on the other worker), its
// running tasks finish SUCCESS, then it deregisters (`ax workers` shows it offline) and its
// process exits 0.
//
// The worker heartbeat is long here (10 s) and the request comes right after one, so the worker
// itself notices it seconds later: work created right after the request must still not reach it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, InstanceRecord, WorkerRecord } from '../../engine/api/types.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { expectRunInvariants } from '../helpers/team/invariants.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

const CONFIG = { ...TEAM_CONFIG, workerHeartbeatMs: 10_000, redispatchAfterMs: 60_000 };
/** the worker notices at its next heartbeat; plus a loaded machine */
const NOTICE_BOUND_MS = CONFIG.workerHeartbeatMs + 3_000;

const tasks = (names: string[], command: string) => names.map((n) => `  ${n}:\n    command: '${command}'\n`).join('');

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
// Both kinds of worker alike: database workers, and edge workers (a URL and a token).
describe.skipIf(!available).each(['database', 'edge'] as const)(
  'ax drain on a worker with running tasks (%s workers)',
  (kind) => {
    let team: Team;

    beforeAll(async () => {
      team = await Team.open(`drain-${kind}`, { config: CONFIG });
    });
    afterEach(async () => {
      await team?.killAll();
    });
    afterAll(async () => {
      await team?.close();
    });

    it(
      'routes nothing new to it, lets its tasks finish, deregisters it and lets it exit 0',
      async () => {
        const { workers } = await team.cluster(['w1', 'w2'], kind);
        const w1 = workers.get('w1') as TeamProcess;
        const release = await team.gate('release');
        team.writeWorkflow(
          'hold.yaml',
          `workflow: hold\ntasks:\n${tasks(['h1', 'h2', 'h3', 'h4'], `. "$AXT_DIR/lib.sh"; ax_start; ${release.wait}; ax_end`)}`,
        );
        team.writeWorkflow(
          'after.yaml',
          `workflow: after\ntasks:\n${tasks(['a1', 'a2', 'a3', 'a4'], '. "$AXT_DIR/lib.sh"; ax_start; ax_end')}`,
        );

        const holdRun = await team.startRun('./hold.yaml');
        const holding = await team.waitInstances(
          holdRun,
          (l) => l.length === 4 && l.every((i) => i.state === 'RUNNING' && team.startOf(i.id)),
          'the hold tasks did not all start',
        );
        const onW1 = holding.filter((i) => i.workerId === 'w1');
        expect(onW1.length, 'round robin gave w1 some of the running tasks').toBeGreaterThanOrEqual(1);

        // Right after one of w1's heartbeats, so that it notices the request only at the next one.
        const beat = async () => (await team.store.listWorkers()).find((w) => w.id === 'w1')?.lastHeartbeat;
        const before = await beat();
        await waitFor(async () => (await beat()) !== before, {
          timeoutMs: 2 * CONFIG.workerHeartbeatMs,
          intervalMs: 50,
          message: 'w1 does not beat',
        });
        w1.expectExit();
        const drained = await team.ax(['drain', 'w1']);
        expect(drained.code, drained.stderr).toBe(0);
        expect(drained.stdout).toMatch(/^drain requested for worker w1/);
        const request = (await team.store.listAudit(100)).find(
          (e) => e.action === 'worker.drain' && e.object === 'worker:w1',
        ) as AuditEntry;
        expect(request).toBeDefined();

        // New work, right away: none of it may go to w1, whether or not w1 has noticed yet.
        const afterRun = await team.startRun('./after.yaml');

        // w1 notices within a heartbeat and says so.
        const noticed = await waitFor(
          async () => (await team.store.listWorkers()).find((w) => w.id === 'w1' && w.status === 'draining'),
          { timeoutMs: NOTICE_BOUND_MS + 10_000, intervalMs: 100, message: 'w1 did not start draining' },
        );
        expect(noticed.lastHeartbeat - request.at, 'w1 noticed the drain within a heartbeat').toBeLessThanOrEqual(
          NOTICE_BOUND_MS,
        );
        const after = await expectRunInvariants(team, afterRun);
        expect(after).toHaveLength(4);

        // Its running tasks go on until they end by themselves, then it leaves.
        expect(w1.running).toBe(true);
        expect((await team.store.listInstances(holdRun)).filter((i) => i.state === 'RUNNING')).toHaveLength(4);
        await release.open();
        const exit = await w1.result(30_000);
        expect(exit.code, exit.stdout + exit.stderr).toBe(0);
        expect(exit.stdout).toMatch(
          /ax serve: drain requested: taking no new tasks and letting running ones finish \(for as long as they take\)/,
        );
        const hold = await expectRunInvariants(team, holdRun);
        expect(hold.filter((i) => i.workerId === 'w1').map((i) => [i.taskName, i.state])).toEqual(
          onW1.map((i) => [i.taskName, 'SUCCESS']),
        );

        // Nothing new reached w1 after the request: every later dispatch and start was on w2.
        const all = [...hold, ...after];
        const late = (at: number | undefined) => at !== undefined && at >= request.at;
        expect(all.filter((i) => late(i.dispatchedAt)).map((i: InstanceRecord) => [i.taskName, i.workerId])).toEqual(
          after.map((i) => [i.taskName, 'w2']),
        );
        expect(all.filter((i) => late(i.startedAt) && i.workerId !== 'w2')).toEqual([]);
        expect(
          team
            .events()
            .filter((e) => e.event === 'start' && e.at >= request.at)
            .every((e) => e.worker === 'w2'),
        ).toBe(true);

        // Deregistered: offline (or gone), while w2 is still online.
        const listed = await team.axJson<WorkerRecord[]>(['workers']);
        expect(['offline', undefined]).toContain(listed.find((w) => w.id === 'w1')?.status);
        expect(listed.find((w) => w.id === 'w2')?.status).toBe('online');
        expect((await team.coordinator().listWorkers()).map((w) => w.id)).toEqual(['w2']);
      },
      TEST_TIMEOUT_MS,
    );
  },
);

if (!available) {
  describe('ax drain on a worker with running tasks', () => {
    // Not under CI (teamServicesAvailable throws there): a developer machine without the services.
    it.skip(SKIP_REASON, () => undefined);
  });
}

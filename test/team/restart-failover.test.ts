// Team mode, a worker killed with SIGKILL mid-task and started again at once under the same id
// (as systemd's Restart= does), before the scheduler could judge it lost. Its start-up recovery
// hands what it was running back as the leader's fail-over of a lost worker does: the old process
// group gone first, the attempt FAILED as failed over (no retry spent, retries: 0), a new attempt
// that succeeds. The same crash thus ends alike however fast the worker comes back. Database
// workers and edge workers (a URL and a token; their recovery's finish goes through the server).
import { afterAll, describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { FAILOVER_PREFIX } from '../../engine/core/model/backstops.ts';
import { apiPort, workerToken } from '../helpers/team/edge.ts';
import { GroupWatch } from '../helpers/team/group-watch.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS, type WorkerKind } from '../helpers/team/harness.ts';
import { expectRunInvariants } from '../helpers/team/invariants.ts';
import { teamServicesAvailable } from '../helpers/services.ts';

const available = await teamServicesAvailable();

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available).each<WorkerKind>(['database', 'edge'])(
  'a %s worker killed mid-task and started again at once',
  (kind) => {
    let team: Team | undefined;
    let watch: GroupWatch | undefined;
    afterAll(async () => {
      watch?.stop();
      await team?.close();
    }, 60_000);

    it(
      'fails its running instance over (no retry spent) once its old process group is gone',
      async () => {
        // Heartbeats far apart: the scheduler must not judge the killed worker lost, nor its task's
        // heartbeat stale, before the restarted process's recovery has handled the instance.
        const t = await Team.open(`restart-failover-${kind}`, {
          config: { ...TEAM_CONFIG, workerHeartbeatMs: 60_000, taskHeartbeatMs: 60_000 },
        });
        team = t;
        const hold = await t.gate('hold');
        t.writeWorkflow(
          'restart.yaml',
          `workflow: restart
tasks:
  long:
    command: '. "$AXT_DIR/lib.sh"; ax_start; if [ "$AX_ATTEMPT" = 1 ]; then ${hold.wait}; fi; ax_end'
    retries: 0
`,
        );
        const scheduler = await t.serve({ role: 'scheduler', name: 'scheduler', noWork: true });
        // An edge worker comes back with the same token (its id) and data dir, through the same server.
        const edge =
          kind === 'edge' ? { port: await apiPort(scheduler), token: await workerToken(t, 'w1', []) } : undefined;
        const start = () =>
          edge
            ? t.serveEdge({ ...edge, workerId: 'w1', accept: 'unlabelled' })
            : t.serve({ role: 'worker', workerId: 'w1' });
        const worker = await start();
        await t.waitWorkersOnline(['w1']);
        watch = new GroupWatch(t).start();
        const runId = await t.startRun('./restart.yaml');
        const [first] = await t.waitInstances(
          runId,
          (l) => l[0]?.state === 'RUNNING' && l[0].pid !== undefined && t.startOf(l[0].id) !== undefined,
          'the task did not start',
        );
        const old = first as InstanceRecord;
        const oldGroup = t.startOf(old.id)?.pgid as number;

        await worker.kill9();
        // The same id again, at once: it is never judged lost meanwhile.
        await start();

        const run = await t.waitRun(runId, 60_000);
        const instances = await t.store.listInstances(runId);
        const summary = instances.map((i) => [i.attempt, i.state, i.failedOver ?? false, i.failovers ?? 0]);
        expect(run.state, JSON.stringify(instances, null, 1)).toBe('SUCCESS');
        // attempt 1 failed over, attempt 2 (a free one: retries: 0) succeeded
        expect(summary).toEqual([
          [1, 'FAILED', true, 0],
          [2, 'SUCCESS', false, 1],
        ]);
        const [gone, rerun] = instances as [InstanceRecord, InstanceRecord];
        expect(gone.id).toBe(old.id);
        expect(gone.reason).toMatch(
          new RegExp(`^${FAILOVER_PREFIX} worker w1 restarted(; its leftover process group was killed)?$`),
        );
        expect(gone.reasonCode?.code).toMatch(/^failover_worker_restarted/);
        // The old process group was gone before the new attempt started.
        const rerunStart = t.startOf(rerun.id);
        expect(rerunStart?.worker).toBe('w1');
        await watch.waitDead(oldGroup, 10_000);
        expect(
          watch.get(oldGroup).lastAliveAt,
          'the old group was last seen alive before the re-run started',
        ).toBeLessThan(rerunStart?.at as number);
        await expectRunInvariants(t, runId, { tasks: ['long'] });
      },
      TEST_TIMEOUT_MS,
    );
  },
);

if (!available) {
  describe('a worker killed mid-task and started again at once', () => {
    // Not under CI (teamServicesAvailable throws there): a developer machine without the services.
    it.skip(SKIP_REASON, () => undefined);
  });
}

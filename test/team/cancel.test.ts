// Team mode: `ax cancel RUN` from a CLI process stops the tasks an `ax serve` worker node runs —
// their process groups are gone when the command returns — cancels the waiting ones, and ends
// the run CANCELLED with nothing retried.
//
// The worker heartbeat is long here (30 s): the worker must hear the cancel as an event, not find
// it at its next heartbeat; the command would otherwise wait out its bound and say so.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { groupMembers } from '../helpers/processes.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';

const available = await teamServicesAvailable();

const CONFIG = { ...TEAM_CONFIG, workerHeartbeatMs: 30_000, killGraceMs: 2_000 };

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
// Both kinds of worker alike: database workers, and edge workers (a URL and a token).
describe.skipIf(!available).each(['database', 'edge'] as const)('ax cancel in team mode (%s workers)', (kind) => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open(`cancel-${kind}`, { config: CONFIG });
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    "stops the tasks running on another node's worker, cancels the waiting one, and nothing is retried",
    async () => {
      await team.cluster(['w1'], kind);
      const file = team.writeWorkflow(
        'hold.yaml',
        `workflow: hold
tasks:
  a:
    command: '. "$AXT_DIR/lib.sh"; ax_start; sleep 60'
    retries: 2
  b:
    command: '. "$AXT_DIR/lib.sh"; ax_start; sleep 60'
    retries: 2
  gpu:
    command: echo never
    labels: [gpu]
`,
      );
      // no worker offers gpu: applied despite the warning, so that one task waits
      const applied = await team.ax(['apply', file, '--force']);
      expect(applied.code, applied.stderr).toBe(0);
      const runId = await team.startRun('hold');
      const running = await team.waitInstances(
        runId,
        (l) => l.filter((i) => i.state === 'RUNNING' && team.startOf(i.id)).length === 2,
        'a and b did not both start on w1',
      );
      const groups = running.filter((i) => i.state === 'RUNNING').map((i) => team.startOf(i.id)?.pgid as number);
      expect(groups.every((g) => groupMembers(g).length > 0)).toBe(true);

      const r = await team.ax(['cancel', String(runId)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/has not said/);
      expect(r.stdout.trim()).toBe(`cancelled run #${runId}: 2 tasks stopped, 1 waiting cancelled`);
      // well inside a heartbeat: the worker heard the cancel
      expect(r.ms).toBeLessThan(CONFIG.workerHeartbeatMs / 2);
      expect(groups.flatMap((g) => groupMembers(g))).toEqual([]);

      expect((await team.store.getRun(runId))?.state).toBe('CANCELLED');
      const instances = await team.store.listInstances(runId);
      expect(instances.map((i) => `${i.taskName}:${i.attempt}:${i.state}`).sort()).toEqual([
        'a:1:CANCELLED',
        'b:1:CANCELLED',
        'gpu:1:CANCELLED',
      ]);
      const audit = await team.store.listAudit(50);
      expect(audit).toContainEqual(expect.objectContaining({ action: 'run.cancel', object: `run:${runId}` }));
      expect(team.events().filter((e) => e.event === 'start')).toHaveLength(2);

      const again = await team.ax(['cancel', String(runId)]);
      expect(again.code).toBe(4);
    },
    TEST_TIMEOUT_MS,
  );
});

if (!available) {
  describe('ax cancel in team mode', () => {
    // Not under CI (teamServicesAvailable throws there): a developer machine without the services.
    it.skip(SKIP_REASON, () => undefined);
  });
}

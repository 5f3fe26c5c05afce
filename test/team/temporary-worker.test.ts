// Team mode, design.md §6 and §12: a laptop joins as a temporary worker (`--temporary --labels
// laptop`). It takes only tasks labelled for it: unlabelled tasks wait for the regular worker
// even while that one is full and the laptop idles, and a `labels: [laptop]` task runs only on
// the laptop.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { expectRunInvariants } from '../helpers/team/invariants.ts';
import { teamServicesAvailable } from '../helpers/services.ts';

const available = await teamServicesAvailable();

const WAIT = (gate: string) => `. "$AXT_DIR/lib.sh"; ax_start; ${gate}; ax_end`;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('a --temporary worker (a laptop)', () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('laptop', { config: TEAM_CONFIG });
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'takes only the tasks labelled for it',
    async () => {
      await team.serveAll([
        { role: 'scheduler', noWork: true },
        { role: 'worker', workerId: 'desk', concurrency: 2 },
        { role: 'worker', workerId: 'laptop', temporary: true, labels: ['laptop'] },
      ]);
      const registered = await team.waitWorkersOnline(['desk', 'laptop']);
      expect(registered.find((w) => w.id === 'laptop')).toMatchObject({ labels: ['laptop'], acceptUnlabelled: false });
      expect(registered.find((w) => w.id === 'desk')).toMatchObject({ labels: [], acceptUnlabelled: true });

      const unlabelled = ['u1', 'u2', 'u3', 'u4'];
      const release = await team.gate('release');
      team.writeWorkflow(
        'mixed.yaml',
        `workflow: mixed
tasks:
${unlabelled.map((n) => `  ${n}:\n    command: '${WAIT(release.wait)}'\n`).join('')}  mine:
    command: '${WAIT(release.wait)}'
    labels: [laptop]
`,
      );
      const runId = await team.startRun('./mixed.yaml');

      // The desk is full (2 of 2), the laptop runs its own task and has 7 slots free: the other
      // unlabelled tasks wait for the desk, and say why.
      const busy = await team.waitInstances(
        runId,
        (l) =>
          l.filter((i) => i.state === 'RUNNING' && i.workerId === 'desk').length === 2 &&
          l.some((i) => i.taskName === 'mine' && i.state === 'RUNNING') &&
          l.filter(
            (i) =>
              i.state === 'WAITING' &&
              /^waiting: the only worker that accepts it \(desk\) is at its concurrency limit$/.test(i.reason ?? ''),
          ).length === 2,
        'the unlabelled tasks did not wait for the full desk',
      );
      expect(busy.find((i) => i.taskName === 'mine')?.workerId).toBe('laptop');
      const shown = await team.axJson<RunDetail>(['runs', String(runId)]);
      expect(
        shown.instances
          .filter((i) => i.state === 'WAITING')
          .every((i) => i.reason?.includes('(desk) is at its concurrency limit')),
      ).toBe(true);

      await release.open();
      const instances = await expectRunInvariants(team, runId);
      expect(instances).toHaveLength(5);
      expect(instances.filter((i) => unlabelled.includes(i.taskName)).map((i) => i.workerId)).toEqual([
        'desk',
        'desk',
        'desk',
        'desk',
      ]);
      expect(instances.find((i) => i.taskName === 'mine')?.workerId).toBe('laptop');
      // where the tasks themselves say they ran
      const starts = team.events().filter((e) => e.event === 'start');
      expect(starts.filter((e) => e.worker === 'laptop').map((e) => e.task)).toEqual(['mine']);
      // never even offered: no accept-policy refusals on the laptop
      expect((await team.alerts()).filter((e) => e.object === 'worker:laptop')).toEqual([]);

      const workers = await team.axJson<WorkerRecord[]>(['workers']);
      expect(workers.find((w) => w.id === 'laptop')).toMatchObject({ status: 'online', labels: ['laptop'] });
    },
    TEST_TIMEOUT_MS,
  );
});

if (!available) {
  describe('a --temporary worker (a laptop)', () => {
    // Not under CI (teamServicesAvailable throws there): a developer machine without the services.
    it.skip(SKIP_REASON, () => undefined);
  });
}

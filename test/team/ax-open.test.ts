// `ax open` with two team nodes on one data dir: it opens the scheduler's UI,
// not the worker's that started last, and says which (on stderr; stdout stays the link); when
// the scheduler stops, the worker's, and one node stopping never hides the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teamServicesAvailable } from '../helpers/services.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';

const available = await teamServicesAvailable();

/** The port of a node's UI, from the sign-in link it printed. */
async function uiPort(p: TeamProcess): Promise<number> {
  const line = await p.waitForLine(/^open http:\/\/127\.0\.0\.1:\d+\/#code=/);
  return Number(new URL(line.text.slice('open '.length)).port);
}

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(
  `ax open with a scheduler and a worker on one data dir${available ? '' : ` (skipped: ${SKIP_REASON})`}`,
  () => {
    let team: Team;

    beforeAll(async () => {
      team = await Team.open('ax-open', { config: TEAM_CONFIG });
    });
    afterAll(async () => {
      await team?.close();
    });

    it(
      'opens the scheduler, says which, and falls back to the worker once the scheduler stops',
      async () => {
        const scheduler = await team.serve({ role: 'scheduler', name: 'sched', noWork: true });
        const worker = await team.serve({ role: 'worker', workerId: 'w-open' });
        const [schedulerPort, workerPort] = await Promise.all([uiPort(scheduler), uiPort(worker)]);

        const opened = await team.ax(['open', '--print']);
        expect(opened.code, opened.stderr).toBe(0);
        expect(Number(new URL(opened.stdout.trim()).port)).toBe(schedulerPort);
        expect(opened.stderr).toBe(
          `ax open: the UI of team scheduler (pid ${scheduler.pid}, port ${schedulerPort}); also serving this data dir: team worker w-open (pid ${worker.pid}, port ${workerPort})\n`,
        );

        scheduler.expectExit();
        scheduler.kill('SIGTERM');
        expect((await scheduler.result(30_000)).code).toBe(0);
        const after = await team.ax(['open', '--print']);
        expect(after.code, after.stderr).toBe(0);
        expect(Number(new URL(after.stdout.trim()).port)).toBe(workerPort);
        expect(after.stderr).toBe(`ax open: the UI of team worker w-open (pid ${worker.pid}, port ${workerPort})\n`);
      },
      TEST_TIMEOUT_MS,
    );
  },
);

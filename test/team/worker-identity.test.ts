// Team mode, worker identity (design.md §6): a worker id belongs to one live process. A
// second node under a live id is refused, naming the holder, and disturbs nothing of it (before,
// its start-up recovery killed the first one's task); nodes started without --worker-id on one
// host get distinct, stable ids; a holder that went silent past the worker-lost threshold is
// taken over, and when it wakes it finds its id gone and stops instead of competing.
import os from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { expectRunInvariants } from '../helpers/team/invariants.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

const GATED = (gate: string) => `workflow: held
tasks:
  long:
    command: '. "$AXT_DIR/lib.sh"; ax_start; ${gate}; echo finished-ok; ax_end'
`;

// Skipped only off CI on a machine without MariaDB/Redis (the reason in its name, which the
// skip-reasons reporter prints): under CI=true the availability check throws instead.
describe.skipIf(!available)(`worker identity${available ? '' : ` (skipped: ${SKIP_REASON})`}`, () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('identity', { config: TEAM_CONFIG });
  });
  afterEach(async () => {
    await team?.killAll();
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    "a second worker under a live id is refused naming the holder; the first one's task finishes SUCCESS; a kill -9 frees the id at once",
    async () => {
      await team.serve({ role: 'scheduler', noWork: true });
      const first = await team.serve({ name: 'x-first', role: 'worker', workerId: 'x' });
      const release = await team.gate('release-1');
      team.writeWorkflow('held.yaml', GATED(release.wait));
      const runId = await team.startRun('./held.yaml');
      const [running] = await team.waitInstances(
        runId,
        (l) => l[0]?.state === 'RUNNING' && team.startOf(l[0].id) !== undefined,
        'the task did not start',
      );

      const second = team.spawn('x-second', ['serve', '--role', 'worker', '--worker-id', 'x'], { AXT_WORKER: 'x' });
      const refused = await second.result(60_000);
      expect(refused.code, second.describe()).toBe(4);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^ax: worker id "x" is held by a live worker \\(host ${os.hostname()}, pid ${first.pid}, started [0-9T:.-]+Z, last heartbeat \\d+s ago\\): stop that worker, or give this one another --worker-id\\n$`,
        ),
      );
      // Nothing of the refused node ran: the first one's task lives on, and so does the first worker.
      expect((await team.store.getInstance(running?.id as number))?.state).toBe('RUNNING');
      expect(first.running).toBe(true);

      await release.open();
      const [done] = await expectRunInvariants(team, runId);
      expect(done).toMatchObject({ state: 'SUCCESS', workerId: 'x', attempt: 1 });
      expect((await team.store.readLogs(done?.id as number, 0, 100)).map((l) => l.line)).toContain('finished-ok');
      const live = await team.coordinator().listWorkers();
      expect(live.filter((w) => w.id === 'x').map((w) => w.pid)).toEqual([first.pid]);

      // Killed, its id is free at once on the same host (its process is gone), not after it goes stale.
      first.kill('SIGKILL');
      await first.exited;
      const restarted = await team.serve({ name: 'x-restarted', role: 'worker', workerId: 'x' });
      await waitFor(
        async () => (await team.coordinator().listWorkers()).some((w) => w.id === 'x' && w.pid === restarted.pid),
        {
          timeoutMs: 10_000,
          message: 'the restarted worker did not register as x',
        },
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a scheduler and two workers started without --worker-id on one host get three distinct ids, stable across a restart',
    async () => {
      const env = { AX_DATA_DIR: team.dataDir };
      const spawnServe = async (name: string, role: string) => {
        const p = team.spawn(name, ['serve', '--role', role], env);
        const line = await p.waitForLine(/^ax serve: team /, 60_000);
        return { p, id: /worker id (\S+)/.exec(line.text)?.[1] };
      };
      const nodes = await Promise.all([
        spawnServe('s', 'scheduler'),
        spawnServe('w-a', 'worker'),
        spawnServe('w-b', 'worker'),
      ]);
      const ids = nodes.map((n) => n.id as string);
      const host = os.hostname().replace(/[^A-Za-z0-9._-]+/g, '-');
      for (const id of ids) expect(id).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')}-[0-9a-f]{6}(-[23])?$`));
      expect(new Set(ids).size).toBe(3);
      const listed = await team.axJson<WorkerRecord[]>(['workers']);
      // all three online (nodes of the earlier test — worker x, its scheduler — may still be listed)
      expect(listed.filter((w) => w.status === 'online').map((w) => w.id)).toEqual(expect.arrayContaining(ids));

      // The node killed comes back under its own id (its slot is free the moment it dies).
      const victim = nodes[1] as (typeof nodes)[number];
      victim.p.kill('SIGKILL');
      await victim.p.exited;
      const again = await spawnServe('w-a-again', 'worker');
      expect(again.id).toBe(victim.id);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a worker silent past the lost threshold is taken over under its id; when it wakes it stops instead of competing',
    async () => {
      await team.serve({ role: 'scheduler', noWork: true });
      const old = await team.serve({ name: 'y-old', role: 'worker', workerId: 'y' });
      const release = await team.gate('release-2');
      team.writeWorkflow('held2.yaml', GATED(release.wait));
      const runId = await team.startRun('./held2.yaml');
      const [frozen] = await team.waitInstances(
        runId,
        (l) => l[0]?.state === 'RUNNING' && team.startOf(l[0].id) !== undefined,
        'the task did not start',
      );

      old.kill('SIGSTOP');
      // Lost after 3 heartbeats (3 s): its task fails over and waits for a worker.
      await team.waitInstances(
        runId,
        (l) => l[0]?.state === 'FAILED' && l.length === 2,
        "the frozen worker's task did not fail over",
        20_000,
      );
      const fresh = await team.serve({ name: 'y-new', role: 'worker', workerId: 'y' });
      expect((await team.alerts()).map((a) => a.detail)).toContainEqual(
        expect.stringMatching(/^worker y: took over its id: its last holder was silent for \d+s$/),
      );

      // it stops by itself once awake
      old.expectExit().kill('SIGCONT');
      const gone = await old.result(30_000);
      expect(gone.code, old.describe()).toBe(4);
      expect(gone.stderr).toMatch(/worker y: another node now holds this worker id \(this one was judged lost\)/);
      expect(fresh.running).toBe(true);
      const live = await team.coordinator().listWorkers();
      expect(live.filter((w) => w.id === 'y').map((w) => w.pid)).toEqual([fresh.pid]);

      // The task goes on under the new holder and the run ends well, nothing run twice at once.
      await release.open();
      // The frozen worker's process lived on until it woke and stopped it: the SIGSTOP case of design.md §7.
      const instances = await expectRunInvariants(team, runId, { overlapAllowed: [frozen?.id as number] });
      expect(instances[instances.length - 1]).toMatchObject({ state: 'SUCCESS', workerId: 'y' });
    },
    TEST_TIMEOUT_MS,
  );
});

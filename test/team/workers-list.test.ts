// `ax workers` tells the truth: every node with its role — schedulers that run no tasks
// included — the leader marked, a worker asked to drain shown draining while its task runs on,
// one that drained and left hidden unless --all; the leader mark moves when the leader stops.
// Solo: the one embedded worker, and once it stopped, nothing but a note about --all.
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { ax, axJson, killAllAx } from '../helpers/ax.ts';
import { tempDir } from '../helpers/files.ts';
import { startServe } from '../helpers/serve.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { SKIP_REASON, Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

const HOLD = (gate: string) => `. "$AXT_DIR/lib.sh"; ax_start; ${gate}; ax_end`;

const byId = (list: WorkerRecord[]) => new Map(list.map((w) => [w.id, w]));

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('ax workers in a team', () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('workers-list', { config: TEAM_CONFIG });
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'lists every node with its role and the leader, draining as draining, the drained only with --all',
    async () => {
      const [s1, s2] = await Promise.all([
        team.serve({ name: 's1', role: 'scheduler', noWork: true }),
        team.serve({ name: 's2', role: 'scheduler', noWork: true }),
        team.serve({ role: 'worker', workerId: 'w1' }),
        team.serve({ role: 'worker', workerId: 'w2', labels: ['hold'] }),
        team.serve({ role: 'worker', workerId: 'w3' }),
      ]);
      const schedulerIds = [s1, s2].map((s) => `${os.hostname()}:${s.pid}`);
      await team.waitWorkersOnline(['w1', 'w2', 'w3']);

      // w2 runs a task that waits for a release file, so that once asked to drain it stays draining.
      const release = await team.gate('release');
      team.writeWorkflow(
        'hold.yaml',
        `workflow: hold\ntasks:\n  h:\n    command: '${HOLD(release.wait)}'\n    labels: [hold]\n`,
      );
      const runId = await team.startRun('./hold.yaml');
      await team.waitInstances(
        runId,
        (l) => l.some((i) => i.state === 'RUNNING' && i.workerId === 'w2' && team.startOf(i.id)),
        'the hold task did not start on w2',
      );
      const w3 = team.processes.find((p) => p.name === 'w3');
      // both leave by themselves once drained
      for (const id of ['w3', 'w2']) team.processes.find((p) => p.name === id)?.expectExit();
      // the drain's answer counts what the worker runs, from the same store count as `ax workers`
      for (const [id, n] of [
        ['w3', 0],
        ['w2', 1],
      ] as const) {
        const drained = await team.ax(['drain', id]);
        expect(drained.code, drained.stderr).toBe(0);
        expect(drained.stdout).toContain(
          `drain requested for worker ${id}: it takes nothing new, finishes its ${n} running task(s) and leaves`,
        );
      }
      expect((await w3?.result(30_000))?.code, 'w3, idle, drained and exited').toBe(0);

      const leaderId = await waitFor(() => team.coordinator().leaseHolder('scheduler'), {
        timeoutMs: 10_000,
        intervalMs: 100,
        message: 'no scheduler leads',
      });
      const leader = schedulerIds.find((id) => id === leaderId) as string;
      const standby = schedulerIds.find((id) => id !== leaderId) as string;
      expect(leader, `the lease holder ${leaderId} is one of the two schedulers`).toBeDefined();

      const listed = await team.axJson<WorkerRecord[]>(['workers']);
      const rows = byId(listed);
      expect([...rows.keys()].sort()).toEqual([...schedulerIds, 'w1', 'w2'].sort());
      expect(rows.get(leader)).toMatchObject({
        role: 'scheduler',
        status: 'online',
        leader: true,
        maxConcurrency: 0,
        running: 0,
        host: os.hostname(),
      });
      expect(rows.get(standby)).toMatchObject({ role: 'scheduler', status: 'online' });
      expect(rows.get(standby)?.leader).toBeUndefined();
      expect(rows.get('w1')).toMatchObject({ role: 'worker', status: 'online' });
      expect(rows.get('w1')?.leader).toBeUndefined();
      expect(rows.get('w2')).toMatchObject({ role: 'worker', status: 'draining', running: 1, labels: ['hold'] });

      const all = byId(await team.axJson<WorkerRecord[]>(['workers', '--all']));
      expect(all.get('w3'), 'a worker that left still says its role').toMatchObject({
        status: 'offline',
        role: 'worker',
      });
      expect(all.size).toBe(5);

      const text = await team.ax(['workers']);
      expect(text.code, text.stderr).toBe(0);
      const line = (id: string) => text.stdout.split('\n').find((l) => l.startsWith(`${id} `)) ?? '';
      expect(line(leader)).toMatch(/ scheduler \(leader\) +online +- /);
      expect(line(standby)).toMatch(/ scheduler +online +- /);
      expect(line('w2')).toMatch(/ worker +draining +1\/8 /);
      expect(line('w3')).toBe('');
      expect(text.stdout).toMatch(/^\(1 offline not shown: ax workers --all\)$/m);

      // The leader stops: it leaves the listing, and the mark moves to the one that took over.
      const leading = [s1, s2].find((s) => `${os.hostname()}:${s.pid}` === leader);
      leading?.kill('SIGTERM');
      expect((await leading?.result(30_000))?.code).toBe(0);
      const after = await waitFor(
        async () => {
          const list = await team.axJson<WorkerRecord[]>(['workers']);
          return byId(list).get(standby)?.leader ? list : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 200, message: `the leader mark did not move to ${standby}` },
      );
      expect(after.map((w) => w.id).sort()).toEqual([standby, 'w1', 'w2'].sort());
      expect(after.filter((w) => w.leader).map((w) => w.id)).toEqual([standby]);

      await release.open();
      const w2 = team.processes.find((p) => p.name === 'w2');
      expect((await w2?.result(30_000))?.code, 'w2 drained once its task ended').toBe(0);
      expect((await team.waitRun(runId)).state).toBe('SUCCESS');
    },
    TEST_TIMEOUT_MS,
  );
});

if (!available) {
  describe('ax workers in a team', () => {
    // Not under CI (teamServicesAvailable throws there): a developer machine without the services.
    it.skip(`needs the team services: ${SKIP_REASON}`, () => undefined);
  });
}

describe('ax workers in solo mode', () => {
  let root: string;

  beforeAll(() => {
    root = tempDir('ax-workers-solo-');
  });
  afterAll(async () => {
    await killAllAx();
  });

  it('lists the one embedded worker; once it stopped, only with --all', async () => {
    const opts = { dataDir: path.join(root, 'data'), cwd: root };
    const serve = await startServe(opts);
    const listed = await axJson<WorkerRecord[]>(['workers'], opts);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ role: 'solo', status: 'online', maxConcurrency: 8 });
    const text = await ax(['workers'], opts);
    expect(text.stdout).toMatch(new RegExp(`^${listed[0]?.id} +\\S+ +solo +online +0/8 `, 'm'));

    serve.kill('SIGTERM');
    expect((await serve.result(30_000)).code).toBe(0);
    const left = await ax(['workers'], opts);
    expect(left.code, left.stderr).toBe(0);
    expect(left.stdout).not.toMatch(/solo/);
    expect(left.stdout).toMatch(/^\(1 offline not shown: ax workers --all\)$/m);
    expect(await axJson<WorkerRecord[]>(['workers', '--all'], opts)).toMatchObject([
      { role: 'solo', status: 'offline' },
    ]);
  }, 90_000);
});

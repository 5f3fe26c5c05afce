// Misfire policies in team mode, asserted exactly: three workflows on one cron, one per
// policy, through two outages of the schedulers, real processes on the shared MariaDB + Redis:
// - every scheduler stopped (kill -9) for a while, then one started again (the issue's
//   "2 minutes", shortened with a faster cron: 15 s of an every-2-s cron miss more than two fires);
// - the leading scheduler killed with -9 on an every-6-s cron, the lease (21 s) outliving two fires.
// The two outages are independent teams (own database, key prefix, processes) and mostly wait on
// the clock, so they run at the same time (it.concurrent).
// For each workflow, over the fires after the last one run before the outage:
//   all      → every fire has exactly one run;
//   skip     → the missed ones have none and one audit entry counts them; every later fire runs;
//   run_once → of the missed ones only the latest runs, the others are counted in one audit entry.
import { describe, type ExpectStatic, it } from 'vitest';
import type { MisfirePolicy, RunRecord } from '../../engine/api/types.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { TEAM_CONFIG, type Team, teamForTest } from '../helpers/team/harness.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';
import { cronWorkflow } from '../helpers/team/workflows.ts';
import { letTimePass } from '../helpers/wait-for.ts';

const runnable = await teamServicesAvailable();

const POLICIES: MisfirePolicy[] = ['all', 'skip', 'run_once'];

const name = (p: MisfirePolicy) => `m-${p.replace('_', '-')}`;

/** One workflow per policy on the same cron. */
const workflows = (cron: string): object[] => POLICIES.map((p) => cronWorkflow(name(p), cron, p).spec);

async function cronRuns(team: Team, workflow: string): Promise<RunRecord[]> {
  const store = team.store;
  return (await store.listRuns({ workflowName: workflow, limit: 1000 }))
    .filter((r) => r.trigger === 'cron')
    .sort((a, b) => a.logicalTime - b.logicalTime);
}

/** Fire times of an every-`stepMs` cron in (after, until]. */
const fires = (stepMs: number, after: number, until: number) => {
  const out: number[] = [];
  for (let t = Math.floor(after / stepMs) * stepMs + stepMs; t <= until; t += stepMs) out.push(t);
  return out;
};

const iso = (l: number[]) => l.map((t) => new Date(t).toISOString().slice(11, 19));

/**
 * Checks one workflow against its policy over the fires after `lastBefore` (its last fire run
 * before the outage) up to `until`; returns how many fires were missed.
 */
async function expectPolicy(
  expect: ExpectStatic,
  team: Team,
  policy: MisfirePolicy,
  stepMs: number,
  lastBefore: number,
  outageAt: number,
  until: number,
): Promise<number> {
  const workflow = name(policy);
  const runs = (await cronRuns(team, workflow)).filter((r) => r.logicalTime > lastBefore && r.logicalTime <= until);
  const got = runs.map((r) => r.logicalTime);
  expect(new Set(got).size, `${workflow}: one run per fire`).toBe(got.length);
  const store = team.store;
  const skips = (await store.listAudit(10_000)).filter(
    (e) => e.action === 'misfire.skip' && e.object === `workflow:${workflow}` && e.at >= outageAt,
  );
  const parsed = skips.map((e) => {
    const m = /^(\d+) missed fire\(s\) up to (\S+) not run/.exec(e.detail ?? '');
    return { count: Number(m?.[1]), latest: Date.parse(m?.[2] ?? '') };
  });
  const all = fires(stepMs, lastBefore, until);
  const detail = `${workflow}: runs ${iso(got)}, fires ${iso(all)}, skips ${JSON.stringify(parsed)}`;
  if (policy === 'all') {
    expect(got, detail).toEqual(all);
    expect(parsed, detail).toEqual([]);
    // what the outage really missed: runs created well after their fire time
    return runs.filter((r) => r.createdAt - r.logicalTime > (TEAM_CONFIG.tickMs as number) + 5_000).length;
  }
  expect(parsed, detail).toHaveLength(1);
  const [{ count, latest }] = parsed as [{ count: number; latest: number }];
  const dropped = fires(stepMs, lastBefore, latest);
  expect(count, detail).toBe(dropped.length);
  expect(count, `${detail}: the outage must drop fires for the policy to show`).toBeGreaterThanOrEqual(1);
  // Nothing for the dropped fires; every fire after them has its run (for run_once the first of
  // them is the one catch-up: the latest missed fire).
  expect(got, detail).toEqual(all.filter((t) => t > latest));
  if (policy === 'run_once') {
    const catchUp = runs[0] as RunRecord;
    expect(catchUp.logicalTime, detail).toBe(latest + stepMs);
    expect(
      catchUp.createdAt - catchUp.logicalTime,
      `${detail}: the catch-up came late, after the outage`,
    ).toBeGreaterThan(5_000);
    return count + 1;
  }
  return count;
}

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!runnable)('misfire policies, asserted by count', () => {
  it.concurrent(
    'every scheduler stopped, then one started again: all / skip / run_once give exactly the runs they promise',
    async ({ expect, onTestFinished }) => {
      const STEP = 2_000;
      const team = await teamForTest({ onTestFinished }, 'misfire');
      for (const [k, spec] of workflows('*/2 * * * * *').entries()) await team.apply(spec, `wf${k}.json`);
      const [s1, s2] = await team.serveAll([
        { role: 'scheduler', noWork: true, workerId: 's1' },
        { role: 'scheduler', noWork: true, workerId: 's2' },
        { role: 'worker', workerId: 'w1', concurrency: 16 },
      ]);
      // Steady: each workflow has run a few fires.
      await team.waitFor(
        async () => (await Promise.all(POLICIES.map((p) => cronRuns(team, name(p))))).every((l) => l.length >= 2),
        {
          timeoutMs: 60_000,
          message: 'the workflows to fire',
        },
      );
      const stoppedAt = Date.now();
      // All of them at once, the hard way (their lease then lapses after 3 × 1 s).
      await Promise.all([s1, s2].map((n) => (n as TeamProcess).kill9()));
      const lastBefore = new Map<MisfirePolicy, number>();
      for (const p of POLICIES)
        lastBefore.set(p, Math.max(...(await cronRuns(team, name(p))).map((r) => r.logicalTime)));
      // 15 s without a scheduler: an every-2-s cron misses more than two fires, for each policy to judge
      await letTimePass(15_000 - (Date.now() - stoppedAt));

      const restarted = Date.now();
      await team.serve({ role: 'scheduler', noWork: true, workerId: 's1' });
      // Two fires after the restart, in every workflow, so that "every later fire runs" is seen.
      const until = await team.waitFor(
        async () => {
          const lists = await Promise.all(POLICIES.map((p) => cronRuns(team, name(p))));
          const newest = Math.min(...lists.map((l) => l[l.length - 1]?.logicalTime ?? 0));
          return newest >= restarted + 2 * STEP ? newest : undefined;
        },
        { timeoutMs: 90_000, message: 'fires after the restart' },
      );
      for (const p of POLICIES) {
        const missed = await expectPolicy(expect, team, p, STEP, lastBefore.get(p) as number, stoppedAt, until);
        expect(missed, `${p}: fires the outage missed`).toBeGreaterThanOrEqual(2);
      }
      expect(team.unexpectedExits()).toBeUndefined();
    },
    300_000,
  );

  it.concurrent(
    'the leader killed with -9 on an every-6-s cron: each fire of the takeover is caught up or skipped as the policy says',
    async ({ expect, onTestFinished }) => {
      const STEP = 6_000;
      // The lease lives 3 × workerHeartbeatMs = 21 s: killed d < STEP − 1 s after a fire F, the
      // leader leaves F + 6 s and F + 12 s to the takeover at about F + d + 21 s, when both are
      // older than the 5 s misfire tolerance (by d + 4 s at least). (It was an every-10-s cron and
      // a 27 s lease, the same two missed fires with a 2 s margin, waited out for 20 s longer.)
      const HEARTBEAT_MS = 7_000;
      const LEASE_MS = 3 * HEARTBEAT_MS;
      const team = await teamForTest({ onTestFinished }, 'leaderkill', {
        config: { ...TEAM_CONFIG, workerHeartbeatMs: HEARTBEAT_MS },
      });
      for (const [k, spec] of workflows('*/6 * * * * *').entries()) await team.apply(spec, `wf${k}.json`);
      const nodes = await team.serveAll([
        { role: 'scheduler', noWork: true, workerId: 's1' },
        { role: 'scheduler', noWork: true, workerId: 's2' },
        { role: 'worker', workerId: 'w1', concurrency: 16 },
      ]);
      // Just after a fire that every workflow has run: kill the leader.
      const started = Date.now();
      const fired = await team.waitFor(
        async () => {
          const lists = await Promise.all(POLICIES.map((p) => cronRuns(team, name(p))));
          const latest = lists.map((l) => l[l.length - 1]?.logicalTime ?? 0);
          return latest.every((x) => x === latest[0] && x > started) ? latest[0] : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 50, message: 'a fire run by every workflow' },
      );
      const holder = await team.leaseHolder();
      const leader = nodes.find((n) => n.role === 'scheduler' && n.nodeId === holder) as TeamProcess;
      expect(leader, `lease holder ${holder}`).toBeDefined();
      const killedAt = Date.now();
      await leader.kill9();
      expect(killedAt - (fired as number), 'killed right after the fire').toBeLessThan(STEP - 1_000);

      const until = await team.waitFor(
        async () => {
          const lists = await Promise.all(POLICIES.map((p) => cronRuns(team, name(p))));
          const newest = Math.min(...lists.map((l) => l[l.length - 1]?.logicalTime ?? 0));
          return newest >= killedAt + LEASE_MS + 2 * STEP ? newest : undefined;
        },
        { timeoutMs: 120_000, message: 'fires after the takeover' },
      );
      for (const p of POLICIES) {
        const missed = await expectPolicy(expect, team, p, STEP, fired as number, killedAt, until);
        expect(missed, `${p}: fires the takeover missed`).toBeGreaterThanOrEqual(2);
      }
      expect(team.unexpectedExits()).toBeUndefined();
    },
    300_000,
  );
});

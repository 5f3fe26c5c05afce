// Team mode on a Redis Cluster the test starts (six redis-server processes: three masters, three
// replicas): real `ax serve` nodes (a scheduler that runs no tasks and two workers) find out from
// the server that it is a cluster and keep the team's keys under one hash tag. Mid-run the master
// serving that tag's slot is SIGKILLed; its replica is promoted, the calls that failed meanwhile
// are retried by the engine, and every run completes with every instance exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { mysqlAvailable } from '../helpers/services.ts';
import { clusterToolsAvailable, LocalRedisCluster } from '../helpers/redis-cluster.ts';
import { aliveThrough, waitForProgressAfter } from '../helpers/team/fault-checks.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import { checkInvariants } from '../helpers/team/invariants.ts';
import { gatedWorkflow, layeredWorkflow } from '../helpers/team/workflows.ts';

// Off CI, a machine without MariaDB, redis-server/redis-cli or flock(1) skips this file; under
// CI=true mysqlAvailable() and clusterToolsAvailable() throw instead.
const runnable = (await mysqlAvailable()) && clusterToolsAvailable() && hasFlock;

/** New work must start within this after the promotion: a lost dispatch is re-sent after redispatchAfterMs. */
const RESUME_BOUND_MS =
  (TEAM_CONFIG.redispatchAfterMs as number) + 3 * (TEAM_CONFIG.workerHeartbeatMs as number) + 30_000;

// Skipped only off CI on a machine without MariaDB, redis-server/redis-cli or flock: under CI=true
// the MariaDB and cluster-tool checks throw instead.
describe.skipIf(!runnable)('a team on a Redis Cluster', () => {
  let cluster: LocalRedisCluster;
  let team: Team;

  beforeAll(async () => {
    cluster = await LocalRedisCluster.start();
    team = await Team.open('cluster', { redisUrl: cluster.url, redisCluster: true });
  }, 120_000);
  afterAll(async () => {
    await team?.close();
    await cluster?.stop();
  }, 120_000);

  it(
    "runs on it, and the master of the team's slot killed mid-run loses and doubles nothing",
    async () => {
      // The nodes were told nothing: they asked the server, and their keys carry the hash tag.
      expect(team.coordinator().keyPrefix).toBe(`{${team.prefix.slice(0, -1)}}:`);
      const wf = layeredWorkflow('cluster-dag', 10, 2, 'sleep 0.5');
      const long = await gatedWorkflow('cluster-long', team, 2);
      await team.apply(wf.spec);
      await team.apply(long.spec, 'long.json');
      await team.serveAll([
        { role: 'scheduler', noWork: true, workerId: 'sched' },
        { role: 'worker', workerId: 'w1' },
        { role: 'worker', workerId: 'w2' },
      ]);
      await team.waitWorkersOnline(['w1', 'w2']);
      // `ax` told it is a cluster (--redis-cluster) sees the same team as the nodes that asked.
      const listed = await team.axJson<WorkerRecord[]>(['--redis-cluster', 'workers']);
      expect(listed.map((w) => w.id)).toEqual(expect.arrayContaining(['w1', 'w2']));
      const longRun = await team.startRunInProcess('cluster-long');
      const runIds = [await team.startRun('cluster-dag')];

      // Mid-run: some of the DAG done, some of it running, both long tasks running.
      await team.waitFor(
        async () => {
          const all = await team.instances(runIds);
          const longOnes = await team.instances([longRun]);
          return (
            all.filter((i) => i.state === 'SUCCESS').length >= 5 &&
            all.some((i) => i.state === 'RUNNING') &&
            longOnes.filter((i) => i.state === 'RUNNING').length === 2
          );
        },
        { timeoutMs: 90_000, intervalMs: 50, message: '5 instances done, some running, the long tasks running' },
      );

      const lease = `${team.coordinator().keyPrefix}lease:scheduler`;
      const master = await cluster.masterOf(lease);
      const killedAt = Date.now();
      await cluster.kill(master);
      expect(await cluster.waitPromoted(lease, master)).not.toBe(master);
      await waitForProgressAfter(team, runIds, killedAt, RESUME_BOUND_MS);
      await long.open();

      await team.waitRuns([...runIds, longRun], 120_000);
      const once = { noTimeout: true, singleExecution: true };
      expect(await checkInvariants(team, runIds, { tasks: wf.tasks, ...once })).toEqual([]);
      expect(await checkInvariants(team, [longRun], { tasks: long.tasks, ...once })).toEqual([]);
      // The long tasks lived through the fail-over as the one process each started as.
      expect(aliveThrough(team, longRun, killedAt, killedAt)).toHaveLength(2);
      // Every node lived through it, and the scheduler leads again on the promoted replica.
      expect(team.unexpectedExits()).toBeUndefined();
      await team.waitFor(() => team.leaseHolder(), { timeoutMs: 30_000, message: 'a leader on the cluster again' });
    },
    TEST_TIMEOUT_MS,
  );
});

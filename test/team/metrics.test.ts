// Each team node serves its own GET /metrics: the worker that ran a task counts its
// start, its outcome, the run's end and its log lines; the scheduler, which ran nothing, counts
// none of them; both read the team-wide gauges (workers and their slots, queues, instances)
// from the shared MySQL and Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrape } from '../helpers/prometheus.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { Team, TEAM_CONFIG, TEST_TIMEOUT_MS } from '../helpers/team/harness.ts';
import type { TeamProcess } from '../helpers/team/team-process.ts';

const available = await teamServicesAvailable();

/** The node's metrics URL, from the start line that names its API port. */
function metricsUrl(node: TeamProcess): string {
  const line = node.lines.find((l) => /^ax serve: team .* API ws:\/\/127\.0\.0\.1:(\d+)\/api/.test(l.text));
  const port = /127\.0\.0\.1:(\d+)\/api/.exec(line?.text ?? '')?.[1];
  if (!port) throw new Error(`${node.name} did not say its API port`);
  return `http://127.0.0.1:${port}/metrics`;
}

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)('GET /metrics on team nodes', () => {
  let team: Team;

  beforeAll(async () => {
    team = await Team.open('metrics', { config: TEAM_CONFIG });
  });
  afterAll(async () => {
    await team?.close();
  });

  it(
    'the worker counts what it ran, the scheduler does not; both see the team in the gauges',
    async () => {
      const { scheduler, workers } = await team.cluster(['w1']);
      const w1 = workers.get('w1') as TeamProcess;
      team.writeWorkflow(
        'metered.yaml',
        'workflow: metered\ntasks:\n  a:\n    command: echo one\n  b:\n    command: echo two\n    upstream: [a]\n',
      );
      const runId = await team.startRun('./metered.yaml');
      expect((await team.waitRun(runId)).state).toBe('SUCCESS');

      // The run's end is in the database the moment the worker's transaction commits; the worker
      // counts it when the commit's answer reaches it, a moment later: scrape until it has.
      await expect
        .poll(async () => (await scrape(metricsUrl(w1))).value('ax_runs_finished_total', { state: 'SUCCESS' }))
        .toBe(1);
      const worker = await scrape(metricsUrl(w1));
      expect(worker.value('ax_instances_finished_total', { state: 'SUCCESS' })).toBe(2);
      expect(worker.value('ax_runs_finished_total', { state: 'SUCCESS' })).toBe(1);
      expect(worker.count('ax_dispatch_latency_seconds')).toBe(2);
      expect(worker.value('ax_log_lines_written_total')).toBeGreaterThanOrEqual(2);

      const sched = await scrape(metricsUrl(scheduler));
      expect(sched.value('ax_instances_finished_total', { state: 'SUCCESS' })).toBe(0);
      expect(sched.count('ax_dispatch_latency_seconds')).toBe(0);
      for (const s of [worker, sched]) {
        expect(s.value('ax_store_up')).toBe(1);
        expect(s.value('ax_coordinator_up')).toBe(1);
        expect(s.value('ax_workers', { status: 'online' })).toBe(1);
        expect(s.value('ax_worker_max_concurrency', { worker: 'w1' })).toBe(8);
        expect(s.value('ax_worker_queue_length', { worker: 'w1' })).toBe(0);
        expect(s.value('ax_instances', { state: 'RUNNING' })).toBe(0);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

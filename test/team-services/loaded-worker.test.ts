// The seed's incident as a regression test (design.md §7): a worker under load batched its heartbeats,
// stretched their interval, and the scheduler marked healthy tasks timed out and ran them twice.
// Here one worker runs 200 tasks at once (`--concurrency 200`) on a machine kept busy by two
// CPU-burning processes, beside a scheduler that runs no tasks. Each task waits at a gate (a lock
// the test holds until all 200 have started, so they surely run side by side), then sleeps 12 s:
// many task-heartbeat intervals (2 s) and worker-heartbeat intervals (1 s) with 200 processes
// alive. Their timeout (120 s) is far above their runtime, so only a false judgement could make a
// TIMEOUT. Required: every task SUCCESS once, zero TIMEOUT, zero fail-overs.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CI, teamServicesAvailable } from '../helpers/services.ts';
import { hasFlock } from '../helpers/team/gate.ts';
import { TEAM_CONFIG, type Team, teamForTest } from '../helpers/team/harness.ts';
import { checkInvariants } from '../helpers/team/invariants.ts';
import { peakConcurrency, traced } from '../helpers/team/trace.ts';

// Off CI a machine without MariaDB, Redis or flock(1) (the gate) skips this file; under CI=true a
// missing service throws and a missing flock fails when it is used.
const runnable = (await teamServicesAvailable()) && (hasFlock || CI);

const TASKS = 200;
const TASK_SECONDS = 12;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!runnable)('a worker running 200 tasks at once on a busy machine', () => {
  const burners: ChildProcess[] = [];

  // runs before the team is closed (onTestFinished comes after the afterEach hooks)
  afterEach(() => {
    for (const b of burners.splice(0)) b.kill('SIGKILL');
  });

  it('gives no false TIMEOUT and no fail-over; every task succeeds once', async ({ onTestFinished }) => {
    const team: Team = await teamForTest({ onTestFinished }, 'loaded');
    const gate = await team.gate('crowd');
    const names = Array.from({ length: TASKS }, (_, k) => `t${String(k).padStart(3, '0')}`);
    const command = traced(`${gate.wait}; sleep ${TASK_SECONDS}`);
    await team.apply({
      workflow: 'crowd',
      tasks: Object.fromEntries(names.map((n) => [n, { command, timeout: '120s' }])),
    });
    await team.serveAll([
      { role: 'scheduler', noWork: true, workerId: 'sched' },
      { role: 'worker', workerId: 'big', concurrency: TASKS },
    ]);

    // Two processes that burn a core each, for the whole run (marked so cleanup finds them too).
    for (let k = 0; k < 2; k++) {
      burners.push(
        spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', env: { ...process.env, AXT_DIR: team.dir } }),
      );
    }

    const runId = await team.startRunInProcess('crowd');
    const store = team.store;
    let maxRunning = 0;
    const sample = async () => {
      const instances = await store.listInstances(runId);
      maxRunning = Math.max(maxRunning, instances.filter((i) => i.state === 'RUNNING').length);
      return instances;
    };
    // All 200 started (each wrote its start line, and is at the gate), then the gate opens.
    await team.waitFor(
      async () => {
        await sample();
        return team.executions().length >= TASKS;
      },
      { timeoutMs: 180_000, intervalMs: 500, message: `all ${TASKS} tasks to start` },
    );
    await sample(); // all of them at the gate: RUNNING at once
    await gate.open();
    const opened = Date.now();
    await team.waitFor(
      async () => {
        const instances = await sample();
        return (
          instances.length === TASKS && instances.every((i) => !['WAITING', 'DISPATCHED', 'RUNNING'].includes(i.state))
        );
      },
      { timeoutMs: 180_000, intervalMs: 500, message: `all ${TASKS} tasks to end` },
    );
    await team.waitRuns([runId], 60_000);
    for (const b of burners.splice(0)) b.kill('SIGKILL');

    expect(
      await checkInvariants(team, [runId], { tasks: names, noTimeout: true, noFailover: true, singleExecution: true }),
    ).toEqual([]);
    // They did run all at once, on the one worker, for many heartbeat intervals.
    expect(peakConcurrency(team.executions())).toBe(TASKS);
    expect(maxRunning).toBe(TASKS);
    expect(new Set((await store.listInstances(runId)).map((i) => i.workerId))).toEqual(new Set(['big']));
    expect(Math.min(...team.executions().map((e) => e.end ?? 0)) - opened).toBeGreaterThan(
      5 * (TEAM_CONFIG.taskHeartbeatMs as number),
    );
    expect(team.unexpectedExits()).toBeUndefined();
  }, 420_000);
});

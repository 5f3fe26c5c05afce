// Team mode: a dependency across workflows waits and is released whichever scheduler
// leads and whichever worker finished the upstream. Two schedulers that run no tasks, two
// workers; b.load waits for a.extract (date: latest, so no calendar day can split the test's
// runs); while it waits and a.extract runs (held at a gate), the leading scheduler is killed with
// SIGKILL. Once the gate opens, a.extract's worker releases b.load in its finish, the other
// scheduler (now leading) dispatches it, and it runs exactly once.
import { describe, expect, it } from 'vitest';
import { teamServicesAvailable } from '../helpers/services.ts';
import { TEST_TIMEOUT_MS, teamForTest } from '../helpers/team/harness.ts';
import { traced } from '../helpers/team/trace.ts';
import { hasFlock } from '../helpers/team/gate.ts';

const available = await teamServicesAvailable();

// Skipped only off CI on a machine without MariaDB/Redis (under CI=true the availability check throws instead), or without flock(1) for the gate.
describe.skipIf(!available || !hasFlock)('a dependency across workflows in a team', () => {
  it(
    'the leader killed while b.load waits for a.extract: b.load starts exactly once, after a.extract succeeded',
    async ({ onTestFinished }) => {
      const team = await teamForTest({ onTestFinished }, 'cross');
      const gate = await team.gate('extract');
      await team.apply(
        { workflow: 'a', owner: 'alice', tasks: { extract: { command: traced(gate.wait), timeout: '300s' } } },
        'a.json',
      );
      await team.apply(
        {
          workflow: 'b',
          owner: 'bob',
          tasks: {
            load: { command: traced('true'), timeout: '60s', upstream: [{ ref: 'a.extract', date: 'latest' }] },
          },
        },
        'b.json',
      );
      const nodes = await team.serveAll([
        { role: 'scheduler', noWork: true, workerId: 's1' },
        { role: 'scheduler', noWork: true, workerId: 's2' },
        { role: 'worker', workerId: 'w1' },
        { role: 'worker', workerId: 'w2' },
      ]);
      await team.waitWorkersOnline(['w1', 'w2']);

      const bRun = await team.startRunInProcess('b');
      const [waiting] = await team.waitInstances(
        bRun,
        (l) => l.some((i) => i.taskName === 'load'),
        'b.load to be created',
      );
      expect(waiting).toMatchObject({ state: 'WAITING', reason: 'waiting for a.extract (its latest run)' });
      const aRun = await team.startRunInProcess('a');
      await team.waitInstances(
        aRun,
        (l) => l.some((i) => i.taskName === 'extract' && i.state === 'RUNNING'),
        'a.extract to run',
      );

      const holder = await team.leaseHolder();
      const leader = nodes.find((n) => n.role === 'scheduler' && n.nodeId === holder);
      expect(leader, `lease holder "${holder}" is one of the schedulers`).toBeDefined();
      await leader?.kill9();
      // b.load still waits: nothing but a.extract's SUCCESS may release it.
      expect((await team.instances([bRun])).map((i) => [i.taskName, i.state])).toEqual([['load', 'WAITING']]);

      await gate.open();
      const [a, b] = await team.waitRuns([aRun, bRun], 90_000);
      expect([a?.state, b?.state]).toEqual(['SUCCESS', 'SUCCESS']);
      const loads = (await team.instances([bRun])).filter((i) => i.taskName === 'load');
      expect(loads.map((i) => [i.attempt, i.state])).toEqual([[1, 'SUCCESS']]);
      const runs = team.executions().filter((x) => x.task === 'load');
      expect(runs).toHaveLength(1);
      const extract = team.executions().find((x) => x.task === 'extract');
      expect(runs[0]?.start).toBeGreaterThanOrEqual(extract?.end as number);
      const newHolder = await team.leaseHolder();
      expect(newHolder).not.toBe(holder);
      expect(team.unexpectedExits()).toBeUndefined();
    },
    TEST_TIMEOUT_MS,
  );
});

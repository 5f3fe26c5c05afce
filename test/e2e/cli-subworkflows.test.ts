// A call: task across an engine crash, with real processes: `ax serve` is killed with SIGKILL
// while the child run's task runs. The calling instance waits on no process, so the next engine
// leaves it be; the child's lost attempt fails with "engine restarted" (retried where it may be),
// the child run ends, and the parent takes its state. `ax runs` links the two both ways.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ax, cliSandbox, perTestDataDir } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { groupMembers, readPidFile } from '../helpers/processes.ts';
import { startServe } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const box = cliSandbox('ax-cli-subworkflows-');
// each test its own ROOT under the sandbox: no pid file or data dir left by the one before
const t = perTestDataDir(box);

describe('ax serve killed with SIGKILL while a child run runs', () => {
  it.each([
    ['the child retries and succeeds: the parent succeeds', 1, 'SUCCESS'],
    ['the child fails for good: the parent fails with it', 0, 'FAILED'],
  ] as const)(
    '%s',
    async (_, retries, state) => {
      const opts = t.opts();
      const pidFile = path.join(t.root, 'work.pid');
      writeFile(
        t.root,
        'child.yaml',
        `workflow: child
tasks:
  work:
    command: 'if [ "$AX_ATTEMPT" = 1 ]; then echo $$ > "${pidFile}"; sleep 300; fi; echo "attempt $AX_ATTEMPT done"'
    retries: ${retries}
    retry_backoff: 200ms
`,
      );
      writeFile(
        t.root,
        'parent.yaml',
        `workflow: parent
tasks:
  call-child: { call: child }
  after: { command: echo after, upstream: [call-child] }
`,
      );
      const first = await startServe(opts);
      expect((await ax(['apply', './child.yaml'], opts)).code).toBe(0);
      expect((await ax(['apply', './parent.yaml'], opts)).code).toBe(0);
      const started = await ax(['run', 'parent'], opts);
      expect(started.stdout).toMatch(/^started run #1 of parent/);
      const pid = await readPidFile(pidFile);
      const store = await t.openStore();
      // Crash only once the child's task has its pid recorded (the next engine finds it by it).
      await waitFor(async () => (await store.listInstances(2)).some((i) => i.taskName === 'work' && i.pid === pid), {
        timeoutMs: 20_000,
        message: "the child's task did not start",
      });
      const caller = (await store.listInstances(1)).find((i) => i.taskName === 'call-child');
      expect(caller).toMatchObject({ state: 'RUNNING', childRunId: 2 });
      expect(caller?.workerId).toBeUndefined();
      expect(caller?.pid).toBeUndefined();

      first.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await waitFor(() => groupMembers(pid).length === 0, {
        timeoutMs: 10_000,
        message: 'the task outlived its engine',
      });

      const second = await startServe(opts);
      const run = await waitFor(
        async () => {
          const r = await store.getRun(1);
          return r && r.state !== 'RUNNING' ? r : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50, message: 'run #1 did not end after the restart' },
      );
      expect(run.state).toBe(state);
      const child = await store.getRun(2);
      expect(child).toMatchObject({ state, trigger: 'call', parentRunId: 1, parentInstanceId: caller?.id });
      const work = (await store.listInstances(2)).map((i) => [i.attempt, i.state, i.reason]);
      expect(work[0]).toEqual([1, 'FAILED', 'engine restarted']);
      expect(work).toHaveLength(retries + 1);
      const parent = await store.listInstances(1);
      // the calling instance was not failed by the restart: it took its child's state, once
      expect(parent.filter((i) => i.taskName === 'call-child').map((i) => [i.state, i.childRunId, i.reason])).toEqual([
        [state, 2, state === 'SUCCESS' ? undefined : 'child run #2 failed'],
      ]);
      expect(parent.find((i) => i.taskName === 'after')?.state).toBe(
        state === 'SUCCESS' ? 'SUCCESS' : 'UPSTREAM_FAILED',
      );

      // what a user sees, both ways
      const top = await ax(['runs', '1'], opts);
      expect(top.stdout).toMatch(/ call-child +1 .*child run #2/);
      const shown = await ax(['runs', '2'], opts);
      const lines = shown.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^run #2 of child: ${state} \\(call by run #1 \\(parent.call-child\\)`));
      expect(lines[1]).toBe('called by run #1 (task call-child)');

      second.kill('SIGTERM');
      expect((await second.result(30_000)).code).toBe(0);
      // two engine starts, four ax commands and a crash: a minute was too little on a loaded CI
    },
    150_000,
  );
});

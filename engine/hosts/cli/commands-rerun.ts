// `ax rerun RUN TASK` / `ax rerun RUN --failed`: a failed task (or every failed task) of a run
// and its downstream again, in the same run; through the server, or in this process without one.
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import type { EngineApi } from '../../api/engine-api.ts';
import { actor, connect, embeddedEngine, type Globals, serverSide } from './connect.ts';
import { intArg } from './int-arg.ts';
import { cancelOnInterrupt, detachOnInterrupt, type Interrupt } from './interrupt.ts';
import { waitForRun } from './wait-run.ts';

export function rerunCommand(program: Command, globals: Globals): void {
  program
    .command('rerun')
    .argument('<run>', 'run id', intArg('run id', 1))
    .argument('[task]', 'the failed task; its downstream runs again too')
    .option('--failed', 'every failed task of the run (failed, timed out, upstream failed) and their downstream')
    .option('--wait', 'wait for the run to end (always so without a server)')
    .description(
      're-run a failed task of a run (or all of them, --failed), and the downstream, in the same run (with no "ax serve" running, in this process)',
    )
    .addHelpText('after', '\nExamples:\n  $ ax rerun 42 load --wait\n  $ ax rerun 42 --failed')
    .action(async (runId: number, task: string | undefined, opts: { wait?: boolean; failed?: boolean }) => {
      const g = globals();
      if ((task === undefined) === (opts.failed !== true))
        throw new AxError(
          'validation',
          task === undefined
            ? `say what to re-run: a task of run #${runId} ("ax rerun ${runId} TASK") or all its failed tasks ("ax rerun ${runId} --failed")`
            : `give either a task or --failed, not both: "ax rerun ${runId} ${task}" or "ax rerun ${runId} --failed"`,
        );
      const rerun = async (api: EngineApi, wait: boolean, interrupt: Interrupt, own: boolean) => {
        if (task !== undefined) {
          await api.rerunTask(runId, task, actor());
          console.log(`re-running ${task} in run #${runId}`);
        } else {
          const { run } = await api.rerunFailed(runId, actor());
          // The run's reason names the tasks: "re-run of the failed tasks: a, b".
          console.log(`run #${runId}: ${run.reason ?? 're-running its failed tasks'}`);
        }
        interrupt.track(runId);
        if (!wait) return;
        const done = await waitForRun(api, runId, { cancelAs: own ? actor() : undefined });
        process.exitCode = done.state === 'SUCCESS' ? 0 : 1;
      };
      const c = await connect(g);
      if (c.remote) {
        const interrupt = detachOnInterrupt(serverSide(g));
        try {
          return await rerun(c.api, opts.wait === true, interrupt, false);
        } finally {
          interrupt.dispose();
          await c.close();
        }
      }
      await c.close();
      // No server: nothing else would run it (a queued re-run would wait for the next ax serve),
      // so it runs here and is waited for, as `ax run` does.
      const embedded = await embeddedEngine({ ...g, fireSchedules: false }, `ax rerun ${runId} ${task ?? '--failed'}`);
      const interrupt = cancelOnInterrupt(embedded.engine, actor());
      try {
        await rerun(embedded.engine, true, interrupt, true);
      } finally {
        await embedded.release(30_000);
        interrupt.dispose();
      }
    });
}

// ax cancel RUN [TASK]: waiting tasks are cancelled, running ones stopped (SIGTERM to their
// process group, SIGKILL after the grace), the run ends CANCELLED with who did it in the audit
// log (one task: it ends CANCELLED, its downstream UPSTREAM_FAILED). Through `ax serve` or the
// team, the worker running a task stops it (it hears the cancel as an event); straight on a
// data dir, an `ax run` process holding it stops its task at its next heartbeat, and a task whose
// engine died is stopped here. The command waits until each stopped task's worker says its group
// is gone, so "stopped" means stopped.
import type { Command } from 'commander';
import type { EngineApi } from '../../api/engine-api.ts';
import type { InstanceRecord } from '../../api/types.ts';
import { NodeProcessRunner } from '../../adapters/process/node-process-runner.ts';
import { DEFAULT_CONFIG } from '../../core/model/config.ts';
import { formatDuration } from '../../core/model/duration.ts';
import { STOPPED_LINE } from '../../core/execution/task-execution.ts';
import { configFromEnv } from '../node/config-env.ts';
import { readEngineLock } from '../node/data-dir.ts';
import { actor, cliDataDir, connect, type GlobalOptions, modeOf } from './connect.ts';
import { follow } from './follow.ts';
import { printJson } from './format.ts';
import { intArg } from './int-arg.ts';

type Globals = () => GlobalOptions & { json?: boolean };

/** the system log line a worker writes once a cancelled task's process group is gone */

export function cancelCommand(program: Command, globals: Globals): void {
  program
    .command('cancel')
    .argument('<run>', 'run id', intArg('run id', 1))
    .argument('[task]', 'cancel only this task of the run (its downstream then does not run)')
    .description(
      'cancel a run, or one task of it: waiting tasks are cancelled, running ones stopped (SIGTERM, SIGKILL after the grace)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax cancel 42\n  $ ax cancel 42 load     # only this task; its downstream will not run',
    )
    .action(async (runId: number, task: string | undefined) => {
      const g = globals();
      const config = { ...DEFAULT_CONFIG, ...configFromEnv() };
      const c = await connect(g);
      try {
        const before = new Map((await c.api.getRun(runId)).instances.map((i) => [i.id, i.state]));
        const detail = await c.api.cancelRun(runId, { task, actor: actor() });
        const now = detail.instances.filter((i) => i.state === 'CANCELLED' && before.get(i.id) !== 'CANCELLED');
        // started: it was running (or starting) when cancelled
        const stopped = now.filter((i) => i.startedAt !== undefined);
        const waiting = now.length - stopped.length;

        let unconfirmed: InstanceRecord[] = [];
        let here = 0;
        if (stopped.length > 0) {
          const dir = modeOf(g) === 'solo' ? cliDataDir(g.dataDir) : undefined;
          if (!c.remote && dir !== undefined && !readEngineLock(dir)) {
            // No engine holds the data dir: the one that ran these died. Its groups are stopped
            // here, as the next engine's start-up recovery would (only if still that instance's).
            const runner = new NodeProcessRunner();
            for (const i of stopped)
              if (i.pid !== undefined && (await runner.killLeftover(i.pid, i.id, config.killGraceMs))) here += 1;
          } else {
            const boundMs = config.workerHeartbeatMs + config.killGraceMs + 5_000;
            const slow = setTimeout(() => {
              process.stderr.write(
                `ax: stopping ${stopped.length} running task(s): SIGTERM, SIGKILL after ${formatDuration(config.killGraceMs)}…\n`,
              );
            }, 1_000);
            try {
              unconfirmed = await awaitStopped(c.api, stopped, boundMs);
            } finally {
              clearTimeout(slow);
            }
          }
        }

        if (g.json) {
          printJson({
            ...(await c.api.getRun(runId)),
            stopped: stopped.map((i) => i.id),
            unconfirmed: unconfirmed.map((i) => i.id),
          });
        } else {
          const what = task === undefined ? `run #${runId}` : `task ${task} of run #${runId}`;
          const parts = [
            stopped.length > 0 && `${stopped.length} task${stopped.length === 1 ? '' : 's'} stopped`,
            waiting > 0 && `${waiting} waiting cancelled`,
          ].filter(Boolean);
          const extra =
            here > 0
              ? ` (${here === stopped.length ? 'their engine was gone: stopped here' : `${here} of them here: their engine was gone`})`
              : '';
          console.log(
            `cancelled ${what}: ${parts.length > 0 ? parts.join(', ') : 'nothing was running or waiting'}${extra}`,
          );
        }
        for (const i of unconfirmed) {
          const where = i.workerId ? `worker ${i.workerId}` : 'its worker';
          process.stderr.write(
            `ax: task ${i.taskName} (instance ${i.id}${i.pid ? `, pid ${i.pid}` : ''}) is recorded CANCELLED, but ${where} has not said its process is gone: is that worker still up? ("ax workers"; "ax logs ${i.id}")\n`,
          );
        }
      } finally {
        await c.close();
      }
    });
}

/**
 * Waits until each stopped task's worker has logged that its process group is gone; returns those
 * it did not within boundMs. Woken by their log lines, polled as a safety net (across processes
 * on one data dir there are no events).
 */
async function awaitStopped(api: EngineApi, stopped: InstanceRecord[], boundMs: number): Promise<InstanceRecord[]> {
  let pending = stopped;
  const changes = await follow(
    api,
    stopped.map((i) => `log:${i.id}` as const),
    (e) => e.type === 'log' && e.stream === 'system',
    250,
  );
  try {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const done = await Promise.all(pending.map((i) => saysStopped(api, i.id)));
      pending = pending.filter((_, n) => !done[n]);
      if (pending.length === 0 || Date.now() >= deadline) return pending;
      await changes.next();
    }
  } finally {
    changes.close();
  }
}

/** Whether the end of the instance's log has its worker's STOPPED_LINE (a few lines may follow it). */
async function saysStopped(api: EngineApi, instanceId: number): Promise<boolean> {
  const { lastSeq } = await api.logInfo(instanceId);
  const tail = await api.readLogs(instanceId, Math.max(0, lastSeq - 50), 50);
  return tail.some((l) => l.stream === 'system' && l.line === STOPPED_LINE);
}

// run, rerun, runs, logs, trigger, workers, audit
import type { Command } from 'commander';
import type { EngineApi } from '../../api/engine-api.ts';
import { actor, connect, embeddedEngine, type GlobalOptions, withApi } from './connect.ts';
import { elapsed, mark, printJson, table, time } from './format.ts';
import { waitForRun } from './wait-run.ts';
import { looksLikeFile, readWorkflowFile } from './workflow-files.ts';

type Globals = () => GlobalOptions & { json?: boolean };

async function runAndMaybeWait(api: EngineApi, name: string, opts: { task?: string; wait?: boolean }, json: boolean, mustWait: boolean) {
  const run = await api.runWorkflow(name, { task: opts.task, actor: actor() });
  if (!opts.wait && !mustWait) {
    if (json) return printJson(run);
    console.log(`started run #${run.id} of ${name}${opts.task ? ` (task ${opts.task})` : ''}: follow it with "ax runs ${run.id}"`);
    return;
  }
  if (!json) console.log(`run #${run.id} of ${name}${opts.task ? ` (task ${opts.task})` : ''}`);
  const done = await waitForRun(api, run.id, json);
  if (json) printJson(await api.getRun(run.id));
  process.exitCode = done.state === 'SUCCESS' ? 0 : 1;
}

export function runCommands(program: Command, globals: Globals): void {
  program
    .command('run')
    .argument('<target>', 'a workflow name, or a workflow file (applied first)')
    .option('--task <task>', 'run only this task')
    .option('--wait', 'wait for the run, print each outcome, exit non-zero unless it succeeded')
    .option('--concurrency <n>', 'worker slots when no server runs', (v) => Number(v))
    .option('--drain-timeout <seconds>', 'on Ctrl-C, how long running tasks may finish', (v) => Number(v), 30)
    .description('run a workflow now (with no "ax serve" running, the run happens in this process and is waited for)')
    .addHelpText('after', '\nExamples:\n  $ ax run nightly-etl --wait\n  $ ax run ./etl.yaml --wait        # no server needed\n  $ ax run nightly-etl --task load')
    .action(async (target: string, opts: { task?: string; wait?: boolean; concurrency?: number; drainTimeout: number }) => {
      const g = globals();
      const file = looksLikeFile(target) ? readWorkflowFile(target) : undefined;
      for (const w of file?.warnings ?? []) process.stderr.write(`warning: ${target}: ${w}\n`);
      const name = file?.spec.name ?? target;
      const c = await connect(g);
      if (c.remote) {
        try {
          if (file) await c.api.apply(file.spec, actor());
          return await runAndMaybeWait(c.api, name, opts, g.json === true, false);
        } finally {
          await c.close();
        }
      }
      await c.close();
      // One-shot: it runs this workflow only; cron fires of the data dir wait for `ax serve`.
      const embedded = await embeddedEngine({ ...g, concurrency: opts.concurrency, fireSchedules: false }, `ax run ${target}`);
      const onSignal = () => void embedded.release(opts.drainTimeout * 1000).then(() => process.exit(130));
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        if (file) await embedded.engine.apply(file.spec, actor());
        await runAndMaybeWait(embedded.engine, name, opts, g.json === true, true);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await embedded.release(opts.drainTimeout * 1000);
      }
    });

  program
    .command('rerun')
    .argument('<run>', 'run id', (v) => Number(v))
    .argument('<task>', 'the failed task; its downstream runs again too')
    .option('--wait', 'wait for the run to end')
    .description('re-run a failed task of a run, and its downstream, in the same run')
    .addHelpText('after', '\nExample:\n  $ ax rerun 42 load --wait')
    .action(async (runId: number, task: string, opts: { wait?: boolean }) => {
      await withApi(globals(), async (api) => {
        await api.rerunTask(runId, task, actor());
        console.log(`re-running ${task} in run #${runId}`);
        if (opts.wait) {
          const done = await waitForRun(api, runId);
          process.exitCode = done.state === 'SUCCESS' ? 0 : 1;
        }
      });
    });

  program
    .command('runs')
    .argument('[workflowOrRun]', 'a workflow name to filter by, or a run id to show its task instances')
    .option('-n, --limit <n>', 'how many runs', (v) => Number(v), 20)
    .description('list recent runs, or show one run')
    .addHelpText('after', '\nExamples:\n  $ ax runs\n  $ ax runs nightly-etl\n  $ ax runs 42        # the task instances of run #42')
    .action(async (arg: string | undefined, opts: { limit: number }) => {
      const g = globals();
      await withApi(g, async (api) => {
        if (arg && /^\d+$/.test(arg)) {
          const detail = await api.getRun(Number(arg));
          if (g.json) return printJson(detail);
          const r = detail.run;
          console.log(`run #${r.id} of ${r.workflowName}: ${r.state} (${r.trigger} by ${r.triggeredBy}, logical time ${time(r.logicalTime)})${r.reason ? ` — ${r.reason}` : ''}`);
          console.log(
            table(
              ['INSTANCE', 'TASK', 'ATTEMPT', 'STATE', 'WORKER', 'STARTED', 'TOOK', 'EXIT', 'REASON'],
              detail.instances.map((i) => [i.id, i.taskName, i.attempt, `${mark(i.state)} ${i.state}`, i.workerId, time(i.startedAt), elapsed(i.startedAt, i.finishedAt), i.exitCode, i.reason]),
            ),
          );
          return;
        }
        const runs = await api.listRuns({ workflow: arg, limit: opts.limit });
        if (g.json) return printJson(runs);
        if (runs.length === 0) return console.log('no runs yet');
        console.log(
          table(
            ['RUN', 'WORKFLOW', 'STATE', 'TRIGGER', 'LOGICAL TIME', 'TOOK', 'REASON'],
            runs.map((r) => [r.id, r.workflowName, `${mark(r.state)} ${r.state}`, r.trigger, time(r.logicalTime), elapsed(r.createdAt, r.finishedAt), r.reason]),
          ),
        );
      });
    });

  program
    .command('logs')
    .argument('<instance>', 'task instance id (see "ax runs RUN_ID")', (v) => Number(v))
    .option('-f, --follow', 'keep printing new lines until the task ends')
    .description("print a task instance's output (stderr lines go to stderr)")
    .addHelpText('after', '\nExample:\n  $ ax logs 1234 --follow')
    .action(async (instanceId: number, opts: { follow?: boolean }) => {
      const g = globals();
      await withApi(g, async (api) => {
        await api.getInstance(instanceId);
        let after = 0;
        for (;;) {
          const lines = await api.readLogs(instanceId, after, 5000);
          for (const l of lines) {
            if (g.json) process.stdout.write(`${JSON.stringify(l)}\n`);
            else if (l.stream === 'stdout') process.stdout.write(`${l.line}\n`);
            else process.stderr.write(l.stream === 'system' ? `[ax] ${l.line}\n` : `${l.line}\n`);
            after = l.seq;
          }
          if (lines.length === 5000) continue;
          if (!opts.follow) return;
          const inst = await api.getInstance(instanceId);
          if (!['WAITING', 'DISPATCHED', 'RUNNING'].includes(inst.state)) {
            // The final state is written after the last lines: one more read gets them all.
            const rest = await api.readLogs(instanceId, after, 5000);
            if (rest.length === 0) return;
            continue;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      });
    });

  program
    .command('trigger')
    .argument('<event>', 'event name (a workflow\'s on_event)')
    .option('--payload <json>', 'passed to tasks as AX_EVENT_PAYLOAD')
    .option('--wait', 'wait for the runs; exit non-zero unless all succeeded (always so without a server)')
    .description('start the workflows that listen for an event (with no "ax serve" running, they run in this process)')
    .addHelpText('after', `\nExample:\n  $ ax trigger orders-ready --payload '{"date":"2026-11-29"}'`)
    .action(async (event: string, opts: { payload?: string; wait?: boolean }) => {
      const g = globals();
      const report = async (api: EngineApi, wait: boolean) => {
        const runs = await api.trigger(event, opts.payload, actor());
        if (!wait) {
          if (g.json) return printJson(runs);
          for (const r of runs) console.log(`started run #${r.id} of ${r.workflowName} (${r.state})`);
          return;
        }
        let ok = true;
        for (const r of runs) {
          if (!g.json) console.log(`run #${r.id} of ${r.workflowName}`);
          ok = (await waitForRun(api, r.id, g.json === true)).state === 'SUCCESS' && ok;
        }
        if (g.json) printJson(await Promise.all(runs.map((r) => api.getRun(r.id))));
        process.exitCode = ok ? 0 : 1;
      };
      const c = await connect(g);
      if (c.remote) {
        try {
          return await report(c.api, opts.wait === true);
        } finally {
          await c.close();
        }
      }
      await c.close();
      // No server: nothing else would run them, so run them here and wait, as `ax run` does.
      const embedded = await embeddedEngine({ ...g, fireSchedules: false }, `ax trigger ${event}`);
      try {
        await report(embedded.engine, true);
      } finally {
        await embedded.release(30_000);
      }
    });

  program
    .command('workers')
    .description('list workers: heartbeat age, load, labels, status')
    .addHelpText('after', '\nExample:\n  $ ax workers --json')
    .action(async () => {
      const workers = await withApi(globals(), (api) => api.listWorkers());
      if (globals().json) return printJson(workers);
      const now = Date.now();
      console.log(
        table(
          ['ID', 'HOST', 'ROLE', 'STATUS', 'RUNNING', 'HEARTBEAT', 'LABELS', 'VERSION'],
          workers.map((w) => [w.id, w.host, w.role, w.status, `${w.running}/${w.maxConcurrency}`, `${Math.round((now - w.lastHeartbeat) / 1000)}s ago`, w.labels.join(',') || '-', w.version]),
        ),
      );
    });

  program
    .command('audit')
    .option('-n, --limit <n>', 'how many entries', (v) => Number(v), 50)
    .description('who changed or triggered what, newest first')
    .addHelpText('after', '\nExample:\n  $ ax audit -n 20')
    .action(async (opts: { limit: number }) => {
      const entries = await withApi(globals(), (api) => api.listAudit(opts.limit));
      if (globals().json) return printJson(entries);
      console.log(table(['WHEN', 'WHO', 'ACTION', 'OBJECT', 'DETAIL'], entries.map((e) => [time(e.at), e.actor, e.action, e.object, e.detail])));
    });
}

// run, rerun, runs, trigger, workers, audit
import fs from 'node:fs';
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import { jsonProblem } from '../../core/model/payload.ts';
import type { EngineApi, RunListing } from '../../api/engine-api.ts';
import { TRIGGER_TYPES, type RunRecord } from '../../api/types.ts';
import { calledBy, withChild } from './call-links.ts';
import { actor, connect, embeddedEngine, type Globals, serverSide, withApi } from './connect.ts';
import { elapsed, localZone, mark, printJson, table, time } from './format.ts';
import { intArg, MAX_CONCURRENCY, MAX_SECONDS } from './int-arg.ts';
import { cancelOnInterrupt, detachOnInterrupt, type Interrupt } from './interrupt.ts';
import { printPausedNote } from './commands-scheduling.ts';
import { waitForRun } from './wait-run.ts';
import { rerunCommand } from './commands-rerun.ts';
import { runOutputsBlock } from './outputs-text.ts';
import { readRegularFile } from './regular-file.ts';
import { runFilterOf, type RunFilterOptions } from './run-filter-options.ts';
import { checkDownstream, collectParam, logicalTimeArg, paramsLine } from './run-options.ts';
import {
  engineWarnings,
  looksLikeFile,
  printFileNotes,
  readWorkflowFile,
  refuseUnlessForced,
  settleTimezone,
} from './workflow-files.ts';

type RunChoices = { task?: string; downstream?: boolean; param?: Record<string, string>; logicalTime?: number };

async function runAndMaybeWait(
  api: EngineApi,
  name: string,
  opts: RunChoices & { wait?: boolean },
  json: boolean,
  embedded: boolean,
  interrupt: Interrupt,
) {
  const run = await api.runWorkflow(name, {
    task: opts.task,
    ...(opts.downstream && { downstream: true }),
    ...(opts.param && { params: opts.param }),
    ...(opts.logicalTime !== undefined && { logicalTime: opts.logicalTime }),
    actor: actor(),
  });
  interrupt.track(run.id);
  printPausedNote((await api.engineInfo()).schedulingPaused, 'this manual run starts all the same');
  if (!opts.wait && !embedded) {
    if (json) return printJson(run);
    console.log(
      `started run #${run.id} of ${name}${opts.task ? ` (task ${opts.task})` : ''}: follow it with "ax runs ${run.id}"`,
    );
    return;
  }
  if (!json) console.log(`run #${run.id} of ${name}${opts.task ? ` (task ${opts.task})` : ''}`);
  const done = await waitForRun(api, run.id, { quiet: json, cancelAs: embedded ? actor() : undefined });
  if (json) printJson(await api.getRun(run.id));
  process.exitCode = done.state === 'SUCCESS' ? 0 : 1;
}

export function runCommands(program: Command, globals: Globals): void {
  program
    .command('run')
    .argument('<target>', 'a workflow name, or a workflow file (applied first)')
    .option('--task <task>', 'run only this task')
    .option('--downstream', 'with --task: that task and everything downstream of it')
    .option('-p, --param <name=value>', 'a param of the run (repeatable): -p region=eu -p day=2026-11-30', collectParam)
    .option('--logical-time <iso>', "the run's logical time (default now), e.g. 2026-11-30T02:00:00Z", logicalTimeArg)
    .option('--wait', 'wait for the run, print each outcome, exit non-zero unless it succeeded')
    .option('--force', 'with a FILE: apply it even when a task could not run here (see "ax apply --force")')
    .option(
      '--concurrency <n>',
      `worker slots when no server runs, 1-${MAX_CONCURRENCY}`,
      intArg('--concurrency', 1, MAX_CONCURRENCY),
    )
    .option(
      '--drain-timeout <seconds>',
      'on SIGTERM, how long running tasks may finish (Ctrl-C cancels the run)',
      intArg('--drain-timeout', 0, MAX_SECONDS),
      30,
    )
    .description('run a workflow now (with no "ax serve" running, the run happens in this process and is waited for)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax run nightly-etl --wait\n  $ ax run ./etl.yaml --wait        # no server needed\n  $ ax run nightly-etl --task load --downstream\n  $ ax run orders -p region=eu -p day=2026-11-30 --logical-time 2026-11-30',
    )
    .action(
      async (
        target: string,
        opts: RunChoices & { wait?: boolean; force?: boolean; concurrency?: number; drainTimeout: number },
      ) => {
        const g = globals();
        checkDownstream(opts);
        const file = looksLikeFile(target) ? readWorkflowFile(target) : undefined;
        if (file) printFileNotes(target, file);
        const name = file?.spec.name ?? target;
        const c = await connect(g);
        try {
          if (file) refuseUnlessForced(target, await engineWarnings(c.api, target, file.spec), opts.force);
        } catch (err) {
          await c.close();
          throw err;
        }
        if (c.remote) {
          const interrupt = detachOnInterrupt(serverSide(g));
          try {
            if (file) await c.api.apply(await settleTimezone(c.api, target, file), actor());
            return await runAndMaybeWait(c.api, name, opts, g.json === true, false, interrupt);
          } finally {
            interrupt.dispose();
            await c.close();
          }
        }
        await c.close();
        // One-shot: it runs this workflow only; cron fires of the data dir wait for `ax serve`.
        const embedded = await embeddedEngine(
          { ...g, concurrency: opts.concurrency, fireSchedules: false },
          `ax run ${target}`,
        );
        // Ctrl-C cancels the run; SIGTERM (a supervisor, a shutdown) drains, like ax serve.
        const interrupt = cancelOnInterrupt(embedded.engine, actor());
        const onTerm = () => void embedded.release(opts.drainTimeout * 1000).then(() => process.exit(130));
        process.once('SIGTERM', onTerm);
        try {
          if (file) await embedded.engine.apply(await settleTimezone(embedded.engine, target, file), actor());
          await runAndMaybeWait(embedded.engine, name, opts, g.json === true, true, interrupt);
        } finally {
          process.off('SIGTERM', onTerm);
          await embedded.release(opts.drainTimeout * 1000);
          interrupt.dispose();
        }
      },
    );

  rerunCommand(program, globals);

  program
    .command('runs')
    .argument('[workflowOrRun]', 'a workflow name to filter by, or a run id to show its task instances')
    .option('-n, --limit <n>', 'how many runs, 1-1000', intArg('-n/--limit', 1, 1000), 20)
    .option('--owner <owner>', 'only runs of workflows with this owner')
    .option('--trigger <types>', `only runs started so, comma-separated: ${TRIGGER_TYPES.join(', ')}`)
    .option('--since <date>', 'only runs created from this date (local midnight) or ISO time on')
    .option('--until <date>', 'only runs created up to this date (the whole day) or before this ISO time')
    .description('list recent runs, or show one run')
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax runs\n  $ ax runs nightly-etl\n  $ ax runs --owner data --trigger cron --since 2026-11-01\n  $ ax runs 42        # the task instances of run #42',
    )
    .action(async (arg: string | undefined, opts: { limit: number } & RunFilterOptions) => {
      const g = globals();
      await withApi(g, async (api) => {
        if (arg && /^\d+$/.test(arg)) {
          const detail = await api.getRun(Number(arg));
          if (g.json) return printJson(detail);
          const r = detail.run;
          console.log(
            `run #${r.id} of ${r.workflowName}: ${r.state} (${r.trigger} by ${r.triggeredBy}, logical time ${time(r.logicalTime)} ${localZone()})${r.reason ? ` — ${r.reason}` : ''}`,
          );
          if (r.parentRunId !== undefined) console.log(await calledBy(api, r.parentRunId, r.parentInstanceId));
          const params = paramsLine(r);
          if (params) console.log(params);
          console.log(
            table(
              ['INSTANCE', 'TASK', 'ATTEMPT', 'STATE', 'WORKER', `STARTED (${localZone()})`, 'TOOK', 'EXIT', 'REASON'],
              detail.instances.map((i) => [
                i.id,
                i.taskName,
                i.attempt,
                `${mark(i.state)} ${i.state}`,
                i.workerId,
                time(i.startedAt),
                took(i.startedAt, i.finishedAt, i.state === 'RUNNING'),
                i.exitCode,
                withChild(i),
              ]),
            ),
          );
          for (const line of runOutputsBlock(detail.instances)) console.log(line);
          // what its held tasks wait for in other workflows (the run page's header says the same)
          if (r.state === 'RUNNING' || r.state === 'QUEUED')
            for (const w of await api.runWaits(r.id))
              console.log(
                `${w.task} waits for ${w.upstream} (${w.upstreamRunId === undefined ? 'no run yet' : `run #${w.upstreamRunId}, ${w.upstreamState ?? w.upstreamRunState}`})${w.deadline === undefined ? '' : `, gives up at ${time(w.deadline)} ${localZone()}`}`,
              );
          return;
        }
        const runs = await api.listRuns({ workflow: arg, limit: opts.limit, ...runFilterOf(opts) });
        // An unknown workflow is not found (exit 3), as with "ax run", not a workflow without runs.
        if (runs.length === 0 && arg !== undefined) await api.exportWorkflow(arg);
        if (g.json) return printJson(runs);
        const narrowed = opts.owner || opts.trigger || opts.since || opts.until;
        if (runs.length === 0)
          return console.log(narrowed ? 'no runs match' : arg ? `no runs of ${arg} yet` : 'no runs yet');
        console.log(
          table(
            ['RUN', 'WORKFLOW', 'STATE', 'TRIGGER', `LOGICAL TIME (${localZone()})`, 'TOOK', 'REASON'],
            runs.map((r) => [
              r.id,
              r.workflowName,
              `${mark(r.state)} ${r.state}`,
              r.trigger,
              time(r.logicalTime),
              took(r.createdAt, r.finishedAt, r.state === 'RUNNING'),
              why(r),
            ]),
          ),
        );
      });
    });

  program
    .command('trigger')
    .argument('<event>', "event name (a workflow's on_event)")
    .option(
      '--payload <json>',
      'passed to tasks as AX_EVENT_PAYLOAD (or, past 32 KiB, as the file AX_EVENT_PAYLOAD_FILE)',
    )
    .option(
      '--payload-file <file>',
      'the payload from a file ("-": stdin), for payloads too large for an argument; limit 1 MiB',
    )
    .option(
      '--key <key>',
      'an idempotency key: sent again within 24 h, it starts nothing and prints the first runs (safe to retry)',
    )
    .option('--wait', 'wait for the runs; exit non-zero unless all succeeded (always so without a server)')
    .description('start the workflows that listen for an event (with no "ax serve" running, they run in this process)')
    .addHelpText(
      'after',
      `\nExamples:\n  $ ax trigger orders-ready --payload '{"date":"2026-11-29"}'\n  $ ax trigger orders-ready --payload-file orders.json\n  $ produce-orders | ax trigger orders-ready --payload-file -\n  $ ax trigger orders-ready --key "orders-2026-11-29"   # a retry of this starts nothing new`,
    )
    .action(async (event: string, opts: { payload?: string; payloadFile?: string; key?: string; wait?: boolean }) => {
      const g = globals();
      const payload = readPayload(opts);
      // own: the runs are this process's (no server), so one that nothing can take is cancelled
      const report = async (api: EngineApi, wait: boolean, interrupt: Interrupt, own = false) => {
        const runs = await api.trigger(event, payload, actor(), opts.key);
        runs.forEach((r) => interrupt.track(r.id));
        if (!wait) {
          if (g.json) return printJson(runs);
          for (const r of runs) console.log(startedLine(r));
          return;
        }
        let ok = true;
        for (const r of runs) {
          if (!g.json) console.log(`run #${r.id} of ${r.workflowName}`);
          ok =
            (await waitForRun(api, r.id, { quiet: g.json === true, cancelAs: own ? actor() : undefined })).state ===
              'SUCCESS' && ok;
        }
        if (g.json) printJson(await Promise.all(runs.map((r) => api.getRun(r.id))));
        process.exitCode = ok ? 0 : 1;
      };
      const c = await connect(g);
      if (c.remote) {
        const interrupt = detachOnInterrupt(serverSide(g));
        try {
          return await report(c.api, opts.wait === true, interrupt);
        } finally {
          interrupt.dispose();
          await c.close();
        }
      }
      await c.close();
      // No server: nothing else would run them, so run them here and wait, as `ax run` does.
      const embedded = await embeddedEngine({ ...g, fireSchedules: false }, `ax trigger ${event}`);
      const interrupt = cancelOnInterrupt(embedded.engine, actor());
      try {
        await report(embedded.engine, true, interrupt, true);
      } finally {
        await embedded.release(30_000);
        interrupt.dispose();
      }
    });

  program
    .command('workers')
    .description('list the nodes: role (the leader marked), status, load, heartbeat age, labels')
    .option('--all', 'also the workers that left (drained, stopped: offline)')
    .addHelpText(
      'after',
      '\nRoles: solo, worker, scheduler (runs no tasks), scheduler+worker; "(leader)" marks the scheduler that holds the lease.\n' +
        'Status: online, draining (takes nothing new, finishes what runs), lost (silent past 3 heartbeats), offline (left).\n' +
        '\nExample:\n  $ ax workers --all --json',
    )
    .action(async (opts: { all?: boolean }) => {
      const nodes = await withApi(globals(), (api) => api.listWorkers({ schedulers: true }));
      const shown = opts.all ? nodes : nodes.filter((w) => w.status !== 'offline');
      if (globals().json) return printJson(shown);
      const now = Date.now();
      console.log(
        table(
          ['ID', 'HOST', 'ROLE', 'STATUS', 'RUNNING', 'HEARTBEAT', 'LABELS', 'VERSION'],
          shown.map((w) => [
            w.id,
            w.host,
            `${w.role ?? 'worker'}${w.leader ? ' (leader)' : ''}`,
            w.status,
            w.role === 'scheduler' ? '-' : `${w.running}/${w.maxConcurrency}`,
            `${Math.max(0, Math.round((now - w.lastHeartbeat) / 1000))}s ago`,
            w.labels.join(',') || '-',
            w.version,
          ]),
        ),
      );
      const hidden = nodes.length - shown.length;
      if (hidden > 0) console.log(`(${hidden} offline not shown: ax workers --all)`);
    });

  program
    .command('audit')
    .option('-n, --limit <n>', 'how many entries, 1-1000', intArg('-n/--limit', 1, 1000), 50)
    .description('who changed or triggered what, newest first')
    .addHelpText('after', '\nExample:\n  $ ax audit -n 20')
    .action(async (opts: { limit: number }) => {
      const entries = await withApi(globals(), (api) => api.listAudit(opts.limit));
      if (globals().json) return printJson(entries);
      // NOTE: what the client said beside the identity the server authenticated (WHO)
      console.log(
        table(
          [`WHEN (${localZone()})`, 'WHO', 'NOTE', 'ACTION', 'OBJECT', 'DETAIL'],
          entries.map((e) => [time(e.at), e.actor, e.note ?? undefined, e.action, e.object, e.detail]),
        ),
      );
    });
}

/** What became of a run an event started: one the overlap policy skipped or queued says why. */
function startedLine(r: RunRecord): string {
  const because = r.reason ? `: ${r.reason}` : '';
  if (r.state === 'SKIPPED') return `run #${r.id} of ${r.workflowName} was skipped${because}`;
  if (r.state === 'QUEUED') return `run #${r.id} of ${r.workflowName} is queued${because}`;
  return `started run #${r.id} of ${r.workflowName}: follow it with "ax runs ${r.id}"`;
}

/** How long it took, or for one still running, how long it has run so far. */
function took(from: number | undefined, to: number | undefined, running: boolean): string | undefined {
  return running ? elapsed(from, Date.now()) : elapsed(from, to);
}

/** A failed run names its failed task and the first line of why: the answer without "ax runs RUN". */
function why(r: RunListing): string | undefined {
  if (!r.failure) return r.reason;
  const reason = r.failure.reason?.split('\n')[0] ?? r.failure.state.toLowerCase();
  return `${r.failure.task}: ${reason}`;
}

/** --payload or --payload-file (one of them); the engine checks the size, whichever door it came through. */
function readPayload(opts: { payload?: string; payloadFile?: string }): string | undefined {
  if (opts.payloadFile === undefined) {
    // --payload is documented as JSON: a typo in it is caught here, not by a task at 2 a.m.
    const problem = opts.payload === undefined ? undefined : jsonProblem(opts.payload);
    if (problem)
      throw new AxError(
        'validation',
        `--payload is not JSON (${problem}): quote text as a JSON string, e.g. --payload '"hello"', or use --payload-file for other formats`,
      );
    return opts.payload;
  }
  if (opts.payload !== undefined) throw new AxError('validation', 'give --payload or --payload-file, not both');
  if (opts.payloadFile === '-') {
    try {
      return fs.readFileSync(0, 'utf8');
    } catch (err) {
      throw new AxError(
        'validation',
        `--payload-file -: cannot read stdin (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
  }
  // Read whole: the engine checks the size against its (configurable) limit and names it.
  return readRegularFile(
    opts.payloadFile,
    `--payload-file ${opts.payloadFile}`,
    Number.POSITIVE_INFINITY,
    'to pipe a payload, give --payload-file - and send it on stdin',
  ).toString('utf8');
}

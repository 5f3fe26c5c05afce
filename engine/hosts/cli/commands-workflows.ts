// apply, validate, export, ls, enable, disable, rm
import fs from 'node:fs';
import readline from 'node:readline/promises';
import type { Command } from 'commander';
import type { WorkflowListing } from '../../api/engine-api.ts';
import { AxError, formatProblems } from '../../api/errors.ts';
import { hasComments, MAX_WORKFLOW_FILE_BYTES } from '../../core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../core/workflow/workflow-serialize.ts';
import { actor, type GlobalOptions, withApi } from './connect.ts';
import { printPausedNote } from './commands-scheduling.ts';
import { printJson, table, timeIn } from './format.ts';
import { outputFileError } from './output-errors.ts';
import {
  engineWarnings,
  printFileNotes,
  readWorkflowFile,
  refuseUnlessForced,
  settleTimezone,
} from './workflow-files.ts';
import { yamlForTerminal } from './terminal.ts';

type Globals = () => GlobalOptions & { json?: boolean };

/** SCHEDULE in `ax ls`: the schedule in words (else the event), and the engine's start; else manual. */
function triggersText(w: WorkflowListing): string {
  const parts = [w.scheduleText ?? (w.onEvent && `on event ${w.onEvent}`), w.onEngineStart && 'when the engine starts'];
  const shown = parts.filter((x): x is string => typeof x === 'string' && x !== '');
  return shown.length > 0 ? shown.join('; ') : 'manual';
}

export function workflowCommands(program: Command, globals: Globals): void {
  program
    .command('apply')
    .argument('<file>', 'workflow file (YAML or JSON)')
    .description('create or update the workflow a file describes')
    .option(
      '--force',
      'apply even when a task could not run here: labels no known worker offers, a cwd that does not exist',
    )
    .addHelpText('after', '\nExample:\n  $ ax apply nightly-etl.yaml')
    .action(async (file: string, opts: { force?: boolean }) => {
      const parsed = readWorkflowFile(file);
      printFileNotes(file, parsed);
      const out = await withApi(globals(), async (api) => {
        refuseUnlessForced(file, await engineWarnings(api, file, parsed.spec), opts.force);
        return api.apply(await settleTimezone(api, file, parsed), actor());
      });
      for (const w of out.warnings ?? []) process.stderr.write(`warning: ${file}: ${w}\n`);
      if (globals().json) return printJson(out);
      console.log(
        out.changed
          ? `applied ${out.workflow} (version ${out.version})`
          : `${out.workflow} unchanged (version ${out.version})`,
      );
    });

  program
    .command('validate')
    .argument('<file>', 'workflow file (YAML or JSON)')
    .description('check a workflow file without applying it; warns about tasks that could not run here')
    .addHelpText('after', '\nExample:\n  $ ax validate nightly-etl.yaml && ax apply nightly-etl.yaml')
    .action(async (file: string) => {
      const parsed = readWorkflowFile(file);
      const { spec } = parsed;
      printFileNotes(file, parsed);
      try {
        const warnings = await withApi(globals(), (api) => engineWarnings(api, file, spec));
        for (const w of warnings) process.stderr.write(`warning: ${formatProblems([w])}\n`);
      } catch (err) {
        // The file is fine; only what the engine knows (workers, this machine's paths) is unchecked.
        if (!(err instanceof AxError && err.code === 'unavailable')) throw err;
        process.stderr.write(`note: ${file}: labels and cwd not checked: ${err.message}\n`);
      }
      if (globals().json) return printJson(spec);
      console.log(
        `${file}: ok (workflow ${spec.name}, ${spec.tasks.length} task${spec.tasks.length === 1 ? '' : 's'})`,
      );
    });

  program
    .command('export')
    .argument('<workflow>', 'workflow name')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--force', 'replace an existing file even though it has comments (AX stores none, so they would be lost)')
    .description('print a workflow as YAML; "ax export W -o f.yaml && ax apply f.yaml" changes nothing')
    .addHelpText('after', '\nExample:\n  $ ax export nightly-etl -o nightly-etl.yaml')
    .action(async (name: string, opts: { output?: string; force?: boolean }) => {
      const spec = await withApi(globals(), (api) => api.exportWorkflow(name));
      if (globals().json) return printJson(spec);
      const text = serializeWorkflow(spec);
      if (opts.output && !opts.force) refuseToDropComments(opts.output);
      if (opts.output) {
        try {
          fs.writeFileSync(opts.output, text);
        } catch (err) {
          throw outputFileError(opts.output, err);
        }
      } else process.stdout.write(yamlForTerminal(text));
    });

  program
    .command('ls')
    .description('list workflows: schedule in words, next fire, last run')
    .addHelpText('after', '\nExample:\n  $ ax ls --json | jq ".[].name"')
    .action(async () => {
      const [list, info] = await withApi(globals(), (api) => Promise.all([api.listWorkflows(), api.engineInfo()]));
      printPausedNote(
        info.schedulingPaused,
        'no cron fire or event starts a run; the NEXT FIRE times wait for the resume',
      );
      if (globals().json) return printJson(list);
      if (list.length === 0) return console.log('no workflows yet: write a workflow file and "ax apply" it');
      console.log(
        table(
          ['NAME', 'TASKS', 'ENABLED', 'SCHEDULE', 'NEXT FIRE', 'LAST RUN'],
          list.map((w) => [
            w.name,
            w.taskCount,
            w.enabled ? 'yes' : 'no',
            triggersText(w),
            w.scheduleError ? '✗ cannot fire' : timeIn(w.nextFireAt, w.schedule?.timezone),
            w.lastRun ? `#${w.lastRun.id} ${w.lastRun.state}` : undefined,
          ]),
        ),
      );
      for (const w of list) if (w.scheduleError) process.stderr.write(`ax: workflow ${w.name}: ${w.scheduleError}\n`);
      for (const w of list) {
        if (w.missingUpstreams)
          process.stderr.write(
            `ax: workflow ${w.name} waits for ${w.missingUpstreams.join(', ')}, not there (yet): see "ax lineage ${w.name}"\n`,
          );
      }
    });

  for (const [cmd, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    program
      .command(cmd)
      .argument('<workflow>', 'workflow name')
      .description(`${cmd} a workflow's schedule and event triggers`)
      .addHelpText('after', `\nExample:\n  $ ax ${cmd} nightly-etl`)
      .action(async (name: string) => {
        await withApi(globals(), (api) => api.setEnabled(name, enabled, actor()));
        console.log(`${name} ${enabled ? 'enabled' : 'disabled'}`);
      });
  }

  program
    .command('rm')
    .argument('<workflow>', 'workflow name')
    .option('-y, --yes', 'remove without asking (scripts must pass it)')
    .description('remove a workflow with its history and logs (asks first)')
    .addHelpText('after', '\nExamples:\n  $ ax rm nightly-etl\n  $ ax rm nightly-etl --yes   # in a script')
    .action(async (name: string, opts: { yes?: boolean }) => {
      const removed = await withApi(globals(), async (api) => {
        await api.exportWorkflow(name); // an unknown name is "not found" before anything is asked
        // other workflows waiting for this one would wait until their wait_timeout: said before asking
        const dependents = [
          ...new Set((await api.lineage(name, { up: 0, down: 1 })).edges.filter((e) => e.across).map((e) => e.to)),
        ];
        if (dependents.length > 0)
          process.stderr.write(
            `warning: ${dependents.join(', ')} depend${dependents.length === 1 ? 's' : ''} on workflow ${name}: once it is removed they wait until their wait_timeout; change their upstream\n`,
          );
        if (!opts.yes) {
          const n = (await api.listRuns({ workflow: name, limit: 1000 })).length;
          const what =
            n === 0
              ? `workflow ${name} (it has no runs)`
              : `workflow ${name} with its ${n === 1000 ? 'more than 999' : n} run${n === 1 ? '' : 's'} and their logs`;
          if (!process.stdin.isTTY)
            throw new AxError(
              'validation',
              `ax rm would remove ${what}: pass --yes to confirm (there is no terminal to ask on)`,
            );
          if (!(await confirm(`Remove ${what}? [y/N] `))) return false;
        }
        await api.removeWorkflow(name, actor());
        return true;
      });
      console.log(removed ? `${name} removed` : `${name} kept: nothing was removed`);
    });
}

/** A yes/no question on the terminal (stderr, so stdout stays the command's output); no by default. */
async function confirm(question: string): Promise<boolean> {
  // terminal: false — no cursor sequences, which the output guard would print escaped; the tty's own line editing is enough
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/**
 * Comments are not stored, so an export holds none: writing it over a file that has some (the
 * file the workflow came from, typically) would lose them without a word. Refused unless --force.
 */
function refuseToDropComments(file: string): void {
  let text: string;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_WORKFLOW_FILE_BYTES) return;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return; // no file yet (or none we can read): nothing to lose
  }
  if (hasComments(text)) {
    throw new AxError(
      'conflict',
      `${file} has comments, which the export would drop (AX stores no comments): write to another file, or give --force to replace it`,
    );
  }
}

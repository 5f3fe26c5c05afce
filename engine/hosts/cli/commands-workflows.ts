// apply, validate, export, ls, enable, disable, rm
import fs from 'node:fs';
import type { Command } from 'commander';
import { serializeWorkflow } from '../../core/workflow-file.ts';
import { actor, type GlobalOptions, withApi } from './connect.ts';
import { printJson, table, time } from './format.ts';
import { readWorkflowFile } from './workflow-files.ts';

type Globals = () => GlobalOptions & { json?: boolean };

export function workflowCommands(program: Command, globals: Globals): void {
  program
    .command('apply')
    .argument('<file>', 'workflow file (YAML or JSON)')
    .description('create or update the workflow a file describes')
    .addHelpText('after', '\nExample:\n  $ ax apply nightly-etl.yaml')
    .action(async (file: string) => {
      const { spec, warnings } = readWorkflowFile(file);
      for (const w of warnings) process.stderr.write(`warning: ${file}: ${w}\n`);
      const out = await withApi(globals(), (api) => api.apply(spec, actor()));
      if (globals().json) return printJson(out);
      console.log(out.changed ? `applied ${out.workflow} (version ${out.version})` : `${out.workflow} unchanged (version ${out.version})`);
    });

  program
    .command('validate')
    .argument('<file>', 'workflow file (YAML or JSON)')
    .description('check a workflow file without applying it')
    .addHelpText('after', '\nExample:\n  $ ax validate nightly-etl.yaml && ax apply nightly-etl.yaml')
    .action((file: string) => {
      const { spec, warnings } = readWorkflowFile(file);
      for (const w of warnings) process.stderr.write(`warning: ${file}: ${w}\n`);
      if (globals().json) return printJson(spec);
      console.log(`${file}: ok (workflow ${spec.name}, ${spec.tasks.length} task${spec.tasks.length === 1 ? '' : 's'})`);
    });

  program
    .command('export')
    .argument('<workflow>', 'workflow name')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .description('print a workflow as YAML; "ax export W -o f.yaml && ax apply f.yaml" changes nothing')
    .addHelpText('after', '\nExample:\n  $ ax export nightly-etl -o nightly-etl.yaml')
    .action(async (name: string, opts: { output?: string }) => {
      const spec = await withApi(globals(), (api) => api.exportWorkflow(name));
      if (globals().json) return printJson(spec);
      const text = serializeWorkflow(spec);
      if (opts.output) fs.writeFileSync(opts.output, text);
      else process.stdout.write(text);
    });

  program
    .command('ls')
    .description('list workflows: schedule in words, next fire, last run')
    .addHelpText('after', '\nExample:\n  $ ax ls --json | jq ".[].name"')
    .action(async () => {
      const list = await withApi(globals(), (api) => api.listWorkflows());
      if (globals().json) return printJson(list);
      if (list.length === 0) return console.log('no workflows yet: write a workflow file and "ax apply" it');
      console.log(
        table(
          ['NAME', 'TASKS', 'ENABLED', 'SCHEDULE', 'NEXT FIRE', 'LAST RUN'],
          list.map((w) => [
            w.name,
            w.taskCount,
            w.enabled ? 'yes' : 'no',
            w.scheduleText ?? (w.onEvent ? `on event ${w.onEvent}` : 'manual'),
            time(w.nextFireAt),
            w.lastRun ? `#${w.lastRun.id} ${w.lastRun.state}` : undefined,
          ]),
        ),
      );
    });

  for (const [cmd, enabled] of [['enable', true], ['disable', false]] as const) {
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
    .description('remove a workflow with its history and logs')
    .addHelpText('after', '\nExample:\n  $ ax rm nightly-etl')
    .action(async (name: string) => {
      await withApi(globals(), (api) => api.removeWorkflow(name, actor()));
      console.log(`${name} removed`);
    });
}

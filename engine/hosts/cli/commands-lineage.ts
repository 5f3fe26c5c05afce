// ax lineage WORKFLOW[.TASK]: the graph across workflows around a workflow or a task,
// each task with its owner, today's state and what it depends on.
import type { Command } from 'commander';
import type { LineageGraph } from '../../api/engine-api.ts';
import { type GlobalOptions, withApi } from './connect.ts';
import { mark, printJson, table } from './format.ts';
import { intArg } from './int-arg.ts';

type Globals = () => GlobalOptions & { json?: boolean };

export function lineageCommand(program: Command, globals: Globals): void {
  program
    .command('lineage')
    .argument('<target>', 'a workflow, or one task as WORKFLOW.TASK')
    .option('--up <n>', 'hops of upstream to show (default 10)', intArg('--up', 0, 1000))
    .option('--down <n>', 'hops of downstream to show (default 10): "who depends on me"', intArg('--down', 0, 1000))
    .description("the dependencies across workflows around a workflow or a task, with owners and today's states")
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax lineage orders-etl\n  $ ax lineage orders-etl.load --up 0 --down 2   # who depends on orders-etl.load',
    )
    .action(async (target: string, opts: { up?: number; down?: number }) => {
      const graph = await withApi(globals(), (api) =>
        api.lineage(target, {
          ...(opts.up !== undefined && { up: opts.up }),
          ...(opts.down !== undefined && { down: opts.down }),
        }),
      );
      if (globals().json) return printJson(graph);
      console.log(lineageTable(graph));
    });
}

/** One row per task: what it depends on (a date rule other than same_day in brackets), its owner and today's state. */
export function lineageTable(graph: LineageGraph): string {
  const focus = new Set(graph.focus);
  const rows = graph.nodes.map((n) => {
    const ups = graph.edges
      .filter((e) => e.to === n.id)
      .map((e) => (e.date && e.date !== 'same_day' ? `${e.from} (${e.date})` : e.from))
      .join(', ');
    const today = n.missing ? 'missing' : n.state ? `${mark(n.state)} ${n.state}` : '– no run today';
    return [`${focus.has(n.id) ? '▸ ' : '  '}${n.id}`, n.owner ?? '–', today, ups || '–'];
  });
  return table(['TASK', 'OWNER', 'TODAY', 'UPSTREAM'], rows);
}

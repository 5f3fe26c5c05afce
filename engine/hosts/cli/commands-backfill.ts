// ax backfill / ax backfills: a workflow's runs for a past window, one per logical time, created
// by the engine's scheduler a few at a time (engine/core/scheduling/backfill-pump.ts). Without a
// running `ax serve` (solo) the backfill is recorded and its runs start when the engine runs.
import type { Command } from 'commander';
import type { BackfillDetail, BackfillPlan, BackfillRecord } from '../../api/backfill.ts';
import { BACKFILL_MAX_PARALLEL, windowBound } from '../../api/backfill.ts';
import type { EngineApi } from '../../api/engine-api.ts';
import { AxError } from '../../api/errors.ts';
import type { ParamValue } from '../../api/types.ts';
import { actor, type GlobalOptions, withApi } from './connect.ts';
import { intArg } from './int-arg.ts';
import { mark, printJson, table, timeIn } from './format.ts';

type Globals = () => GlobalOptions & { json?: boolean };

interface BackfillOptions {
  from?: string;
  to?: string;
  param: string[];
  maxParallel?: number;
  dryRun?: boolean;
  rerunExisting?: boolean;
  every?: string;
  force?: boolean;
}

/** `-p NAME=VALUE`, repeatable: the values as text (the engine checks them against the workflow's params). */
function collectParam(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function paramsOf(pairs: string[]): Record<string, ParamValue> | undefined {
  if (pairs.length === 0) return undefined;
  const out: Record<string, ParamValue> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new AxError('validation', `-p "${pair}": write a parameter as NAME=VALUE (e.g. -p region=eu)`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** The zone the window's dates are read in: the schedule's, else the engine's. */
async function zoneOf(api: EngineApi, workflow: string): Promise<string> {
  const spec = await api.exportWorkflow(workflow);
  return spec.schedule?.timezone ?? (await api.engineInfo()).timezone;
}

function bound(text: string | undefined, zone: string, end: 'from' | 'to'): number {
  if (text === undefined)
    throw new AxError(
      'validation',
      `--${end} is needed: the window's ${end === 'from' ? 'first' : 'last'} day, e.g. --${end} 2026-11-01`,
    );
  const r = windowBound(text, zone, end);
  if ('error' in r) throw new AxError('validation', `--${r.error}`);
  return r.ms;
}

function progress(b: BackfillRecord): string {
  return `${b.done}/${b.total} done, ${b.failed} failed, ${b.running} running`;
}

function printPlan(plan: BackfillPlan, workflow: string, zone: string, dryRun: boolean): void {
  for (const note of plan.notes ?? []) console.log(`note: ${note}`);
  if (dryRun) {
    const rows = [
      ...plan.logicalTimes.map((t) => [t, 'will run'] as const),
      ...plan.skippedExisting.map((t) => [t, 'exists: skipped (--rerun-existing runs it again)'] as const),
    ].sort((a, b) => a[0] - b[0]);
    console.log(
      table(
        [`LOGICAL TIME (${zone})`, 'WHAT'],
        rows.map(([t, what]) => [timeIn(t, zone), what]),
      ),
    );
    console.log(
      `dry run: ${plan.total} run(s) of ${workflow}${plan.skippedExisting.length ? `, ${plan.skippedExisting.length} existing skipped` : ''}; nothing created`,
    );
    return;
  }
  const b = plan.backfill as BackfillRecord;
  const first = plan.logicalTimes[0];
  const last = plan.logicalTimes[plan.total - 1];
  console.log(
    `backfill #${b.id} of ${workflow}: ${plan.total} run(s) from ${timeIn(first, zone)} to ${timeIn(last, zone)}, at most ${b.maxParallel} at once${plan.skippedExisting.length ? ` (${plan.skippedExisting.length} existing skipped)` : ''}`,
  );
  console.log(`follow it with: ax backfill show ${b.id}`);
}

function printDetail(d: BackfillDetail, zone: string): void {
  const b = d.backfill;
  console.log(
    `backfill #${b.id} of ${b.workflowName}: ${b.state}, ${progress(b)} (by ${b.createdBy}, at most ${b.maxParallel} at once${b.every ? `, every ${b.every}` : ''})`,
  );
  if (b.params)
    console.log(
      `params: ${Object.entries(b.params)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ')}`,
    );
  const byTime = new Map(d.runs.map((r) => [r.logicalTime, r]));
  console.log(
    table(
      [`LOGICAL TIME (${zone})`, 'RUN', 'STATE'],
      d.logicalTimes.map((t) => {
        const r = byTime.get(t);
        return [timeIn(t, zone), r?.id, r ? `${mark(r.state)} ${r.state}` : 'not started'];
      }),
    ),
  );
}

function byId(what: string, id: string | undefined): number {
  if (id === undefined || !/^[1-9]\d{0,15}$/.test(id))
    throw new AxError(
      'validation',
      `ax backfill ${what} takes a backfill id (got ${id ?? 'none'}): "ax backfills" lists them`,
    );
  return Number(id);
}

export function backfillCommands(program: Command, globals: Globals): void {
  program
    .command('backfill')
    .argument('<workflow>', 'the workflow; or show | cancel | rerun followed by a backfill id')
    .argument('[id]', 'with show, cancel or rerun: the backfill')
    .option('--from <date>', "the window's first day (2026-11-01) or time, in the schedule's zone")
    .option('--to <date>', "the window's last day (included: all its fires) or time")
    .option('-p, --param <NAME=VALUE>', 'a parameter of the runs (repeat for more)', collectParam, [])
    .option(
      '--max-parallel <n>',
      `runs at once, 1-${BACKFILL_MAX_PARALLEL} (default 1)`,
      intArg('--max-parallel', 1, BACKFILL_MAX_PARALLEL),
    )
    .option('--dry-run', 'list the logical times (and which have a run already); create nothing')
    .option('--rerun-existing', 'run again the logical times that have a run already (skipped otherwise)')
    .option('--every <step>', 'for a workflow without a schedule: one run per step from --from (e.g. 1d, 1h)')
    .option('--force', 'create more than 1,000 runs')
    .description('run a workflow for a past window: one run per fire of its schedule (or --every step), oldest first')
    .addHelpText(
      'after',
      "\nThe engine (ax serve, or the team's scheduler) creates the runs, at most --max-parallel live at once;\n" +
        'a workflow whose overlap is skip or queue runs them one at a time.\n' +
        '\nExamples:\n  $ ax backfill nightly-etl --from 2026-11-01 --to 2026-11-30 --max-parallel 3\n' +
        '  $ ax backfill report --from 2026-11-01 --to 2026-11-07 --every 1d -p region=eu --dry-run\n' +
        '  $ ax backfill show 4\n  $ ax backfill cancel 4\n  $ ax backfill rerun 4     # its failed runs only',
    )
    .action(async (first: string, id: string | undefined, opts: BackfillOptions) => {
      const g = globals();
      await withApi(g, async (api, remote) => {
        if (id !== undefined && ['show', 'cancel', 'rerun'].includes(first)) {
          const n = byId(first, id);
          const detail =
            first === 'show'
              ? await api.getBackfill(n)
              : first === 'cancel'
                ? await api.cancelBackfill(n, actor())
                : await api.rerunBackfillFailed(n, actor());
          if (g.json) return printJson(detail);
          printDetail(detail, await zoneOf(api, detail.backfill.workflowName).catch(() => 'UTC'));
          return;
        }
        if (id !== undefined)
          throw new AxError(
            'validation',
            `"${first} ${id}": give a workflow with --from/--to, or show | cancel | rerun ID`,
          );
        const zone = await zoneOf(api, first);
        const plan = await api.backfill(
          {
            workflow: first,
            from: bound(opts.from, zone, 'from'),
            to: bound(opts.to, zone, 'to'),
            ...(opts.every !== undefined && { every: opts.every }),
            ...(paramsOf(opts.param) && { params: paramsOf(opts.param) }),
            ...(opts.maxParallel !== undefined && { maxParallel: opts.maxParallel }),
            ...(opts.rerunExisting && { rerunExisting: true }),
            ...(opts.dryRun && { dryRun: true }),
            ...(opts.force && { force: true }),
          },
          actor(),
        );
        if (g.json) return printJson(plan);
        printPlan(plan, first, zone, opts.dryRun === true);
        if (!remote && !opts.dryRun) console.log('no engine is running here: its runs start when "ax serve" does');
      });
    });

  program
    .command('backfills')
    .argument('[workflow]', 'only the backfills of this workflow')
    .option('-n, --limit <n>', 'how many, 1-1000', intArg('-n/--limit', 1, 1000), 20)
    .description('list backfills, newest first, with their progress')
    .action(async (workflow: string | undefined, opts: { limit: number }) => {
      const g = globals();
      await withApi(g, async (api) => {
        const list = await api.listBackfills({ ...(workflow !== undefined && { workflow }), limit: opts.limit });
        if (list.length === 0 && workflow !== undefined) await api.exportWorkflow(workflow);
        if (g.json) return printJson(list);
        if (list.length === 0) return console.log(workflow ? `no backfills of ${workflow}` : 'no backfills');
        console.log(
          table(
            ['BACKFILL', 'WORKFLOW', 'STATE', 'PROGRESS', 'WINDOW', 'BY'],
            list.map((b) => [
              b.id,
              b.workflowName,
              `${mark(b.state)} ${b.state}`,
              progress(b),
              `${timeIn(b.from, 'UTC')} – ${timeIn(b.to, 'UTC')}`,
              b.createdBy,
            ]),
          ),
        );
      });
    });
}

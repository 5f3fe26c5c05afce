// ax pause / ax resume: all scheduling, for every engine on the data dir or in the team. While
// paused no cron fire and no event (ax trigger, webhooks) starts a run; `ax run` still does and
// running tasks go on. The fires held back are missed fires: on resume each workflow's misfire
// policy deals with them, as after downtime. `ax ls` and `ax run` say while it is paused.
import type { Command } from 'commander';
import type { SchedulingPause } from '../../api/types.ts';
import { actor, type GlobalOptions, withApi } from './connect.ts';
import { printJson, time } from './format.ts';

type Globals = () => GlobalOptions & { json?: boolean };

/** "scheduling paused since 2026-12-01 03:00:12 by alice@laptop" */
export function pausedSince(pause: SchedulingPause): string {
  return `scheduling paused since ${time(pause.since)} by ${pause.by}`;
}

/** The note `ax ls` and `ax run` print on stderr while scheduling is paused. */
export function printPausedNote(pause: SchedulingPause | undefined, what: string): void {
  if (pause) process.stderr.write(`ax: ${pausedSince(pause)}: ${what} ("ax resume" to resume)\n`);
}

export function schedulingCommands(program: Command, globals: Globals): void {
  program
    .command('pause')
    .description(
      'pause all scheduling: no cron fire and no event starts a run until "ax resume" (ax run still does; running tasks go on)',
    )
    .addHelpText(
      'after',
      '\nThe pause is kept in the database: it holds across restarts, and in team mode for every node.\n' +
        "Fires held back are missed fires: on resume each workflow's misfire policy (run_once, skip, all) deals with them.\n" +
        '\nExamples:\n  $ ax pause\n  $ ax --mode team pause',
    )
    .action(async () => {
      const change = await withApi(globals(), (api) => api.setSchedulingPaused(true, actor()));
      if (globals().json) return printJson(change);
      if (!change.changed && change.paused) return console.log(`already paused: ${pausedSince(change.paused)}`);
      console.log(
        'scheduling paused: no cron fire and no event starts a run until "ax resume"; "ax run" still does, and running tasks go on',
      );
    });

  program
    .command('resume')
    .description("resume scheduling: fires missed while paused follow each workflow's misfire policy at once")
    .addHelpText('after', '\nExample:\n  $ ax resume')
    .action(async () => {
      const change = await withApi(globals(), (api) => api.setSchedulingPaused(false, actor()));
      if (globals().json) return printJson(change);
      if (!change.changed) return console.log('scheduling was not paused');
      console.log("scheduling resumed: fires missed while paused follow each workflow's misfire policy");
    });
}

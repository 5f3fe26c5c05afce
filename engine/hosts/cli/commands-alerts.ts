// ax alerts: the alerts recorded (newest first, with how each channel's delivery went), the
// channels the engine can send through (secrets masked), and `ax alerts test CHANNEL`.
import type { Command } from 'commander';
import { ALERT_RULES, ALERT_STATES, type AlertFilter, type AlertRecord } from '../../api/alerts.ts';
import { AxError } from '../../api/errors.ts';
import { actor, type GlobalOptions, withApi } from './connect.ts';
import { intArg } from './int-arg.ts';
import { localZone, printJson, table, time } from './format.ts';
import { EXIT } from './exit-codes.ts';

type Globals = () => GlobalOptions & { json?: boolean };

function deliveries(a: AlertRecord): string {
  if (a.deliveries.length === 0) return a.state === 'grouped' ? '(in the summary)' : '-';
  return a.deliveries
    .map(
      (d) =>
        `${d.channel}: ${d.state}${d.attempts > 1 ? ` after ${d.attempts} tries` : ''}${d.state === 'failed' && d.error ? ` (${d.error.split('\n')[0]})` : ''}`,
    )
    .join('; ');
}

function oneOf<T extends string>(flag: string, allowed: readonly T[]) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value))
      throw new AxError('validation', `${flag} must be one of ${allowed.join(', ')}, not "${value}"`);
    return value as T;
  };
}

export function alertsCommand(program: Command, globals: Globals): void {
  const alerts = program
    .command('alerts')
    .description(
      'alerts recorded (failures, recoveries, lost workers, …), newest first, with how each channel took them',
    )
    .option('-n, --limit <n>', 'how many, 1-1000', intArg('-n/--limit', 1, 1000), 50)
    .option('--workflow <name>', 'only alerts about this workflow')
    .option(
      '--rule <rule>',
      `only this rule: ${[...ALERT_RULES, 'test'].join(', ')}`,
      oneOf('--rule', [...ALERT_RULES, 'test'] as const),
    )
    .option('--state <state>', `only this state: ${ALERT_STATES.join(', ')}`, oneOf('--state', ALERT_STATES))
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax alerts\n  $ ax alerts --workflow nightly-etl --state failed\n  $ ax alerts channels\n  $ ax alerts test ops-slack',
    )
    .action(
      async (opts: { limit: number; workflow?: string; rule?: AlertFilter['rule']; state?: AlertFilter['state'] }) => {
        const filter: AlertFilter = {
          limit: opts.limit,
          ...(opts.workflow && { workflow: opts.workflow }),
          ...(opts.rule && { rule: opts.rule }),
          ...(opts.state && { state: opts.state }),
        };
        const list = await withApi(globals(), (api) => api.listAlerts(filter));
        if (globals().json) return printJson(list);
        if (list.length === 0)
          return console.log('no alerts recorded (channels and rules: README "Alerts"; "ax alerts channels")');
        console.log(
          table(
            ['ID', `WHEN (${localZone()})`, 'RULE', 'STATE', 'ALERT', 'DELIVERIES'],
            list.map((a) => [a.id, time(a.at), a.rule, a.state, a.title, deliveries(a)]),
          ),
        );
      },
    );
  alerts
    .command('channels')
    .description('the alert channels the engine can send through (settings.json "alerts.channels"), secrets masked')
    .action(async () => {
      const channels = await withApi(globals(), (api) => api.listAlertChannels());
      if (globals().json) return printJson(channels);
      if (channels.length === 0)
        return console.log('no alert channels: define them in settings.json "alerts.channels" (README "Alerts")');
      console.log(
        table(
          ['NAME', 'KIND', 'TARGET', 'TEMPLATE'],
          channels.map((c) => [c.name, c.kind, c.target, c.template]),
        ),
      );
    });
  alerts
    .command('test')
    .argument('<channel>', 'a channel name (see "ax alerts channels")')
    .description('send a test alert through one channel and say how it went (recorded like any alert)')
    .action(async (channel: string) => {
      const rec = await withApi(globals(), (api) => api.testAlertChannel(channel, actor()));
      if (globals().json) printJson(rec);
      else
        console.log(
          rec.state === 'sent'
            ? `sent a test alert through ${channel} (alert ${rec.id})`
            : `the test alert through ${channel} failed: ${deliveries(rec)}`,
        );
      if (rec.state !== 'sent') process.exitCode = EXIT.internal;
    });
}

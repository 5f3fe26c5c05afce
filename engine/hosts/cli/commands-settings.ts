// ax settings: each setting's effective value and where it comes from (a flag, the environment,
// DATA_DIR/settings.json, or the default); `set` and `unset` change the file (mode 0600).
import type { Command } from 'commander';
import { AxError } from '../../api/errors.ts';
import { readEngineLock, resolveDataDir } from '../node/data-dir.ts';
import { readTeamUi } from './commands-serve.ts';
import { parseAlertSettings } from '../../core/alerts/alert-settings.ts';
import { ALERTS_KEY, effectiveSettings, readRawSetting, SETTING_KEYS, settingsFile, shownValue, writeAlertSettings, writeSetting } from '../node/settings.ts';
import type { GlobalOptions } from './connect.ts';
import { printJson, table } from './format.ts';

type Globals = () => GlobalOptions & { json?: boolean };

const SOURCE: Record<string, string> = { flag: 'flag', env: 'environment', file: 'settings file', default: 'default' };

function show(dir: string, flags: GlobalOptions, json: boolean): void {
  const settings = effectiveSettings(dir, { mode: flags.mode, mysql: flags.mysql, redis: flags.redis, 'redis-prefix': flags.redisPrefix });
  const shown = settings.map((s) => ({ ...s, value: s.value === undefined ? undefined : shownValue(s.key, s.value) }));
  const alerts = alertsLine(dir);
  if (json) return printJson({ dataDir: dir, settingsFile: settingsFile(dir), settings: shown, ...(alerts && { alerts }) });
  console.log(
    table(
      ['KEY', 'VALUE', 'FROM'],
      shown.map((s) => [s.key, s.value ?? '(not set)', s.source ? `${SOURCE[s.source]}${s.from && s.source !== 'file' ? ` ${s.from}` : ''}` : '-']),
    ),
  );
  if (alerts) console.log(`alerts        ${alerts}`);
  console.log(`\nflags win over the environment, the environment over ${settingsFile(dir)}; "ax settings set KEY VALUE" writes that file`);
}

/** The file's alerts object in one line (channel names and routes, never a URL or a password), or undefined when it has none. */
function alertsLine(dir: string): string | undefined {
  const raw = readRawSetting(dir, ALERTS_KEY);
  if (raw === undefined) return undefined;
  const a = parseAlertSettings(raw, settingsFile(dir));
  const names = Object.keys(a.channels);
  const route = (r: { channels: string[]; rules: string[] }) => `${r.rules.join(',')} → ${r.channels.join(',') || 'no channel'}`;
  return `${names.length} channel(s)${names.length ? ` (${names.join(', ')})` : ''}; workflows: ${route(a.workflows)}; engine: ${route(a.engine)} (settings file; "ax alerts channels")`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A running `ax serve` on this data dir read the settings file when it started and does not see
 * a change to it: said after the change, so that nobody waits for alerts that will not come.
 */
function restartNote(dir: string): void {
  const lock = readEngineLock(dir);
  const pid = lock?.command === 'ax serve' ? lock.pid : readTeamUi(dir)?.pid;
  if (pid === undefined) return;
  process.stderr.write(`note: ax serve (pid ${pid}) runs on this data dir and read its settings when it started: restart ax serve to apply this change\n`);
}

/** One value on stdin: the newline `echo` adds is not part of it. */
async function readLine(key: string): Promise<string> {
  const value = (await readStdin()).replace(/\r?\n$/, '');
  if (value === '') throw new AxError('validation', `nothing on stdin for ${key}: pipe the value in, e.g. printf %s "$URL" | ax settings set ${key} -`);
  return value;
}

export function settingsCommand(program: Command, globals: Globals, flags: () => GlobalOptions): void {
  const settings = program
    .command('settings')
    .description("show each setting's value and where it comes from (a flag, an AX_* variable, this data dir's settings file, or the default)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax settings set mode team\n  $ printf %s "$URL" | ax settings set mysql -   # mysql://ax:PASSWORD@db:3306/ax, kept out of ps\n  $ ax settings set redis redis://cache:6379\n  $ ax settings set alerts - < alerts.json   # the alert channels and routes (README "Alerts")\n  $ ax settings',
    )
    .action(() => show(resolveDataDir(globals().dataDir), flags(), globals().json === true));
  settings
    .command('set')
    .argument('<key>', `${SETTING_KEYS.join(' | ')} | alerts`)
    .argument('<value>', 'the value (for alerts a JSON object), or - to read it from stdin: keeps a password out of "ps" and the shell history')
    .description("store a setting in this data dir's settings file")
    .action(async (key: string, value: string) => {
      const dir = resolveDataDir(globals().dataDir);
      if (key === ALERTS_KEY) writeAlertSettings(dir, value === '-' ? await readStdin() : value);
      else writeSetting(dir, key, value === '-' ? await readLine(key) : value);
      show(dir, flags(), globals().json === true);
      restartNote(dir);
    });
  settings
    .command('unset')
    .argument('<key>', `${SETTING_KEYS.join(' | ')} | alerts`)
    .description("remove a setting from this data dir's settings file")
    .action((key: string) => {
      const dir = resolveDataDir(globals().dataDir);
      if (key === ALERTS_KEY) writeAlertSettings(dir, undefined);
      else writeSetting(dir, key, undefined);
      show(dir, flags(), globals().json === true);
      restartNote(dir);
    });
}

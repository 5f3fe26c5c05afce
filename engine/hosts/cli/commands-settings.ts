// ax settings: each setting's effective value and where it comes from (a flag, the environment,
// DATA_DIR/settings.json, or the default); `set` and `unset` change the file (mode 0600).
import type { Command } from 'commander';
import { sqliteDriver } from '../../adapters/sql/sqlite-driver.ts';
import { AxError } from '../../api/errors.ts';
import { readEngineLock } from '../node/data-dir.ts';
import { parseAlertSettings } from '../../core/alerts/alert-settings.ts';
import {
  ALERTS_KEY,
  effectiveSettings,
  readRawSetting,
  SETTING_KEYS,
  settingsFile,
  shownValue,
  writeAlertSettings,
  writeSetting,
} from '../node/settings.ts';
import { readTeamUi } from './commands-serve.ts';
import { cliDataDir, type GlobalOptions, taskEnvFlags } from './connect.ts';
import { printJson, table } from './format.ts';

type Globals = () => GlobalOptions & { json?: boolean };

const SOURCE: Record<string, string> = { flag: 'flag', env: 'environment', file: 'settings file', default: 'default' };

function show(dir: string, flags: GlobalOptions, json: boolean): void {
  const settings = effectiveSettings(dir, {
    mode: flags.mode,
    mysql: flags.mysql,
    postgres: flags.postgres,
    redis: flags.redis,
    'redis-prefix': flags.redisPrefix,
    ...taskEnvFlags(flags),
  });
  const shown = settings.map((s) => ({ ...s, value: s.value === undefined ? undefined : shownValue(s.key, s.value) }));
  const alerts = alertsLine(dir);
  const sqlite = sqliteLine();
  if (json)
    return printJson({
      dataDir: dir,
      settingsFile: settingsFile(dir),
      settings: shown,
      ...(alerts && { alerts }),
      sqliteDriver: sqlite,
    });
  // The SSO keys only once single sign-on is being configured (any of them given, not a default):
  // a solo user has no use for eight unset lines.
  const sso = shown.some((s) => s.key.startsWith('oidc-') && s.source !== undefined && s.source !== 'default');
  console.log(
    table(
      ['KEY', 'VALUE', 'FROM'],
      shown
        .filter((s) => sso || !s.key.startsWith('oidc-'))
        .map((s) => [
          s.key,
          s.value ?? '(not set)',
          s.source ? `${SOURCE[s.source]}${s.from && s.source !== 'file' ? ` ${s.from}` : ''}` : '-',
        ]),
    ),
  );
  if (alerts) console.log(`alerts        ${alerts}`);
  console.log(`sqlite        ${sqlite}`);
  console.log(
    `\nflags win over the environment, the environment over ${settingsFile(dir)}; "ax settings set KEY VALUE" writes that file`,
  );
}

/** The file's alerts object in one line (channel names and routes, never a URL or a password), or undefined when it has none. */
function alertsLine(dir: string): string | undefined {
  const raw = readRawSetting(dir, ALERTS_KEY);
  if (raw === undefined) return undefined;
  const a = parseAlertSettings(raw, settingsFile(dir));
  const names = Object.keys(a.channels);
  const route = (r: { channels: string[]; rules: string[] }) =>
    `${r.rules.join(',')} → ${r.channels.join(',') || 'no channel'}`;
  return `${names.length} channel(s)${names.length ? ` (${names.join(', ')})` : ''}; workflows: ${route(a.workflows)}; engine: ${route(a.engine)} (settings file; "ax alerts channels")`;
}

/** The SQLite driver this Node uses (the solo store and the data-dir lock), or why none loads. */
function sqliteLine(): string {
  try {
    return sqliteDriver().description;
  } catch (err) {
    return `none loads: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * What a change means for an `ax serve` running on this data dir: every setting but alerts is
 * read at start; alerts are read again on SIGHUP when it runs as a service (README "Signals").
 */
function applyNote(dir: string, key: string): string | undefined {
  // Only a server: an `ax run` holding the data dir ends with its run and reads them again next time.
  const lock = readEngineLock(dir);
  const pid = lock?.command === 'ax serve' ? lock.pid : readTeamUi(dir)?.pid;
  if (!pid) return undefined;
  if (key === ALERTS_KEY) {
    return `ax serve (pid ${pid}) runs on this data dir and still has the previous alerts: restart it to apply them, or, when it runs as a service (no terminal), reload them with "kill -HUP ${pid}"`;
  }
  return `ax serve (pid ${pid}) runs on this data dir and read "${key}" at its start: restart ax serve to apply`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One value on stdin: the newline `echo` adds is not part of it. */
async function readLine(key: string): Promise<string> {
  const value = (await readStdin()).replace(/\r?\n$/, '');
  if (value === '')
    throw new AxError(
      'validation',
      `nothing on stdin for ${key}: pipe the value in, e.g. printf %s "$URL" | ax settings set ${key} -`,
    );
  return value;
}

export function settingsCommand(program: Command, globals: Globals, flags: () => GlobalOptions): void {
  const settings = program
    .command('settings')
    .description(
      "show each setting's value and where it comes from (a flag, an AX_* variable, this data dir's settings file, or the default)",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ ax settings set mode team\n  $ printf %s "$URL" | ax settings set mysql -   # mysql://ax:PASSWORD@db:3306/ax, kept out of ps\n  $ ax settings set redis redis://cache:6379\n  $ ax settings set alerts - < alerts.json   # the alert channels and routes (README "Alerts")\n  $ ax settings',
    )
    .action(() => show(cliDataDir(globals().dataDir), flags(), globals().json === true));
  settings
    .command('set')
    .argument('<key>', `${SETTING_KEYS.join(' | ')} | alerts`)
    .argument(
      '<value>',
      'the value (for alerts a JSON object), or - to read it from stdin: keeps a password out of "ps" and the shell history',
    )
    .description("store a setting in this data dir's settings file")
    .action(async (key: string, value: string) => {
      const dir = cliDataDir(globals().dataDir);
      if (key === ALERTS_KEY) writeAlertSettings(dir, value === '-' ? await readStdin() : value);
      else writeSetting(dir, key, value === '-' ? await readLine(key) : value);
      show(dir, flags(), globals().json === true);
      const note = applyNote(dir, key);
      if (note) process.stderr.write(`ax: ${note}\n`);
    });
  settings
    .command('unset')
    .argument('<key>', `${SETTING_KEYS.join(' | ')} | alerts`)
    .description("remove a setting from this data dir's settings file")
    .action((key: string) => {
      const dir = cliDataDir(globals().dataDir);
      if (key === ALERTS_KEY) writeAlertSettings(dir, undefined);
      else writeSetting(dir, key, undefined);
      show(dir, flags(), globals().json === true);
      const note = applyNote(dir, key);
      if (note) process.stderr.write(`ax: ${note}\n`);
    });
}

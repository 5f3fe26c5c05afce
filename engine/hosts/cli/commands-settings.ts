// ax settings: this machine's defaults (DATA_DIR/settings.json, mode 0600).
import type { Command } from 'commander';
import { redactRedisUrl } from '../../adapters/redis/redis-coordinator.ts';
import { redact } from '../../adapters/sql/mysql-store.ts';
import { resolveDataDir } from '../node/data-dir.ts';
import { readSettings, type Settings, writeSetting } from '../node/settings.ts';
import type { GlobalOptions } from './connect.ts';
import { printJson } from './format.ts';

type Globals = () => GlobalOptions & { json?: boolean };

function show(settings: Settings, json: boolean): void {
  const shown = { ...settings, mysql: settings.mysql && redact(settings.mysql), redis: settings.redis && redactRedisUrl(settings.redis) };
  if (json) return printJson(shown);
  const entries = Object.entries(shown).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return console.log('no settings: solo mode on this data dir');
  for (const [k, v] of entries) console.log(`${k} = ${v}`);
}

export function settingsCommand(program: Command, globals: Globals): void {
  const settings = program
    .command('settings')
    .description('show this data dir\'s settings (flags and AX_* environment variables override them)')
    .addHelpText('after', '\nExamples:\n  $ ax settings set mode team\n  $ ax settings set mysql mysql://ax:secret@db:3306/ax\n  $ ax settings set redis redis://cache:6379\n  $ ax settings')
    .action(() => show(readSettings(resolveDataDir(globals().dataDir)), globals().json === true));
  settings
    .command('set')
    .argument('<key>', 'mode | mysql | redis | redisPrefix')
    .argument('<value>')
    .description('set a setting')
    .action((key: string, value: string) => show(writeSetting(resolveDataDir(globals().dataDir), key, value), globals().json === true));
  settings
    .command('unset')
    .argument('<key>')
    .description('remove a setting')
    .action((key: string) => show(writeSetting(resolveDataDir(globals().dataDir), key, undefined), globals().json === true));
}

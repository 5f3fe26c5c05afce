// DATA_DIR/settings.json: the defaults a machine's ax commands use (mode, team connections),
// below flags and environment variables. Written with mode 0600: connection strings may hold
// passwords (the desktop app will keep them in the OS keychain instead).
import fs from 'node:fs';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';

export const SETTING_KEYS = ['mode', 'mysql', 'redis', 'redisPrefix'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];
export type Settings = Partial<Record<SettingKey, string>>;

const file = (dir: string) => path.join(dir, 'settings.json');

export function readSettings(dir: string): Settings {
  let text: string;
  try {
    text = fs.readFileSync(file(dir), 'utf8');
  } catch {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AxError('validation', `${file(dir)} is not valid JSON: fix it, or remove it and use "ax settings set"`);
  }
  const out: Settings = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!SETTING_KEYS.includes(key as SettingKey)) throw new AxError('validation', `${file(dir)}: unknown setting "${key}": known ones are ${SETTING_KEYS.join(', ')}`);
    if (typeof value !== 'string') throw new AxError('validation', `${file(dir)}: "${key}" must be a string`);
    out[key as SettingKey] = value;
  }
  return out;
}

export function writeSetting(dir: string, key: string, value: string | undefined): Settings {
  if (!SETTING_KEYS.includes(key as SettingKey)) throw new AxError('validation', `unknown setting "${key}": known ones are ${SETTING_KEYS.join(', ')}`);
  if (key === 'mode' && value !== undefined && value !== 'solo' && value !== 'team') throw new AxError('validation', 'mode must be solo or team');
  const settings = readSettings(dir);
  if (value === undefined) delete settings[key as SettingKey];
  else settings[key as SettingKey] = value;
  fs.writeFileSync(file(dir), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file(dir), 0o600);
  return settings;
}

// DATA_DIR/settings.json: the defaults a machine's ax commands use (mode, team connections),
// below flags and environment variables. Written with mode 0600: connection strings may hold
// passwords (the desktop app will keep them in the OS keychain instead). Read without following
// a link and written whole under a new name (private-file.ts): a planted settings.json link
// never receives a password.
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import { maskUrl } from '../../api/mask-url.ts';
import { parseAlertSettings } from '../../core/alerts/alert-settings.ts';
import { DEFAULT_CONFIG } from '../../core/model/config.ts';
import { formatSize, parseSize } from '../../api/size.ts';
import { checkOidcSetting, OIDC_DEFAULTS, OIDC_KEYS, type OidcKey } from './oidc-settings.ts';
import { readPrivateFile, writePrivateFile } from './private-file.ts';

/** One spelling per key: the flag is --KEY, the environment variable AX_KEY (upper case, _). */
export const SETTING_KEYS = [
  'mode',
  'mysql',
  // the team database when it is PostgreSQL (instead of mysql; team.ts refuses both)
  'postgres',
  'redis',
  'redis-prefix',
  'task-env',
  'run-as',
  'log-limit',
  // single sign-on of a team server (oidc-settings.ts)
  ...OIDC_KEYS,
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];
export type Settings = Partial<Record<SettingKey, string>>;

/** Keys older files may hold, read as their one spelling (rewritten on the next `ax settings set`). */
const OLD_SPELLINGS: Record<string, SettingKey> = { redisPrefix: 'redis-prefix' };

const ENV: Record<SettingKey, string> = {
  mode: 'AX_MODE',
  mysql: 'AX_MYSQL_URL',
  postgres: 'AX_POSTGRES_URL',
  redis: 'AX_REDIS_URL',
  'redis-prefix': 'AX_REDIS_PREFIX',
  // what this node's tasks get of its environment, and whom they run as (task-env.ts)
  'task-env': 'AX_TASK_ENV',
  'run-as': 'AX_RUN_AS',
  // the most output one attempt of a task stores, unless the task has its own log_limit
  'log-limit': 'AX_LOG_LIMIT',
  'oidc-issuer': 'AX_OIDC_ISSUER',
  'oidc-client-id': 'AX_OIDC_CLIENT_ID',
  'oidc-client-secret-file': 'AX_OIDC_CLIENT_SECRET_FILE',
  'oidc-role-map': 'AX_OIDC_ROLE_MAP',
  'oidc-groups-claim': 'AX_OIDC_GROUPS_CLAIM',
  'oidc-username-claim': 'AX_OIDC_USERNAME_CLAIM',
  'oidc-label': 'AX_OIDC_LABEL',
  'oidc-redirect-url': 'AX_OIDC_REDIRECT_URL',
};
const DEFAULTS: Partial<Record<SettingKey, string>> = {
  mode: 'solo',
  'redis-prefix': 'ax:',
  'task-env': 'inherit',
  'log-limit': formatSize(DEFAULT_CONFIG.maxOutputBytes),
  ...OIDC_DEFAULTS,
};

const file = (dir: string) => path.join(dir, 'settings.json');

/** settings.json's object of alert channels and routes (see core/alerts/alert-settings.ts). */
export const ALERTS_KEY = 'alerts';

/** One top-level value of settings.json as written (undefined: no file, or no such key). */
export function readRawSetting(dir: string, key: string): unknown {
  const text = readPrivateFile(file(dir));
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[key] : undefined;
  } catch {
    throw new AxError('validation', `${file(dir)} is not valid JSON: fix it, or remove it and use "ax settings set"`);
  }
}

export function readSettings(dir: string): Settings {
  const text = readPrivateFile(file(dir));
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AxError('validation', `${file(dir)} is not valid JSON: fix it, or remove it and use "ax settings set"`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AxError(
      'validation',
      `${file(dir)} must hold a JSON object: fix it, or remove it and use "ax settings set"`,
    );
  }
  const out: Settings = {};
  for (const [written, value] of Object.entries(parsed as Record<string, unknown>)) {
    // The alert channels and routes: an object of its own (alert-settings.ts reads it).
    if (written === ALERTS_KEY) continue;
    const key = OLD_SPELLINGS[written] ?? written;
    if (!SETTING_KEYS.includes(key as SettingKey))
      throw new AxError(
        'validation',
        `${file(dir)}: unknown setting "${written}": known ones are ${SETTING_KEYS.join(', ')}`,
      );
    // a size may be written as a number of bytes
    if (key === 'log-limit' && typeof value === 'number') out[key] = String(value);
    else if (typeof value !== 'string') throw new AxError('validation', `${file(dir)}: "${written}" must be a string`);
    else out[key as SettingKey] = value;
  }
  return out;
}

export function writeSetting(dir: string, key: string, value: string | undefined): Settings {
  const known = (OLD_SPELLINGS[key] ?? key) as SettingKey;
  if (key === 'oidc-client-secret')
    throw new AxError(
      'validation',
      'the client secret is never a setting: write it to a private file (umask 077; printf %s "$SECRET" > /etc/ax/oidc-secret) and "ax settings set oidc-client-secret-file /etc/ax/oidc-secret"',
    );
  if (!SETTING_KEYS.includes(known))
    throw new AxError(
      'validation',
      `unknown setting "${key}": known ones are ${SETTING_KEYS.join(', ')}, ${ALERTS_KEY}`,
    );
  if (known === 'mode' && value !== undefined && value !== 'solo' && value !== 'team')
    throw new AxError('validation', `mode must be solo or team, not "${value}"`);
  if (known === 'task-env' && value !== undefined && value !== 'inherit' && value !== 'clean')
    throw new AxError('validation', `task-env must be inherit or clean, not "${value}"`);
  if (known === 'log-limit' && value !== undefined) {
    const size = parseSize(value);
    if ('error' in size) throw new AxError('validation', `log-limit: ${size.error}`);
  }
  if (value !== undefined && (OIDC_KEYS as readonly string[]).includes(known))
    checkOidcSetting(known as OidcKey, value);
  const settings = readSettings(dir);
  if (value === undefined) delete settings[known];
  else settings[known] = value;
  const alerts = readRawSetting(dir, ALERTS_KEY);
  writePrivateFile(
    file(dir),
    `${JSON.stringify({ ...settings, ...(alerts !== undefined && { [ALERTS_KEY]: alerts }) }, null, 2)}\n`,
  );
  return settings;
}

/**
 * Stores (or, with undefined, removes) the alerts object from its JSON text, checked first: a
 * mistake is refused with the field and the fix, and the file keeps what it had.
 */
export function writeAlertSettings(dir: string, text: string | undefined): void {
  let value: unknown;
  if (text !== undefined) {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new AxError(
        'validation',
        `the alerts setting must be a JSON object (${err instanceof Error ? err.message : String(err)}): see README "Alerts" for its shape`,
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new AxError('validation', 'the alerts setting must be a JSON object: see README "Alerts" for its shape');
    parseAlertSettings(value, 'ax settings set alerts');
  }
  // The other settings as they are (checked: a broken file is named, not overwritten), and the alerts.
  const stored: Record<string, unknown> = { ...readSettings(dir) };
  if (value === undefined) delete stored[ALERTS_KEY];
  else stored[ALERTS_KEY] = value;
  writePrivateFile(file(dir), `${JSON.stringify(stored, null, 2)}\n`);
}

/** Where a setting's effective value comes from, strongest first. */
export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface EffectiveSetting {
  key: SettingKey;
  value: string | undefined;
  source: SettingSource | undefined;
  /** the flag, variable or file that gives it, e.g. "--mysql", "AX_MYSQL_URL", ".../settings.json" */
  from: string | undefined;
}

/** Each key's value as a command uses it: a flag, else the environment, else settings.json, else the default. */
export function effectiveSettings(
  dir: string,
  flags: Settings,
  env: NodeJS.ProcessEnv = process.env,
): EffectiveSetting[] {
  const stored = readSettings(dir);
  return SETTING_KEYS.map((key): EffectiveSetting => {
    if (flags[key] !== undefined) return { key, value: flags[key], source: 'flag', from: `--${key}` };
    const fromEnv = env[ENV[key]];
    if (fromEnv !== undefined && fromEnv !== '') return { key, value: fromEnv, source: 'env', from: ENV[key] };
    if (stored[key] !== undefined) return { key, value: stored[key], source: 'file', from: file(dir) };
    if (DEFAULTS[key] !== undefined) return { key, value: DEFAULTS[key], source: 'default', from: undefined };
    return { key, value: undefined, source: undefined, from: undefined };
  });
}

/**
 * This node's log limit in bytes: AX_LOG_LIMIT, else settings.json, else 50 MB. A task's own
 * log_limit wins over it; AX_ENGINE_CONFIG's maxOutputBytes, the tuning knob, over both sources here.
 */
export function nodeLogLimit(dir: string, env: NodeJS.ProcessEnv = process.env): number {
  const setting = effectiveSettings(dir, {}, env).find((s) => s.key === 'log-limit');
  const size = parseSize(setting?.value ?? '');
  if ('error' in size)
    throw new AxError(
      'validation',
      `log-limit (from ${setting?.from ?? 'the default'}): ${size.error}; fix it with "ax settings set log-limit 50MB"`,
    );
  return size.bytes;
}

/** How to give a setting that is missing: the flag, the variable, and the command that stores it. */
export function howToSet(key: SettingKey, example: string): string {
  return `--${key} ${example}, ${ENV[key]}=${example}, or "ax settings set ${key} ${example}"`;
}

export { maskUrl };

/** The stored defaults as the settings screen shows them (passwords masked). */
export function shownSettings(dir: string): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [k, v] of Object.entries(readSettings(dir)))
    if (v !== undefined) shown[k] = shownValue(k as SettingKey, v);
  return shown;
}

/** A setting's value fit to show: connection strings with the password masked. */
export function shownValue(key: SettingKey, value: string): string {
  return key === 'mysql' || key === 'postgres' || key === 'redis' ? maskUrl(value) : value;
}

export const settingsFile = file;

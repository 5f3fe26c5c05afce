// The desktop app's secrets, as the engine host receives them: the shell decrypts its team
// connection strings (Electron safeStorage) and hands them over in one environment variable
// (DESKTOP_SECRETS_ENV). Taken out of the environment before anything else runs, so neither the
// tasks (whose base environment is this process's) nor the launchers ever see it.
import { DESKTOP_SECRETS_ENV } from '../../api/host-protocol.ts';
import type { Settings } from '../node/settings.ts';

const KEYS = ['mysql', 'redis'] as const;

/** Removes the variable from `env` and returns its connection strings; a malformed one gives none. */
export function takeDesktopSecrets(env: NodeJS.ProcessEnv = process.env): Settings {
  const text = env[DESKTOP_SECRETS_ENV];
  delete env[DESKTOP_SECRETS_ENV];
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  const out: Settings = {};
  if (typeof parsed !== 'object' || parsed === null) return out;
  for (const key of KEYS) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}

// The desktop app's secrets, as the engine host receives them: the shell decrypts its team
// connection strings and task secrets (Electron safeStorage) and hands them over in one
// environment variable (DESKTOP_SECRETS_ENV). Taken out of the environment before anything else
// runs, so neither the tasks (whose base environment is this process's) nor the launchers ever
// see it. A task secret changed while the host runs arrives in a 'task-secrets' message.
import { DESKTOP_SECRETS_ENV } from '../../api/host-protocol.ts';
import { SECRET_NAME } from '../../api/secrets.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import type { Settings } from '../node/settings.ts';

const KEYS = ['mysql', 'redis'] as const;

export interface DesktopHostSecrets {
  settings: Settings;
  /** task secrets by name */
  tasks: Record<string, string>;
}

/** Task secret values by name, from untrusted JSON: anything else is left out. */
export function taskSecretValues(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [name, v] of Object.entries(value as Record<string, unknown>))
    if (SECRET_NAME.test(name) && typeof v === 'string' && v !== '') out[name] = v;
  return out;
}

/** Removes the variable from `env` and returns what it held; a malformed one gives nothing. */
export function takeDesktopHostSecrets(env: NodeJS.ProcessEnv = process.env): DesktopHostSecrets {
  const text = env[DESKTOP_SECRETS_ENV];
  delete env[DESKTOP_SECRETS_ENV];
  const out: DesktopHostSecrets = { settings: {}, tasks: {} };
  if (!text) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return out;
  }
  if (typeof parsed !== 'object' || parsed === null) return out;
  for (const key of KEYS) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') out.settings[key] = value;
  }
  out.tasks = taskSecretValues((parsed as { tasks?: unknown }).tasks);
  return out;
}

/** The desktop app's task secrets in the host, replaced whole when the shell says they changed. */
export class DesktopTaskSecrets implements SecretSource {
  constructor(private values: Record<string, string>) {}

  replace(values: Record<string, string>): void {
    this.values = values;
  }

  get(name: string): string | undefined {
    return Object.hasOwn(this.values, name) ? this.values[name] : undefined;
  }

  howToSet(name: string): string {
    return `set it in the desktop app's Settings → Task secrets (or run "ax secrets set ${name}" with this data dir)`;
  }
}

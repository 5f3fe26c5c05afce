// The desktop app's secrets, as the engine host receives them: the shell decrypts its team
// connection (a server and a worker token, or the database's connection strings) and task secrets (Electron safeStorage) and hands them over in one
// environment variable (DESKTOP_SECRETS_ENV). Taken out of the environment before anything else
// runs, so neither the tasks (whose base environment is this process's) nor the launchers ever
// see it. A task secret changed while the host runs arrives in a 'task-secrets' message, a changed
// team connection in a 'team-secrets' one.
import { DESKTOP_SECRET_KEYS, type TeamConnection } from '../../api/desktop-bridge.ts';
import { DESKTOP_SECRETS_ENV } from '../../api/host-protocol.ts';
import { SECRET_NAME } from '../../api/secrets.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import type { Settings } from '../node/settings.ts';

const KEYS = ['mysql', 'redis'] as const;

export interface DesktopHostSecrets {
  /** the database connection strings, as settings (the solo engine's `ax migrate --to team`) */
  settings: Settings;
  /** everything a join may use */
  team: TeamConnection;
  /** task secrets by name */
  tasks: Record<string, string>;
}

/** The team connection's keys from untrusted JSON: non-empty strings of known keys only. */
export function teamConnection(value: unknown): TeamConnection {
  const out: TeamConnection = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const key of DESKTOP_SECRET_KEYS) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === 'string' && v !== '') out[key] = v;
  }
  return out;
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
  const out: DesktopHostSecrets = { settings: {}, team: {}, tasks: {} };
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
  out.team = teamConnection(parsed);
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

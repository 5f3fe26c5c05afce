// Secrets a workflow refers to by name: `env: { API_TOKEN: { secret: api-token } }`. The workflow
// (and so the database, `ax export`, the designer) holds only the name; the value lives on the
// node that runs the task (`ax secrets set NAME`, or the desktop app's Settings) and reaches only
// the task's environment, masked in its log.
import { type Role, roleAtLeast } from './access.ts';
import type { Actor } from './actor.ts';

/** A task env value: a literal, or a reference to a secret kept on the worker. */
export type EnvValue = string | SecretRef;
export interface SecretRef {
  secret: string;
}

/** The same syntax as workflow and task names, so a name never needs quoting anywhere. */
export const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
/** Shorter values are not masked in logs: "1", "yes" or "true" would blank out ordinary output. */
export const MASK_MIN_LENGTH = 4;

export const isSecretRef = (v: unknown): v is SecretRef =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as SecretRef).secret === 'string';

export function secretNameProblem(name: string): string | undefined {
  if (SECRET_NAME.test(name)) return undefined;
  return `"${name}" is not a valid secret name: use letters, digits, "_", "." or "-", starting with a letter or digit (at most 100 characters)`;
}

/**
 * Why a secret value cannot be kept, or undefined. A NUL byte cannot be in a process's
 * environment: every task using it would fail to start (and Node's spawn error quotes the value).
 */
export function secretValueProblem(name: string, value: string): string | undefined {
  const nul = value.indexOf('\0');
  if (nul === -1) return undefined;
  return `the value of secret "${name}" holds a NUL byte (at character ${nul + 1}), which no process environment can carry, so a task using it could not start: set it again without it (binary data: base64-encode it first)`;
}

/** The secret names a task's env refers to, each once. */
export function secretNames(env: Record<string, EnvValue>): string[] {
  return [...new Set(Object.values(env).flatMap((v) => (isSecretRef(v) ? [v.secret] : [])))];
}

/** A secret as listed: its name and when it was set, never its value. */
export interface SecretInfo {
  name: string;
  /** ms since epoch; undefined when not known */
  setAt?: number;
}

/**
 * A team secret as listed (team mode, `listTeamSecrets`): who set it and when, and the group
 * whose workflows may use it. Never its value: no API method returns one.
 */
export interface TeamSecretInfo {
  name: string;
  /** the owner group: only its workflows may use it, only its editors (and admins) change it; none: any workflow */
  group?: string;
  setBy: string;
  /** ms since epoch */
  setAt: number;
}

/** What `setTeamSecret` takes: the value is encrypted by the server and never given back. */
export interface TeamSecretInput {
  name: string;
  group?: string;
  value: string;
}

/** Team secrets over the API (team mode; solo refuses them, saying so). */
export interface TeamSecretsApi {
  /** names, groups, who set them and when: never a value */
  listTeamSecrets(): Promise<TeamSecretInfo[]>;
  /** creates or replaces a team secret (encrypted at rest); audited without its value */
  setTeamSecret(secret: TeamSecretInput, actor: Actor): Promise<TeamSecretInfo>;
  /** a not_found error when there is no such secret */
  removeTeamSecret(name: string, actor: Actor): Promise<void>;
}

/**
 * Whether a person may set or remove a team secret of `group` (none: a secret of no group):
 * admins always, editors in that group (any editor for one of no group). For the UI's buttons;
 * the engine checks the same (core/secrets/team-secret-rules.ts), with the secret's current group.
 */
export function mayChangeTeamSecret(person: { role: Role; groups: string[] }, group?: string | null): boolean {
  if (person.role === 'admin') return true;
  return roleAtLeast(person.role, 'editor') && (!group || person.groups.includes(group));
}

/** The longest team secret value: one environment string must stay well under Linux's 128 KiB. */
export const TEAM_SECRET_MAX_BYTES = 64 * 1024;

/**
 * The team secrets of one task, as the worker that runs it gets them at its start: the values
 * of the names it refers to that it may use, and for each other name why not (no such secret, a
 * secret of another group, a node that cannot decrypt). A token-only worker receives this with
 * its dispatch (Engine.resolveTaskSecrets on the server), a database worker builds it itself.
 */
export interface TaskSecrets {
  values: Record<string, string>;
  problems: Record<string, string>;
}

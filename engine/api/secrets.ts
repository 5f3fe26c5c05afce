// Secrets a workflow refers to by name: `env: { API_TOKEN: { secret: api-token } }`. The workflow
// (and so the database, `ax export`, the designer) holds only the name; the value lives on the
// node that runs the task (`ax secrets set NAME`, or the desktop app's Settings) and reaches only
// the task's environment, masked in its log.

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

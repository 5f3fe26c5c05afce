// This node's task secrets for `ax` and the engine it runs: DATA_DIR/task-secrets.json, mode 0600
// in a 0700 data dir. The values are NOT encrypted: without an OS keychain a key kept beside the
// file would protect nothing, so the file's permissions (this OS user only) are the protection,
// as for settings.json and the API token. The desktop app keeps its secrets with safeStorage
// instead (electron/secret-store.ts) and hands them to its engine host (host-secrets.ts).
//
// Read on every task start, so `ax secrets set` on a running worker applies to its next task.
import fs from 'node:fs';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import { appendPrivateFile, readPrivateFile, writePrivateFile } from './private-file.ts';
import { type SecretInfo, secretNameProblem, secretValueProblem } from '../../api/secrets.ts';
import type { SecretSource } from '../../ports/secrets.ts';

interface Stored {
  value: string;
  setAt: number;
}

export const secretsFile = (dir: string) => path.join(dir, 'task-secrets.json');
/** One JSON line per change (name, action, actor, time), never a value. */
export const secretsAuditFile = (dir: string) => path.join(dir, 'task-secrets.audit.log');

export class SecretsFile implements SecretSource {
  readonly file: string;

  constructor(private readonly dir: string) {
    this.file = secretsFile(dir);
  }

  get(name: string): string | undefined {
    return this.read()[name]?.value;
  }

  howToSet(name: string): string {
    return `run "ax secrets set ${name}" on this worker (data dir ${this.dir})`;
  }

  list(): SecretInfo[] {
    return Object.entries(this.read())
      .map(([name, s]) => ({ name, setAt: s.setAt }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  set(name: string, value: string, actor: string, now = Date.now()): void {
    const problem = secretNameProblem(name);
    if (problem) throw new AxError('validation', problem);
    if (value === '')
      throw new AxError(
        'validation',
        `the value of secret "${name}" is empty: give it on stdin, e.g. printf %s "$TOKEN" | ax secrets set ${name}`,
      );
    const nul = secretValueProblem(name, value);
    if (nul) throw new AxError('validation', `${nul}; nothing was stored`);
    const all = this.read();
    const existed = name in all;
    all[name] = { value, setAt: now };
    this.write(all);
    this.audit({ at: now, actor, action: existed ? 'secret.update' : 'secret.set', name });
  }

  /** false when there was no such secret */
  remove(name: string, actor: string, now = Date.now()): boolean {
    const all = this.read();
    if (!(name in all)) return false;
    delete all[name];
    this.write(all);
    this.audit({ at: now, actor, action: 'secret.remove', name });
    return true;
  }

  private read(): Record<string, Stored> {
    let parsed: unknown;
    try {
      // A link, another user's file or one open to others is refused with its fix (private-file.ts).
      const text = readPrivateFile(this.file);
      if (text === undefined) return {};
      parsed = JSON.parse(text);
    } catch (err) {
      if (err instanceof AxError) throw err;
      throw new AxError(
        'storage',
        `cannot read ${this.file} (${(err as Error).message}): fix or remove it, then set the secrets again`,
      );
    }
    const out: Record<string, Stored> = {};
    const secrets = (parsed as { secrets?: unknown })?.secrets;
    if (typeof secrets !== 'object' || secrets === null) return out;
    for (const [name, s] of Object.entries(secrets as Record<string, unknown>)) {
      const { value, setAt } = (s ?? {}) as Partial<Stored>;
      if (typeof value === 'string') out[name] = { value, setAt: typeof setAt === 'number' ? setAt : 0 };
    }
    return out;
  }

  private write(all: Record<string, Stored>): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // Written whole under another name (created 0600), then renamed: a reader never sees half a file.
    writePrivateFile(this.file, `${JSON.stringify({ version: 1, secrets: all }, null, 2)}\n`);
  }

  private audit(entry: { at: number; actor: string; action: string; name: string }): void {
    appendPrivateFile(
      secretsAuditFile(this.dir),
      `${JSON.stringify({ ...entry, at: new Date(entry.at).toISOString() })}\n`,
    );
  }
}

/** Secrets from several places, the first that has a name winning (the desktop app's, then the data dir's). */
export function layeredSecrets(first: SecretSource, ...rest: SecretSource[]): SecretSource {
  const all = [first, ...rest];
  return {
    get: (name) => {
      for (const s of all) {
        const v = s.get(name);
        if (v !== undefined) return v;
      }
      return undefined;
    },
    howToSet: (name) => first.howToSet(name),
  };
}

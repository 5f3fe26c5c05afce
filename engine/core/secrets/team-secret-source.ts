// A starting task's secrets in team mode: this node's own first (its data dir's file, the desktop
// app's), then the team's it was given (TaskSecrets: values it may use, and why not for others).
import { AxError } from '../../api/errors.ts';
import { type EnvValue, secretNames, type TaskSecrets } from '../../api/secrets.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import type { TaskSecretsRequest, TeamSecretResolver } from '../../ports/team-secrets.ts';

/** own keys only: a secret may be called "constructor" */
const own = (record: Record<string, string>, name: string) => (Object.hasOwn(record, name) ? record[name] : undefined);

export function withTeamSecrets(local: SecretSource | undefined, team: TaskSecrets): SecretSource {
  return {
    get: (name) => local?.get(name) ?? own(team.values, name),
    howToSet: (name) =>
      `${local?.howToSet(name) ?? `run "ax secrets set ${name}" on it`}, or set it for the whole team with "ax secrets set ${name} --team"`,
    unavailable: (name) => own(team.problems, name) ?? local?.unavailable?.(name),
  };
}

/**
 * What a starting task's secrets come from: this node's own; in team mode (a resolver) also the
 * team's, asked for the names this node lacks. The database (or the server) away is waited for
 * like any read of the start (`persist`); a refusal becomes the reason of each name.
 */
export async function startingTaskSecrets(
  local: SecretSource | undefined,
  resolver: TeamSecretResolver | undefined,
  task: Omit<TaskSecretsRequest, 'names'> & { env: Record<string, EnvValue> },
  persist: <T>(what: string, read: () => Promise<T>) => Promise<T>,
): Promise<SecretSource | undefined> {
  if (!resolver) return local;
  const names = secretNames(task.env).filter((name) => {
    try {
      return local?.get(name) === undefined;
    } catch {
      return false; // an unreadable secrets file: the launch fails the task saying so
    }
  });
  if (names.length === 0) return local;
  const { env: _env, ...request } = task;
  const team = await persist(`read the team secrets of instance ${task.instanceId}`, () =>
    resolver.resolve({ ...request, names }).catch((err: unknown): TaskSecrets => {
      if (!(err instanceof AxError) || err.code === 'unavailable' || err.code === 'internal') throw err;
      const why = `the team secrets could not be read: ${err.message}`;
      return { values: {}, problems: Object.fromEntries(names.map((name) => [name, why])) };
    }),
  );
  return withTeamSecrets(local, team);
}

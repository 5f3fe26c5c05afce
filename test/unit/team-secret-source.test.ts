// A starting task's secrets in team mode: the node's own first, the team's asked only for the
// names the node lacks; a refusal from the resolver (a token-only worker's server saying no)
// becomes the reason of each name, while the database or server being away is waited for.
import { describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import type { SecretSource } from '../../engine/ports/secrets.ts';
import type { TaskSecretsRequest, TeamSecretResolver } from '../../engine/ports/team-secrets.ts';
import { startingTaskSecrets } from '../../engine/core/secrets/team-secret-source.ts';

const local: SecretSource = {
  get: (name) => (name === 'mine' ? 'node-value' : undefined),
  howToSet: (name) => `run "ax secrets set ${name}" on this worker`,
};
const task = {
  instanceId: 7,
  workflow: 'etl',
  workflowId: 3,
  env: { A: { secret: 'mine' }, B: { secret: 'team-one' }, C: { secret: 'constructor' }, D: 'plain' },
};
const once = <T>(_what: string, read: () => Promise<T>) => read();

describe('startingTaskSecrets', () => {
  it("asks the team only for what the node lacks; the node's own wins", async () => {
    const asked: TaskSecretsRequest[] = [];
    const resolver: TeamSecretResolver = {
      resolve: async (request) => {
        asked.push(request);
        return { values: { 'team-one': 'team-value', mine: 'not-this' }, problems: {} };
      },
    };
    const source = (await startingTaskSecrets(local, resolver, task, once)) as SecretSource;
    expect(asked).toEqual([{ instanceId: 7, workflow: 'etl', workflowId: 3, names: ['team-one', 'constructor'] }]);
    expect(source.get('mine')).toBe('node-value');
    expect(source.get('team-one')).toBe('team-value');
    // a name that is an Object.prototype key is no secret unless set
    expect(source.get('constructor')).toBeUndefined();
    expect(source.unavailable?.('constructor')).toBeUndefined();
    expect(source.howToSet('constructor')).toBe(
      'run "ax secrets set constructor" on this worker, or set it for the whole team with "ax secrets set constructor --team"',
    );
  });

  it('asks nothing when the node has every name, or there is no resolver (solo)', async () => {
    const never: TeamSecretResolver = { resolve: () => Promise.reject(new Error('asked')) };
    const mineOnly = { ...task, env: { A: { secret: 'mine' } } };
    expect(await startingTaskSecrets(local, never, mineOnly, once)).toBe(local);
    expect(await startingTaskSecrets(local, undefined, task, once)).toBe(local);
  });

  it("gives a refusal as each name's reason, and waits out an outage", async () => {
    const refusing: TeamSecretResolver = {
      resolve: () => Promise.reject(new AxError('forbidden', 'instance 7 is not dispatched to w-2')),
    };
    const source = (await startingTaskSecrets(local, refusing, task, once)) as SecretSource;
    expect(source.unavailable?.('team-one')).toBe(
      'the team secrets could not be read: instance 7 is not dispatched to w-2',
    );
    expect(source.get('mine')).toBe('node-value');

    let calls = 0;
    const flaky: TeamSecretResolver = {
      resolve: async () => {
        calls += 1;
        if (calls === 1) throw new Error('connect ECONNREFUSED');
        return { values: { 'team-one': 'later' }, problems: {} };
      },
    };
    const retry = async <T>(_what: string, read: () => Promise<T>) => read().catch(() => read());
    expect((await startingTaskSecrets(local, flaky, task, retry))?.get('team-one')).toBe('later');
    expect(calls).toBe(2);
  });
});

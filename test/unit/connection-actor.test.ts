// What an authenticated connection makes of a client's actor: the identity, with the client's own
// words as a note only when they say something else; and the actor parameter's wire shape.
import { describe, expect, it } from 'vitest';
import { checkParams } from '../../engine/api/schemas.ts';
import { principalActor, recordedActor, withConnectionActor } from '../../engine/server/connection-actor.ts';

const ME = 'alice@box (API token)';

describe('recordedActor', () => {
  it('keeps a claim that differs as a note beside the identity', () => {
    expect(recordedActor(ME, '  webhook from 10.0.0.7 ')).toEqual({ name: ME, note: 'webhook from 10.0.0.7' });
  });

  it('gives no note for the identity itself, one of its other names, or nothing said', () => {
    expect(recordedActor(ME, ME)).toBe(ME);
    expect(recordedActor(ME, 'alice@box', ['alice@box'])).toBe(ME);
    expect(recordedActor(ME, '   ')).toBe(ME);
    expect(recordedActor(ME, undefined)).toBe(ME);
  });

  it('a claimed {name, note}: the name is a claim too, unless it is the identity', () => {
    expect(recordedActor(ME, { name: 'mallory', note: 'deploy' })).toEqual({ name: ME, note: 'mallory; deploy' });
    expect(recordedActor(ME, { name: 'alice@box', note: 'deploy' }, ['alice@box'])).toEqual({
      name: ME,
      note: 'deploy',
    });
  });

  it('cuts a long note to 200 characters', () => {
    expect(recordedActor(ME, 'x'.repeat(300))).toEqual({ name: ME, note: 'x'.repeat(200) });
  });
});

describe('withConnectionActor', () => {
  it('replaces a positional actor and one inside the options, and leaves other methods alone', () => {
    expect(withConnectionActor('setEnabled', ['etl', false, 'ci bot'], { name: ME })).toEqual([
      'etl',
      false,
      { name: ME, note: 'ci bot' },
    ]);
    expect(withConnectionActor('runWorkflow', ['etl', { actor: ME, task: 'a' }], { name: ME })).toEqual([
      'etl',
      { actor: ME, task: 'a' },
    ]);
    expect(withConnectionActor('listAudit', [10], { name: ME })).toEqual([10]);
  });
});

describe('the actor parameter on the wire', () => {
  it('is a name, or a name with a note', () => {
    expect(checkParams('setEnabled', ['etl', true, 'alice@box']).ok).toBe(true);
    expect(checkParams('setEnabled', ['etl', true, { name: 'alice@box', note: 'from CI' }]).ok).toBe(true);
  });

  it('anything else is refused with what an actor is', () => {
    for (const bad of [7, { name: 'alice', note: 7 }, { note: 'no name' }]) {
      const checked = checkParams('setEnabled', ['etl', true, bad]);
      expect(checked.ok).toBe(false);
      if (!checked.ok)
        expect(checked.problems).toEqual([
          {
            path: 'setEnabled(param 3)',
            message: expect.stringContaining('the actor is a name of 1 to 200 characters'),
          },
        ]);
    }
    // a string or an object of the right kind says what is wrong with it
    expect(checkParams('setEnabled', ['etl', true, ''])).toMatchObject({
      ok: false,
      problems: [{ message: expect.stringContaining('>=1 characters') }],
    });
    expect(checkParams('setEnabled', ['etl', true, { name: 'a', extra: 1 }])).toMatchObject({
      ok: false,
      problems: [{ message: expect.stringContaining('"extra"') }],
    });
  });
});

describe('the actor of a signed-in person (team mode)', () => {
  const principal = {
    user: 'dan',
    role: 'editor' as const,
    groups: ['data-team'],
    via: 'session' as const,
    address: '10.0.0.9',
  };

  it("carries the principal's role, groups and address, which the client cannot forge", () => {
    // The client claims to be an admin in billing: that text is only a note.
    const claimed = { name: 'root', role: 'admin', groups: ['billing'] };
    const [, actor] = withConnectionActor('setTeamSecret', [{ name: 'x', value: 'y' }, claimed], {
      name: 'dan (session)',
      principal,
    });
    expect(actor).toEqual({ name: 'dan', note: 'root', role: 'editor', groups: ['data-team'], address: '10.0.0.9' });
  });

  it('is put in place of the actor of every team secret change', () => {
    expect(withConnectionActor('removeTeamSecret', ['x', 'anyone'], { name: ME })).toEqual([
      'x',
      { name: ME, note: 'anyone' },
    ]);
  });
});

describe('principalActor (team mode)', () => {
  const alice = {
    user: 'alice',
    role: 'editor' as const,
    groups: ['data-team'],
    via: 'session' as const,
    address: '10.0.0.7',
  };

  it('names the user with role, groups and address; the UI session\'s own "ui" is no note, another claim is', () => {
    expect(principalActor(alice, 'ui', ['ui'])).toEqual({
      name: 'alice',
      role: 'editor',
      groups: ['data-team'],
      address: '10.0.0.7',
    });
    expect(principalActor(alice, 'ui')).toMatchObject({ name: 'alice', note: 'ui' });
    expect(principalActor(alice, 'alice@laptop', ['ui'])).toMatchObject({ name: 'alice', note: 'alice@laptop' });
  });
});

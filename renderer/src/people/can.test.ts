// The buttons' decision is the server's table (METHOD_RULES): each role against the methods the
// UI offers, the owner group of a workflow change, a token's scopes; and the forms' rules are the
// accounts service's.
import { describe, expect, it } from 'vitest';
import { ROLES, roleAtLeast, type Principal, type Role } from '../../../engine/api/access.ts';
import { METHOD_RULES } from '../../../engine/api/method-rules.ts';
import { API_METHODS } from '../../../engine/api/engine-api.ts';
import { canCall, hasAccounts, isAdmin, knownNotAdmin } from './can.ts';
import { nameProblem, parseNames, passwordProblem, scopesAllowed } from './user-form.ts';
import { tokenRequest } from './CreateTokenModal.tsx';

const person = (role: Role, groups: string[] = []): Principal => ({ user: 'p', role, groups, via: 'session' });

describe('canCall', () => {
  it('follows METHOD_RULES for every method and role (no owner group involved)', () => {
    for (const method of API_METHODS)
      for (const role of ROLES) {
        const verdict = canCall(person(role), method);
        expect(verdict.ok, `${method} as ${role}`).toBe(roleAtLeast(role, METHOD_RULES[method].role));
        if (!verdict.ok)
          expect(verdict).toEqual({ ok: false, need: 'role', role: METHOD_RULES[method].role, have: role });
      }
  });

  it('the buttons of the brief: a viewer may not run, an operator may run but not edit, an editor may not drain', () => {
    expect(canCall(person('viewer'), 'runWorkflow')).toEqual({
      ok: false,
      need: 'role',
      role: 'operator',
      have: 'viewer',
    });
    expect(canCall(person('operator'), 'runWorkflow').ok).toBe(true);
    expect(canCall(person('operator'), 'cancelRun').ok).toBe(true);
    expect(canCall(person('operator'), 'apply')).toMatchObject({ ok: false, role: 'editor' });
    expect(canCall(person('editor'), 'drainWorker')).toMatchObject({ ok: false, role: 'admin' });
    expect(canCall(person('editor'), 'setSchedulingPaused').ok).toBe(true);
  });

  it("an editor changes only their groups' workflows (and those without an owner); an admin any", () => {
    const dataEditor = person('editor', ['data-team']);
    expect(canCall(dataEditor, 'apply', 'data-team').ok).toBe(true);
    expect(canCall(dataEditor, 'removeWorkflow', 'billing')).toEqual({
      ok: false,
      need: 'group',
      group: 'billing',
      groups: ['data-team'],
    });
    expect(canCall(dataEditor, 'apply', undefined).ok).toBe(true);
    // running is not an owner-group rule
    expect(canCall(dataEditor, 'runWorkflow', 'billing').ok).toBe(true);
    expect(canCall(person('admin'), 'removeWorkflow', 'billing').ok).toBe(true);
  });

  it("a token does only what its scopes say, even an admin's", () => {
    const token: Principal = {
      user: 'ci',
      role: 'admin',
      groups: [],
      via: 'token',
      token: { name: 'ci', scopes: ['read', 'run'] },
    };
    expect(canCall(token, 'runWorkflow').ok).toBe(true);
    expect(canCall(token, 'apply')).toEqual({ ok: false, need: 'scope', scope: 'edit' });
  });

  it('solo (the local admin) and not-yet-known may do everything; the admin pages follow', () => {
    const local: Principal = { user: 'me', role: 'admin', groups: [], via: 'local' };
    for (const method of API_METHODS) expect(canCall(local, method).ok).toBe(true);
    expect(canCall(undefined, 'drainWorker').ok).toBe(true);
    expect([hasAccounts(local), isAdmin(local), knownNotAdmin(local)]).toEqual([false, true, false]);
    expect([hasAccounts(undefined), isAdmin(undefined), knownNotAdmin(undefined)]).toEqual([false, false, false]);
    expect([hasAccounts(person('viewer')), isAdmin(person('viewer')), knownNotAdmin(person('viewer'))]).toEqual([
      true,
      false,
      true,
    ]);
  });
});

describe('the people forms', () => {
  it("offers a token's scopes within its owner's role; worker only when an admin makes it", () => {
    expect(scopesAllowed('viewer', 'viewer')).toEqual(['read']);
    expect(scopesAllowed('operator', 'operator')).toEqual(['read', 'run', 'metrics', 'events']);
    expect(scopesAllowed('operator', 'admin')).toEqual(['read', 'run', 'worker', 'metrics', 'events']);
    expect(scopesAllowed('admin', 'admin')).toEqual(['read', 'run', 'edit', 'admin', 'worker', 'metrics', 'events']);
  });

  it('checks names and passwords as the service does', () => {
    expect(nameProblem('', 'user')).toBe('required');
    expect(nameProblem('bob smith', 'user')).toBe('pattern');
    expect(nameProblem('bob.smith@corp', 'user')).toBeUndefined();
    expect(nameProblem('data@team', 'group')).toBe('pattern');
    expect(nameProblem('laptop:cli', 'token')).toBeUndefined();
    expect(passwordProblem('')).toBe('required');
    expect(passwordProblem('short')).toBe('short');
    expect(passwordProblem('long enough pass')).toBeUndefined();
    expect(parseNames(' data-team, billing,,data-team ')).toEqual({ names: ['data-team', 'billing'], bad: [] });
    expect(parseNames(['ok', 'not ok']).bad).toEqual(['not ok']);
  });

  it('makes the token request: worker fields only with the worker scope, someone else only when named', () => {
    const base = { name: ' laptop ', user: 'alice', scopes: ['read' as const], days: 30 };
    expect(tokenRequest({ ...base, workerId: 'w1', labels: ['gpu'] }, 'alice')).toEqual({
      name: 'laptop',
      scopes: ['read'],
      expiresInMs: 30 * 86_400_000,
    });
    expect(
      tokenRequest(
        { ...base, user: 'bob', scopes: ['worker'], workerId: ' w1 ', labels: ['gpu', 'gpu'], workflow: 'etl' },
        'alice',
      ),
    ).toEqual({
      name: 'laptop',
      user: 'bob',
      scopes: ['worker'],
      workflow: 'etl',
      workerId: 'w1',
      labels: ['gpu'],
      expiresInMs: 30 * 86_400_000,
    });
  });
});

// The authorizer's pure rules over a fixed set of workflows and groups (a test double of the
// engine's reads: what is checked here is the rule, not the store), the narrowing of list answers
// that the team tests cannot easily fill (dashboard, lineage, calendar), and the per-address
// sign-in limiter on a fake clock. The same rules over a real team engine: test/team/api-roles.
import { describe, expect, it } from 'vitest';
import type { Principal, TokenScope } from '../../engine/api/access.ts';
import type { DashboardSummary } from '../../engine/api/engine-api.ts';
import { AxError } from '../../engine/api/errors.ts';
import type { LineageGraph } from '../../engine/api/lineage.ts';
import type { RunCalendar } from '../../engine/api/run-views.ts';
import { Authorizer, scopeAllows } from '../../engine/server/authorize.ts';
import { eventVisible, narrowAnswer } from '../../engine/server/narrow.ts';
import type { OwnerSources } from '../../engine/server/workflow-owners.ts';
import { SignInLimiter } from '../../engine/server/sign-in-limit.ts';

const WORKFLOWS = [
  { id: 1, name: 'billing.daily', owner: 'billing' },
  { id: 2, name: 'data.load', owner: 'data-team' },
  { id: 3, name: 'open.wf' },
];
const sources = {
  listWorkflows: () => Promise.resolve(WORKFLOWS),
  listGroups: () => Promise.resolve([{ name: 'billing', private: true }]),
  getRun: (id: number) => {
    if (id === 404) return Promise.reject(new AxError('not_found', 'no run 404'));
    return Promise.resolve({ run: { workflowName: id === 1 ? 'billing.daily' : 'data.load' } });
  },
  getInstance: (id: number) => Promise.resolve({ runId: id }),
  getBackfill: () => Promise.resolve({ backfill: { workflowName: 'billing.daily' } }),
} as unknown as OwnerSources;

const person = (
  role: Principal['role'],
  groups: string[] = [],
  scopes?: TokenScope[],
  workflow?: string,
): Principal => ({
  user: 'u',
  role,
  groups,
  via: scopes ? 'token' : 'session',
  ...(scopes && { token: { name: 'tk', scopes, ...(workflow && { workflow }) } }),
});

async function refusal(p: Principal, method: Parameters<Authorizer['check']>[1], params: unknown[]) {
  try {
    await new Authorizer(sources).check(p, method, params);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(AxError);
    expect((err as AxError).code).toBe('forbidden');
    return (err as AxError).message;
  }
}

describe('authorize', () => {
  it('scopes: the API ladder allows what is below it; events by run, metrics by admin, worker only by itself', () => {
    expect(scopeAllows(['run'], 'read')).toBe(true);
    expect(scopeAllows(['read'], 'run')).toBe(false);
    expect(scopeAllows(['run'], 'events')).toBe(true);
    expect(scopeAllows(['events'], 'run')).toBe(false);
    expect(scopeAllows(['events'], 'read')).toBe(false);
    expect(scopeAllows(['edit'], 'metrics')).toBe(false);
    expect(scopeAllows(['admin'], 'metrics')).toBe(true);
    expect(scopeAllows(['admin'], 'worker')).toBe(false);
    expect(scopeAllows(['worker'], 'worker')).toBe(true);
  });

  it('runs, instances and backfills are traced to their workflow; a missing one is left to the engine', async () => {
    const outsider = person('operator', ['data-team']);
    expect(await refusal(outsider, 'cancelRun', [1, { actor: 'x' }])).toMatch(/group billing is private/);
    expect(await refusal(outsider, 'readLogs', [1, 0, 10])).toMatch(/workflow billing.daily/);
    expect(await refusal(outsider, 'getBackfill', [7])).toMatch(/group billing is private/);
    expect(await refusal(outsider, 'cancelRun', [2, { actor: 'x' }])).toBeUndefined();
    expect(await refusal(outsider, 'getRun', [404])).toBeUndefined();
  });

  it("another user's tokens and sessions need an admin (and an admin token's admin scope)", async () => {
    expect(await refusal(person('editor'), 'listTokens', [{ user: 'someone' }, 'x'])).toBe(
      'listTokens for another user (someone) needs the admin role (you are editor)',
    );
    expect(await refusal(person('editor'), 'listTokens', [{ user: 'u' }, 'x'])).toBeUndefined();
    expect(await refusal(person('admin'), 'revokeToken', ['someone', 'tk', 'x'])).toBeUndefined();
    expect(await refusal(person('admin', [], ['read']), 'signOutEverywhere', ['someone', 'x'])).toMatch(
      /lacks the admin scope/,
    );
  });

  it('a token limited to a workflow: no changes about no workflow, no token for others, no import', async () => {
    const limited = person('admin', [], ['admin'], 'data.load');
    expect(await refusal(limited, 'runWorkflow', ['data.load', { actor: 'x' }])).toBeUndefined();
    expect(await refusal(limited, 'listAudit', [10])).toMatch(/acts only on workflow data.load/);
    expect(await refusal(limited, 'importCrontab', [{ text: '', lines: [] }, 'x'])).toMatch(/makes new workflows/);
    expect(await refusal(limited, 'createToken', [{ name: 'n', scopes: ['read'] }, 'x'])).toMatch(
      /limited to it too \(--workflow data.load\)/,
    );
    expect(await refusal(limited, 'trigger', ['e', null, 'x'])).toBeUndefined();
  });

  it('importing a crontab into a group needs an editor of that group', async () => {
    expect(
      await refusal(person('editor', ['data-team']), 'importCrontab', [{ text: '', group: 'billing', lines: [] }, 'x']),
    ).toBe('importCrontab into group billing needs an editor of billing (you are in data-team)');
  });
});

describe('narrowing list answers', () => {
  const run = (workflowName: string) => ({ id: 1, workflowName }) as DashboardSummary['running'][number];
  const outsider = person('viewer', ['data-team']);

  it("the dashboard, lineage and calendar lose a private group's workflows", async () => {
    const authz = new Authorizer(sources);
    const dashboard = {
      running: [run('billing.daily'), run('data.load')],
      failuresToday: [{ run: run('billing.daily') }],
      recoveredToday: [],
      nextFires: [{ workflow: 'billing.daily' }, { workflow: 'open.wf' }],
    } as unknown as DashboardSummary;
    const narrowed = (await narrowAnswer(authz, outsider, 'dashboard', dashboard)) as DashboardSummary;
    expect(narrowed.running.map((r) => r.workflowName)).toEqual(['data.load']);
    expect(narrowed.failuresToday).toEqual([]);
    expect(narrowed.nextFires.map((f) => f.workflow)).toEqual(['open.wf']);

    const graph: LineageGraph = {
      focus: ['data.load.t'],
      nodes: [
        { id: 'data.load.t', workflow: 'data.load' },
        { id: 'billing.daily.t', workflow: 'billing.daily' },
      ],
      edges: [{ from: 'billing.daily.t', to: 'data.load.t', across: true }],
    };
    expect(await narrowAnswer(authz, outsider, 'lineage', graph)).toEqual({
      focus: ['data.load.t'],
      nodes: [{ id: 'data.load.t', workflow: 'data.load' }],
      edges: [],
    });
    const calendar = {
      zone: 'UTC',
      from: 0,
      to: 1,
      cells: [
        { day: 'd', workflow: 'billing.daily', success: 1, failed: 0, other: 0, active: 0 },
        { day: 'd', workflow: 'open.wf', success: 1, failed: 0, other: 0, active: 0 },
      ],
    } satisfies RunCalendar;
    expect(
      ((await narrowAnswer(authz, outsider, 'runCalendar', calendar)) as RunCalendar).cells.map((c) => c.workflow),
    ).toEqual(['open.wf']);
    // a member, and an admin, see all of it
    expect(await narrowAnswer(authz, person('viewer', ['billing']), 'lineage', graph)).toEqual(graph);
    expect(await narrowAnswer(authz, person('admin'), 'dashboard', dashboard)).toBe(dashboard);
  });
});

describe('the sign-in limiter', () => {
  it('refuses an address after 10 failures in a minute, doubling the wait on each try, and forgets a quiet one', () => {
    let now = 0;
    const limiter = new SignInLimiter({}, () => now);
    for (let i = 0; i < 9; i++) limiter.failed('10.0.0.1');
    expect(limiter.retryAfter('10.0.0.1')).toBe(0);
    limiter.failed('10.0.0.1');
    expect(limiter.retryAfter('10.0.0.2')).toBe(0);
    expect(limiter.retryAfter('10.0.0.1')).toBe(4_000);
    expect(limiter.retryAfter('10.0.0.1')).toBe(8_000);
    now += 8_000;
    expect(limiter.retryAfter('10.0.0.1')).toBe(0);
    // failures still in the minute: the next one blocks again, longer
    limiter.failed('10.0.0.1');
    expect(limiter.retryAfter('10.0.0.1')).toBe(32_000);
    now += 10 * 60_000;
    limiter.failed('10.0.0.1');
    expect(limiter.retryAfter('10.0.0.1')).toBe(0);
  });
  it('free-text engine alerts (which may name any workflow) reach only those who may see every workflow', async () => {
    const authz = new Authorizer(sources);
    const alert = { type: 'alert' as const, message: 'worker w1: task pay of billing.daily lost its heartbeat', at: 1 };
    // billing is private: its members and admins hear it; a viewer of data-team does not
    expect(await eventVisible(authz, person('viewer', ['billing']), alert)).toBe(true);
    expect(await eventVisible(authz, person('admin'), alert)).toBe(true);
    expect(await eventVisible(authz, person('operator', ['data-team']), alert)).toBe(false);
    // a token limited to one workflow hears only that workflow's events, never free text
    expect(await eventVisible(authz, person('viewer', ['billing'], ['read'], 'billing.daily'), alert)).toBe(false);
    // the recorded alerts (their rows are narrowed by listAlerts) and workers still reach everyone
    const recorded = {
      type: 'alert-recorded' as const,
      alertId: 1,
      rule: 'test' as const,
      state: 'sent' as const,
      at: 1,
    };
    expect(await eventVisible(authz, person('viewer', ['data-team']), recorded)).toBe(true);
  });
});

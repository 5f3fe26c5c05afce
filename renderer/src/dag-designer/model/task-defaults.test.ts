import { describe, expect, it } from 'vitest';
import type { WorkflowSpec } from '../../../../engine/api/types.ts';
import { newTask } from './spec-ops.ts';
import { withTaskDefaults } from './task-defaults.ts';

// a workflow whose tasks hold their effective values, as the engine sends them: `own` overrode
// the workflow's timeout, env key and labels; `plain` inherited everything
function spec(): WorkflowSpec {
  return {
    name: 'etl',
    routing: 'round_robin',
    taskDefaults: { timeoutMs: 60_000, env: { TZ: 'UTC', MODE: 'fast' }, labels: ['linux'] },
    tasks: [
      { ...newTask('plain'), command: 'a', timeoutMs: 60_000, env: { TZ: 'UTC', MODE: 'fast' }, labels: ['linux'] },
      {
        ...newTask('own'),
        command: 'b',
        timeoutMs: 5_000,
        env: { TZ: 'UTC', MODE: 'slow', EXTRA: '1' },
        labels: ['gpu'],
      },
    ],
  };
}

describe('workflow-level settings', () => {
  it('moves the tasks that inherited a setting and leaves the ones that set their own', () => {
    const next = withTaskDefaults(spec(), { timeoutMs: 120_000, labels: ['arm'] });
    expect(next.taskDefaults).toEqual({ timeoutMs: 120_000, env: { TZ: 'UTC', MODE: 'fast' }, labels: ['arm'] });
    expect(next.tasks.map((t) => [t.name, t.timeoutMs, t.labels])).toEqual([
      ['plain', 120_000, ['arm']],
      ['own', 5_000, ['gpu']],
    ]);
  });

  it('merges env key by key: a key the task overrode or added stays, inherited ones follow', () => {
    const next = withTaskDefaults(spec(), { env: { TZ: 'Europe/Berlin', MODE: 'fast', NEW: 'x' } });
    expect(next.tasks[0]!.env).toEqual({ TZ: 'Europe/Berlin', MODE: 'fast', NEW: 'x' });
    expect(next.tasks[1]!.env).toEqual({ TZ: 'Europe/Berlin', MODE: 'slow', NEW: 'x', EXTRA: '1' });
  });

  it('removing a setting takes it from the tasks that inherited it; none left: no taskDefaults', () => {
    let next = withTaskDefaults(spec(), { timeoutMs: undefined });
    expect(next.tasks[0]!.timeoutMs).toBeUndefined();
    expect(next.tasks[1]!.timeoutMs).toBe(5_000);
    next = withTaskDefaults(next, { env: undefined, labels: undefined });
    expect(next.taskDefaults).toBeUndefined();
    expect(next.tasks[0]).toMatchObject({ env: {}, labels: [] });
    expect(next.tasks[1]).toMatchObject({ env: { MODE: 'slow', EXTRA: '1' }, labels: ['gpu'] });
  });

  it('keeps a task object that nothing touched (its node does not redraw)', () => {
    const s = spec();
    const next = withTaskDefaults(s, { retries: 0 });
    expect(next.tasks[0]).toBe(s.tasks[0]);
    expect(next.tasks[1]).toBe(s.tasks[1]);
  });
});

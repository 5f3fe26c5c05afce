import { describe, expect, it } from 'vitest';
import { canRerun, failedTasks, firstFailed, latestAttempts } from './run-state.ts';
import { inst } from './test-instances.ts';

describe('run state', () => {
  it('names the task that failed for good first, not one a retry made good', () => {
    const retried = [
      inst('x', { attempt: 1, state: 'FAILED', finishedAt: 10 }),
      inst('x', { attempt: 2, state: 'SUCCESS', finishedAt: 20 }),
    ];
    expect(firstFailed(retried)).toBeUndefined();
    const late = inst('late', { state: 'FAILED', finishedAt: 500 });
    const early = inst('early', { state: 'TIMEOUT', finishedAt: 100 });
    const running = inst('r', { state: 'RUNNING', startedAt: 50 });
    expect(firstFailed([...retried, late, early, running])?.taskName).toBe('early');
    expect(firstFailed([...retried, running])).toBeUndefined();
  });

  it('re-runs only the latest attempt of a task that failed or was cancelled', () => {
    const a1 = inst('a', { attempt: 1, state: 'FAILED' });
    const a2 = inst('a', { attempt: 2, state: 'TIMEOUT' });
    const b = inst('b', { state: 'UPSTREAM_FAILED' });
    const c = inst('c', { state: 'CANCELLED' });
    const all = [a1, a2, b, c];
    expect(latestAttempts(all).get('a')?.id).toBe(a2.id);
    expect(canRerun(a1, all)).toBe(false);
    expect(canRerun(a2, all)).toBe(true);
    expect(canRerun(b, all)).toBe(false);
    expect(canRerun(c, all)).toBe(true);
  });

  it('counts for "re-run failed" the tasks whose latest attempt failed and those that did not run because of them', () => {
    const all = [
      inst('load', { attempt: 1, state: 'FAILED' }),
      inst('load', { attempt: 2, state: 'TIMEOUT' }),
      inst('extract', { attempt: 1, state: 'FAILED' }),
      inst('extract', { attempt: 2, state: 'SUCCESS' }),
      inst('report', { state: 'UPSTREAM_FAILED' }),
      inst('cleanup', { state: 'SUCCESS' }),
      inst('notice', { state: 'SKIPPED' }),
      inst('audit', { state: 'FAILED' }),
    ];
    expect(failedTasks(all)).toEqual({ failed: ['audit', 'load'], notRun: ['report'] });
    expect(failedTasks([inst('ok', { state: 'SUCCESS' })])).toEqual({ failed: [], notRun: [] });
  });
});

import { describe, expect, it } from 'vitest';
import { canRerun, instanceToOpen, latestAttempts } from './run-state.ts';
import { inst } from './test-instances.ts';

describe('run state', () => {
  it('opens on the first task that failed for good, else the first running, else none', () => {
    const retried = [
      inst('x', { attempt: 1, state: 'FAILED', finishedAt: 10 }),
      inst('x', { attempt: 2, state: 'SUCCESS', finishedAt: 20 }),
    ];
    expect(instanceToOpen(retried)).toBeUndefined();
    const late = inst('late', { state: 'FAILED', finishedAt: 500 });
    const early = inst('early', { state: 'TIMEOUT', finishedAt: 100 });
    const running = inst('r', { state: 'RUNNING', startedAt: 50 });
    expect(instanceToOpen([...retried, late, early, running])?.taskName).toBe('early');
    expect(instanceToOpen([...retried, running])?.taskName).toBe('r');
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
});

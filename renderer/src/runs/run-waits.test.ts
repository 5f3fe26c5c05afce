import { describe, expect, it } from 'vitest';
import type { RunWait } from '../../../engine/api/run-views.ts';
import { ghostsFromWaits, onlyWaiting } from './run-waits.ts';
import { inst } from './test-instances.ts';

const wait = (task: string, upstream: string, extra: Partial<RunWait> = {}): RunWait => {
  const [workflow = '', up = ''] = upstream.split('.');
  return {
    instanceId: 1,
    task,
    upstream,
    upstreamWorkflow: workflow,
    upstreamTask: up,
    logicalTime: 0,
    ...extra,
  };
};

describe('run waits', () => {
  it('makes one ghost per awaited upstream, with every task that waits for it and the first deadline', () => {
    const ghosts = ghostsFromWaits(
      [
        wait('b', 'orders.load', {
          upstreamRunId: 12,
          upstreamRunState: 'RUNNING',
          upstreamState: 'RUNNING',
          deadline: 50,
        }),
        wait('c', 'orders.load', { deadline: 40 }),
        wait('c', 'billing.*'),
      ],
      (w) => `waits for ${w.upstream}`,
    );
    expect(ghosts).toEqual([
      {
        id: 'orders.load',
        workflow: 'orders',
        task: 'load',
        waiting: ['b', 'c'],
        reason: 'waits for orders.load',
        state: 'RUNNING',
        runState: 'RUNNING',
        runId: 12,
        deadline: 40,
      },
      { id: 'billing.*', workflow: 'billing', task: '*', waiting: ['c'], reason: 'waits for billing.*' },
    ]);
  });

  it('says the run only waits when nothing of it is on a worker, naming the wait that gives up first', () => {
    const waits = [wait('b', 'orders.load', { deadline: 90 }), wait('c', 'billing.*', { deadline: 60 })];
    const done = inst('a', { state: 'SUCCESS' });
    expect(onlyWaiting([done, inst('b', {}), inst('c', {})], waits)?.upstream).toBe('billing.*');
    expect(onlyWaiting([done, inst('d', { state: 'RUNNING' })], waits)).toBeUndefined();
    expect(onlyWaiting([done], [])).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { pendingStep, stateHistory } from './state-history.ts';

const base: InstanceRecord = {
  id: 1,
  runId: 1,
  workflowId: 1,
  taskId: 1,
  taskName: 't',
  attempt: 1,
  state: 'WAITING',
  notBefore: 0,
  createdAt: 1000,
  handled: false,
};

describe('stateHistory', () => {
  it('lists the recorded steps with the time each took', () => {
    const done = { ...base, state: 'FAILED' as const, dispatchedAt: 1200, startedAt: 1250, finishedAt: 4250 };
    expect(stateHistory(done)).toEqual([
      { step: 'created', at: 1000 },
      { step: 'dispatched', at: 1200, sincePrevious: 200 },
      { step: 'started', at: 1250, sincePrevious: 50 },
      { step: 'finished', at: 4250, sincePrevious: 3000 },
    ]);
    expect(pendingStep(done)).toBeUndefined();
  });

  it('skips steps that never happened and names the one still to come', () => {
    const cancelled = { ...base, state: 'CANCELLED' as const, finishedAt: 1500 };
    expect(stateHistory(cancelled).map((h) => h.step)).toEqual(['created', 'finished']);
    expect(pendingStep({ ...base, state: 'RUNNING', dispatchedAt: 1100, startedAt: 1200 })).toBe('finished');
    expect(pendingStep(base)).toBe('dispatched');
  });
});

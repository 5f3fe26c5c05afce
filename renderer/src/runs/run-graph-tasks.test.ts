import { describe, expect, it } from 'vitest';
import type { RunRecord, TaskSpec, WorkflowSpec } from '../../../engine/api/types.ts';
import { runGraphTasks } from './run-graph-tasks.ts';
import { inst } from './test-instances.ts';

const task = (name: string, upstream: string[] = []): TaskSpec => ({
  name,
  command: 'true',
  env: {},
  retries: 0,
  retryBackoff: { kind: 'fixed', delayMs: 0, maxDelayMs: 0 },
  labels: [],
  upstream,
});
const spec: WorkflowSpec = {
  name: 'w',
  routing: 'round_robin',
  tasks: [task('a'), task('b', ['a']), task('c', ['b'])],
};
const run: RunRecord = {
  id: 1,
  workflowId: 1,
  workflowName: 'w',
  state: 'RUNNING',
  trigger: 'manual',
  triggeredBy: 'me',
  logicalTime: 0,
  createdAt: 0,
};
const dur = (ms: number) => `${ms}ms`;

describe('runGraphTasks', () => {
  it('shows every task of the workflow with its latest state, duration and attempt', () => {
    const tasks = runGraphTasks(
      run,
      [
        inst('a', { state: 'SUCCESS', startedAt: 0, finishedAt: 10 }),
        inst('b', { state: 'FAILED', startedAt: 10, finishedAt: 15 }),
        inst('b', { attempt: 2, state: 'RUNNING', startedAt: 20 }),
      ],
      spec,
      dur,
      50,
    );
    expect(tasks).toEqual([
      { name: 'a', upstream: [], state: 'SUCCESS', detail: '10ms' },
      { name: 'b', upstream: ['a'], state: 'RUNNING', detail: '30ms', stateNote: '#2' },
      { name: 'c', upstream: ['b'] },
    ]);
  });

  it('shows only the task of a one-task run, and tasks the definition lost, without edges', () => {
    expect(runGraphTasks({ ...run, onlyTask: 'b' }, [inst('b', {})], spec, dur, 0)).toEqual([
      { name: 'b', upstream: [], state: 'WAITING' },
    ]);
    expect(runGraphTasks(run, [inst('gone', { state: 'SUCCESS' })], undefined, dur, 0)).toEqual([
      { name: 'gone', upstream: [], state: 'SUCCESS' },
    ]);
  });

  it('a task held for another workflow says for what', () => {
    const held = inst('a', { state: 'WAITING', reason: 'waiting for orders.extract of 2026-11-30' });
    expect(runGraphTasks(run, [held], spec, dur, 0)[0]).toEqual({
      name: 'a',
      upstream: [],
      state: 'WAITING',
      detail: 'waiting for orders.extract of 2026-11-30',
      reason: 'waiting for orders.extract of 2026-11-30',
    });
  });

  it('a skipped task says why instead of a duration; a call task links its child run; rules and calls are marked', () => {
    const marked: WorkflowSpec = {
      ...spec,
      tasks: [
        { ...task('a'), call: { workflow: 'reports' } },
        { ...task('b', ['a']), runIf: 'all_done', when: { expr: 'outputs.a.rows > 0' } },
        { ...task('c', ['b']), runIf: 'all_success', when: { command: 'test -s x' } },
      ],
    };
    const tasks = runGraphTasks(
      run,
      [
        inst('a', { state: 'SUCCESS', startedAt: 0, finishedAt: 10, childRunId: 7 }),
        inst('b', { state: 'SKIPPED', startedAt: 10, finishedAt: 11, reason: 'when: outputs.a.rows is 0' }),
      ],
      marked,
      dur,
      50,
    );
    expect(tasks).toEqual([
      { name: 'a', upstream: [], state: 'SUCCESS', detail: '10ms', childRunId: 7, call: 'reports' },
      {
        name: 'b',
        upstream: ['a'],
        state: 'SKIPPED',
        detail: 'when: outputs.a.rows is 0',
        reason: 'when: outputs.a.rows is 0',
        rule: 'all_done',
        condition: 'outputs.a.rows > 0',
      },
      // the default rule is not marked; a command precondition reads as one
      { name: 'c', upstream: ['b'], condition: '$ test -s x' },
    ]);
  });
});

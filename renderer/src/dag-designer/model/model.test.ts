import { describe, expect, it } from 'vitest';
import type { WorkflowSpec } from '../../../../engine/api/types.ts';
import { record, redo, startHistory, undo, HISTORY_LIMIT } from './history.ts';
import { locateProblem, placeProblems, problemCounts, taskFieldMessages, workflowFieldMessages } from './problems.ts';
import {
  addTask,
  connect,
  disconnect,
  edgesOf,
  freeTaskName,
  newTask,
  removeTasks,
  renameTask,
  restoreRemoved,
  setUpstream,
  updateTask,
  updateWorkflow,
} from './spec-ops.ts';
import { sameValue } from './spec-equal.ts';
import { crossFromKeys, crossKey, parseRef } from './cross-refs.ts';

function spec(): WorkflowSpec {
  const t = (name: string, upstream: string[] = []) => ({ ...newTask(name), command: `echo ${name}`, upstream });
  return {
    name: 'etl',
    description: 'd',
    routing: 'round_robin',
    schedule: { cron: '0 2 * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'skip' },
    tasks: [t('a'), t('b', ['a']), t('c', ['b'])],
  };
}

describe('spec edits', () => {
  it("refuses a connection that closes a cycle and names it from the new edge's target", () => {
    const s = spec();
    expect(connect(s, 'c', 'a')).toEqual({ cycle: ['a', 'b', 'c', 'a'] });
    expect(connect(s, 'b', 'a')).toEqual({ cycle: ['a', 'b', 'a'] });
    expect(connect(s, 'a', 'a')).toEqual({ cycle: ['a', 'a'] });
  });

  it("appends a new edge to the downstream task's list and leaves other tasks untouched", () => {
    const s = spec();
    const r = connect(s, 'a', 'c');
    if (!('spec' in r)) throw new Error('refused');
    expect(r.spec.tasks[2]!.upstream).toEqual(['b', 'a']);
    expect(r.spec.tasks[0]).toBe(s.tasks[0]);
    expect(r.spec.tasks[1]).toBe(s.tasks[1]);
    expect(connect(r.spec, 'a', 'c')).toEqual({ unchanged: true });
    expect(connect(s, 'a', 'nope')).toEqual({ unchanged: true });
  });

  it('renames a task and its references in place; refuses taken and invalid names', () => {
    const r = renameTask(spec(), 'b', 'b2');
    if (!('spec' in r)) throw new Error('refused');
    expect(r.spec.tasks.map((t) => t.name)).toEqual(['a', 'b2', 'c']);
    expect(r.spec.tasks[2]!.upstream).toEqual(['b2']);
    expect(renameTask(spec(), 'b', 'a')).toEqual({ problem: 'taken' });
    expect(renameTask(spec(), 'b', 'no spaces')).toEqual({ problem: 'invalid' });
    expect(renameTask(spec(), 'b', '')).toEqual({ problem: 'empty' });
  });

  it('removes tasks with their edges, and edges alone', () => {
    const s = removeTasks(spec(), ['b']);
    expect(s.tasks.map((t) => [t.name, t.upstream])).toEqual([
      ['a', []],
      ['c', []],
    ]);
    const d = disconnect(spec(), [['b', 'c']]);
    expect(edgesOf(d)).toEqual([['a', 'b']]);
    expect(disconnect(spec(), [['x', 'y']]).tasks).toEqual(spec().tasks);
  });

  it('puts a removed task back with its connections into a spec edited since', () => {
    const before = spec();
    const after = removeTasks(before, ['b']);
    const edited = addTask(updateTask(after, 'c', { command: 'echo C' }), newTask('d'));
    const back = restoreRemoved(edited, before, after);
    expect(back.tasks.map((t) => t.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(edgesOf(back)).toEqual([
      ['a', 'b'],
      ['b', 'c'],
    ]);
    expect(back.tasks[2]!.command).toBe('echo C');
    // a lone connection comes back; one whose end is gone, or that would close a cycle, does not
    const cut = disconnect(before, [['b', 'c']]);
    expect(edgesOf(restoreRemoved(cut, before, cut))).toEqual([
      ['a', 'b'],
      ['b', 'c'],
    ]);
    expect(edgesOf(restoreRemoved(removeTasks(cut, ['c']), before, cut))).toEqual([['a', 'b']]);
    const looped = connect(cut, 'c', 'b');
    if (!('spec' in looped)) throw new Error('refused');
    expect(edgesOf(restoreRemoved(looped.spec, before, cut))).toEqual([
      ['a', 'b'],
      ['c', 'b'],
    ]);
    // a name taken since stays taken
    const retaken = addTask(after, { ...newTask('b'), command: 'echo new b' });
    expect(
      restoreRemoved(retaken, before, after)
        .tasks.filter((t) => t.name === 'b')
        .map((t) => t.command),
    ).toEqual(['echo new b']);
  });

  it('sets an upstream list from the panel, refusing a cycle', () => {
    expect(setUpstream(spec(), 'a', ['c'])).toEqual({ cycle: ['a', 'b', 'c', 'a'] });
    expect(setUpstream(spec(), 'c', ['b'])).toEqual({ unchanged: true });
    const r = setUpstream(spec(), 'c', ['a']);
    if (!('spec' in r)) throw new Error('refused');
    expect(r.spec.tasks[2]!.upstream).toEqual(['a']);
  });

  it('keeps fields no form shows, and drops a field set to undefined', () => {
    const s = { ...spec(), extra: 'kept' } as WorkflowSpec & { extra: string };
    const u = updateWorkflow(s, { description: undefined, owner: 'me' });
    expect(u).toMatchObject({ extra: 'kept', owner: 'me' });
    expect('description' in u).toBe(false);
    const t = updateTask(s, 'a', { timeoutMs: 60_000 });
    expect(t.tasks[0]).toMatchObject({ name: 'a', command: 'echo a', timeoutMs: 60_000 });
    expect('timeoutMs' in updateTask(t, 'a', { timeoutMs: undefined }).tasks[0]!).toBe(false);
  });

  it('picks a free task name', () => {
    const s = addTask(spec(), newTask('task-1'));
    expect(freeTaskName(s)).toBe('task-2');
  });
});

describe('undo history', () => {
  it('undoes and redoes every edit; a new edit drops the redo branch', () => {
    let h = startHistory(1);
    h = record(h, 2, { now: 0 });
    h = record(h, 3, { now: 10_000 });
    h = undo(h);
    expect(h.present).toBe(2);
    h = redo(h);
    expect(h.present).toBe(3);
    h = undo(undo(h));
    expect(h.present).toBe(1);
    expect(undo(h)).toBe(h);
    h = record(h, 9, { now: 20_000 });
    expect(h.future).toEqual([]);
    expect(redo(h)).toBe(h);
  });

  it('typing into one field is one step; another field or a pause starts a new one', () => {
    let h = startHistory('');
    h = record(h, 'e', { key: 'cmd', now: 0 });
    h = record(h, 'ec', { key: 'cmd', now: 200 });
    h = record(h, 'ech', { key: 'cmd', now: 400 });
    expect(undo(h).present).toBe('');
    h = record(h, 'ech!', { key: 'cwd', now: 500 });
    expect(undo(h).present).toBe('ech');
    h = record(h, 'ech!!', { key: 'cwd', now: 10_000 });
    expect(undo(h).present).toBe('ech!');
  });

  it('keeps a bounded past', () => {
    let h = startHistory(0);
    for (let i = 1; i <= HISTORY_LIMIT + 50; i++) h = record(h, i, { now: i * 10_000 });
    expect(h.past).toHaveLength(HISTORY_LIMIT);
  });
});

describe('problem paths', () => {
  const names = ['clean', 'a', 'a.b'];
  it('places task, backoff, env and workflow problems on their fields', () => {
    expect(locateProblem('tasks.clean.timeout', names)).toEqual({ scope: 'task', task: 'clean', field: 'timeout' });
    expect(locateProblem('tasks.clean.retry_backoff.max', names)).toEqual({
      scope: 'task',
      task: 'clean',
      field: 'retry_backoff.max',
    });
    expect(locateProblem('tasks.clean.env.1X', names)).toEqual({
      scope: 'task',
      task: 'clean',
      field: 'env',
      detail: '1X',
    });
    expect(locateProblem('tasks.clean.labels[0]', names)).toEqual({ scope: 'task', task: 'clean', field: 'labels' });
    expect(locateProblem('tasks.clean', names)).toEqual({ scope: 'task', task: 'clean' });
    expect(locateProblem('tasks.a.b.command', names)).toEqual({ scope: 'task', task: 'a.b', field: 'command' });
    expect(locateProblem('tasks.a.command', names)).toEqual({ scope: 'task', task: 'a', field: 'command' });
    expect(locateProblem('tasks', names)).toEqual({ scope: 'workflow', field: 'tasks' });
    expect(locateProblem('schedule.cron', names)).toEqual({ scope: 'workflow', field: 'schedule.cron' });
    expect(locateProblem('schedule', names)).toEqual({ scope: 'workflow', field: 'schedule.cron' });
    expect(locateProblem('workflow', names)).toEqual({ scope: 'workflow', field: 'workflow' });
    expect(locateProblem('', names)).toEqual({ scope: 'workflow' });
  });

  it("places a rule, a precondition, a call's parts, a param and an inherited setting on their fields", () => {
    expect(locateProblem('tasks.clean.run_if', names)).toEqual({ scope: 'task', task: 'clean', field: 'run_if' });
    expect(locateProblem('tasks.clean.when', names)).toEqual({ scope: 'task', task: 'clean', field: 'when' });
    expect(locateProblem('tasks.a.b.call.workflow', names)).toEqual({
      scope: 'task',
      task: 'a.b',
      field: 'call.workflow',
    });
    expect(locateProblem('tasks.clean.call.params.region', names)).toEqual({
      scope: 'task',
      task: 'clean',
      field: 'call',
      detail: 'call.params.region',
    });
    // a param's name may hold dots: the longest declared name wins
    expect(locateProblem('params.day.v2.default', names, ['day', 'day.v2'])).toEqual({
      scope: 'workflow',
      field: 'params',
      param: 'day.v2',
    });
    expect(locateProblem('params.gone.type', names, [])).toEqual({ scope: 'workflow', field: 'params', param: 'gone' });
    expect(locateProblem('retry_backoff.delay', names)).toEqual({ scope: 'workflow', field: 'retry_backoff.delay' });
    expect(locateProblem('env.1X', names)).toEqual({ scope: 'workflow', field: 'env' });
    const placed = placeProblems([{ path: 'params.day.default', message: 'not a date' }], names, ['day']);
    expect(Object.fromEntries(workflowFieldMessages(placed))).toEqual({ 'params.day': ['not a date'] });
  });

  it('groups messages per field and counts them per task', () => {
    const placed = placeProblems(
      [
        { path: 'tasks.clean.timeout', message: 't1' },
        { path: 'tasks.clean.command', message: 'c1' },
        { path: 'tasks', message: 'cycle: a → clean → a' },
        { path: 'schedule.cron', message: 'bad cron' },
      ],
      names,
    );
    expect(Object.fromEntries(taskFieldMessages(placed, 'clean'))).toEqual({ timeout: ['t1'], command: ['c1'] });
    expect(Object.fromEntries(workflowFieldMessages(placed))).toEqual({
      tasks: ['cycle: a → clean → a'],
      'schedule.cron': ['bad cron'],
    });
    expect(Object.fromEntries(problemCounts(placed))).toEqual({ clean: 2 });
  });
});

describe('sameValue', () => {
  it('ignores key order and undefined fields, not list order', () => {
    expect(sameValue({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1, c: undefined })).toBe(true);
    expect(sameValue({ b: [2, 1] }, { b: [1, 2] })).toBe(false);
    expect(sameValue(spec(), spec())).toBe(true);
    expect(sameValue(spec(), updateTask(spec(), 'a', { command: 'x' }))).toBe(false);
  });
});

describe('cross-workflow upstream tags', () => {
  it('keeps references with other date rules, parses typed ones (same day), drops what is not WORKFLOW.TASK', () => {
    const kept = { workflow: 'crm', task: 'sync', date: 'previous_day' as const };
    expect(
      crossFromKeys([kept], [crossKey(kept), 'orders.extract', 'sales.*', 'nodot', 'x.y.z', 'orders.extract']),
    ).toEqual([
      kept,
      { workflow: 'orders', task: 'extract', date: 'same_day' },
      { workflow: 'sales', date: 'same_day' },
      { workflow: 'x.y', task: 'z', date: 'same_day' },
    ]);
    expect(parseRef('a.')).toBeUndefined();
    expect(parseRef('.a')).toBeUndefined();
  });
});

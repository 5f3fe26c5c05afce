// `call:` tasks: the file field (command or call, params only with a call, the fields a process
// needs refused beside it), its export round trip, and apply's walk of calls across workflows
// (a cycle refused and spelled out, a missing workflow a warning).
import { describe, expect, it } from 'vitest';
import type { WorkflowSpec } from '../../engine/api/types.ts';
import { checkCalls } from '../../engine/core/workflow/call-cycle.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { parse, problems, task } from '../helpers/workflow-text.ts';

describe('call: in a workflow file', () => {
  it('reads call and params (numbers and booleans as written), with no command', () => {
    const { spec } = parse(
      'workflow: a\ntasks:\n  load: { command: ./load.sh }\n  report:\n    call: reports\n    params: { region: eu, limit: 1.10, dry_run: true }\n    upstream: [load]\n    retries: 1\n    timeout: 1h\n',
    );
    const report = spec.tasks.find((t) => t.name === 'report');
    expect(report).toMatchObject({
      command: '',
      call: { workflow: 'reports', params: { region: 'eu', limit: '1.10', dry_run: 'true' } },
      upstream: ['load'],
      retries: 1,
      timeoutMs: 3_600_000,
    });
    expect(spec.tasks.find((t) => t.name === 'load')?.call).toBeUndefined();
  });

  it('refuses a command and a call together, params without a call, and process fields beside a call', () => {
    expect(problems('workflow: a\ntasks:\n  t: { call: b, command: ./x.sh }\n')).toEqual([
      { path: 'tasks.t.command', message: 'a task has a command or a call, not both: remove one of them' },
    ]);
    expect(problems('workflow: a\ntasks:\n  t: { command: ./x.sh, params: { x: 1 } }\n')).toEqual([
      {
        path: 'tasks.t.params',
        message:
          'only a call: task takes params (the params of the workflow it calls): add "call: WORKFLOW", or remove params',
      },
    ]);
    expect(problems('workflow: a\ntasks:\n  t: { call: b, cwd: /tmp, labels: [gpu] }\n').map((p) => p.path)).toEqual([
      'tasks.t.cwd',
      'tasks.t.labels',
    ]);
    // a when: beside a call would never be checked (no worker starts a call)
    expect(problems('workflow: a\ntasks:\n  t: { call: b, when: { command: "true" } }\n').map((p) => p.path)).toEqual([
      'tasks.t.when',
    ]);
    expect(problems('workflow: a\ntasks:\n  t: { call: "b c" }\n')).toEqual([
      { path: 'tasks.t.call', message: expect.stringContaining('"b c" is not a valid name') },
    ]);
    expect(problems('workflow: a\ntasks:\n  t: { call: b, params: { x: [1] } }\n')).toEqual([
      {
        path: 'tasks.t.params.x',
        message: 'must be a string, number or boolean (got a list): write the value as text',
      },
    ]);
  });

  it('round-trips through export: call and params where the command would be', () => {
    const spec: WorkflowSpec = {
      name: 'a',
      routing: 'round_robin',
      tasks: [
        task('load'),
        task('report', { command: '', call: { workflow: 'reports', params: { region: 'eu' } }, upstream: ['load'] }),
        task('tidy', { command: '', call: { workflow: 'tidy' } }),
      ],
    };
    const text = serializeWorkflow(spec);
    expect(text).toContain('  report:\n    call: reports\n    params:\n      region: eu\n    upstream: [load]\n');
    expect(text).toContain('  tidy:\n    call: tidy\n');
    const back = parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;
    expect(back.tasks.find((t) => t.name === 'report')).toStrictEqual(spec.tasks[1]);
    expect(serializeWorkflow(back)).toBe(text);
  });

  it('logical_time moves the child run from the parent run by a signed duration, written back as read', () => {
    const { spec } = parse(
      'workflow: a\ntasks:\n  back: { call: reports, logical_time: -1d }\n  ahead: { call: reports, logical_time: "+6h" }\n  same: { call: reports, logical_time: 0s }\n',
    );
    expect(Object.fromEntries(spec.tasks.map((t) => [t.name, t.call?.logicalTimeOffsetMs]))).toEqual({
      back: -86_400_000,
      ahead: 21_600_000,
      same: undefined,
    });
    const text = serializeWorkflow(spec);
    expect(text).toContain('  back:\n    call: reports\n    logical_time: -1d\n');
    expect(text).toContain('  ahead:\n    call: reports\n    logical_time: +6h\n');
    expect(parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec).toStrictEqual(spec);
    expect(problems('workflow: a\ntasks:\n  t: { call: b, logical_time: yesterday }\n').map((p) => p.path)).toEqual([
      'tasks.t.logical_time',
    ]);
    expect(problems('workflow: a\ntasks:\n  t: { command: ./x.sh, logical_time: -1d }\n')).toEqual([
      {
        path: 'tasks.t.logical_time',
        message: expect.stringContaining('only a call: task takes logical_time'),
      },
    ]);
  });

  it('a spec with both a command and a call keeps both, so the parser names the mistake', () => {
    const text = serializeWorkflow({
      name: 'a',
      routing: 'round_robin',
      tasks: [task('t', { call: { workflow: 'b' } })],
    });
    expect(() => parseWorkflowFile(text, { defaultTimezone: 'UTC' })).toThrow('command or a call, not both');
  });
});

describe('checkCalls: cycles of calls across workflows', () => {
  const wf = (name: string, calls: Record<string, string>): WorkflowSpec => ({
    name,
    routing: 'round_robin',
    tasks: [
      task('work'),
      ...Object.entries(calls).map(([t, workflow]) => task(t, { command: '', call: { workflow } })),
    ],
  });
  const stored = (...specs: WorkflowSpec[]) => {
    const byName = new Map(specs.map((s) => [s.name, s]));
    const reads: string[] = [];
    return {
      reads,
      specOf: async (name: string) => {
        reads.push(name);
        return byName.get(name);
      },
    };
  };

  it('a chain of calls is fine, each workflow read once', async () => {
    const store = stored(wf('b', { c1: 'c', c2: 'c' }), wf('c', {}), wf('z', { back: 'a' }));
    expect(await checkCalls(wf('a', { callB: 'b', callC: 'c' }), store.specOf)).toEqual({ warnings: [] });
    expect(store.reads.sort()).toEqual(['b', 'c']);
  });

  it('a workflow calling itself is a cycle', async () => {
    expect((await checkCalls(wf('a', { again: 'a' }), stored().specOf)).cycle).toEqual({
      task: 'again',
      path: ['a.again', 'a'],
    });
  });

  it('a calls b calls a, and a cycle through several workflows, named from the applied one', async () => {
    expect((await checkCalls(wf('a', { callB: 'b' }), stored(wf('b', { callA: 'a' })).specOf)).cycle).toEqual({
      task: 'callB',
      path: ['a.callB', 'b.callA', 'a'],
    });
    const three = stored(wf('b', { toC: 'c' }), wf('c', { toD: 'd' }), wf('d', { toA: 'a', toB: 'b' }));
    expect((await checkCalls(wf('a', { ok: 'c', toB: 'b' }), three.specOf)).cycle).toEqual({
      task: 'ok',
      path: ['a.ok', 'c.toD', 'd.toA', 'a'],
    });
  });

  it('the applied version stands for the stored one: a cycle it breaks is gone', async () => {
    const store = stored(wf('a', { callB: 'b' }), wf('b', { callA: 'a' }));
    expect((await checkCalls(wf('b', {}), store.specOf)).cycle).toBeUndefined();
    expect((await checkCalls(wf('b', { callA: 'a' }), store.specOf)).cycle?.path).toEqual(['b.callA', 'a.callB', 'b']);
  });

  it('a call of a workflow that does not exist is a warning naming the task', async () => {
    expect(await checkCalls(wf('a', { report: 'reports' }), stored().specOf)).toEqual({
      warnings: [
        'tasks.report.call: no workflow "reports" yet: "report" fails when it runs until that workflow is applied',
      ],
    });
  });
});

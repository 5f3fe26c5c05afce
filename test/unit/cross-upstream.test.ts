// Upstreams in other workflows in a workflow file: the forms a file may write, their
// problems, the round trip through `ax export`, and the logical-time window each date rule waits
// for in the downstream workflow's zone.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../engine/api/errors.ts';
import { splitRef, waitDrafts, waitWindow } from '../../engine/core/workflow/cross-upstream.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';

const file = (upstream: string, extra = '') =>
  `workflow: b\ntasks:\n  extract: { command: "true" }\n  load: { command: "true", upstream: ${upstream}${extra} }\n`;
const parse = (text: string) => parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;
function problems(text: string): string[] {
  try {
    parse(text);
    return [];
  } catch (err) {
    return (err as ValidationError).problems.map((p) => `${p.path}: ${p.message}`);
  }
}

describe('upstream across workflows in a workflow file', () => {
  it('reads WORKFLOW.TASK, WORKFLOW.* and { ref, date } beside local tasks', () => {
    const spec = parse(
      file(
        '[extract, orders-etl.load, sales.*, { ref: crm.sync, date: previous_day }, { ref: web, date: same_hour }]',
        ', wait_timeout: 6h',
      ),
    );
    const load = spec.tasks[1];
    expect(load?.upstream).toEqual(['extract']);
    expect(load?.crossUpstream).toEqual([
      { workflow: 'crm', task: 'sync', date: 'previous_day' },
      { workflow: 'web', date: 'same_hour' },
      { workflow: 'orders-etl', task: 'load', date: 'same_day' },
      { workflow: 'sales', date: 'same_day' },
    ]);
    expect(load?.waitTimeoutMs).toBe(6 * 3_600_000);
  });

  it('round-trips through the file text ax export writes', () => {
    const spec = parse(
      file('[extract, orders-etl.load, { ref: crm.sync, date: latest }, sales.*]', ', wait_timeout: 90m'),
    );
    const text = serializeWorkflow(spec);
    expect(text).toContain('upstream: [extract, {ref: crm.sync, date: latest}, orders-etl.load, sales.*]');
    expect(text).toContain('wait_timeout: 1h30m');
    expect(parse(text)).toEqual(spec);
  });

  it('a dotted name of a local task stays local; the split is at the last dot', () => {
    const spec = parse(
      'workflow: w\ntasks:\n  a.b: { command: "true" }\n  c: { command: "true", upstream: [a.b, x.y.z] }\n',
    );
    expect(spec.tasks[1]?.upstream).toEqual(['a.b']);
    expect(spec.tasks[1]?.crossUpstream).toEqual([{ workflow: 'x.y', task: 'z', date: 'same_day' }]);
    expect(splitRef('x.y.*')).toEqual({ workflow: 'x.y' });
  });

  it('says what to fix', () => {
    expect(problems(file('[{ ref: a.x, date: tomorrow }]'))).toEqual([
      'tasks.load.upstream[0].date: must be one of same_day, previous_day, same_hour, latest (got "tomorrow")',
    ]);
    expect(problems(file('[{ date: latest }]'))).toEqual([
      'tasks.load.upstream[0].ref: missing: name the upstream as ref: WORKFLOW.TASK (or WORKFLOW for its whole run)',
    ]);
    expect(problems(file('[b.extract]'))).toEqual([
      'tasks.load.upstream: "b.extract" is this workflow: name its task alone, e.g. upstream: [extract]',
    ]);
    expect(problems(file('[a.x, { ref: a.x }]'))).toEqual(['tasks.load.upstream: "a.x" is listed twice: list it once']);
    expect(problems(file('[extract]', ', wait_timeout: 1h'))).toEqual([
      'tasks.load.wait_timeout: applies to upstreams in other workflows (WORKFLOW.TASK): this task has none, so remove it',
    ]);
    expect(problems(file('[{ ref: "a. b" }]'))[0]).toContain('is not a valid name');
  });
});

describe('the window a date rule waits for', () => {
  const at = Date.parse('2026-11-29T19:00:00Z'); // 2026-11-30 03:00 in Shanghai
  it('same_day and previous_day are calendar days of the downstream zone', () => {
    expect(waitWindow('same_day', at, 'Asia/Shanghai')).toMatchObject({
      from: Date.parse('2026-11-29T16:00:00Z'),
      to: Date.parse('2026-11-30T16:00:00Z'),
    });
    expect(waitWindow('same_day', at, 'UTC')).toMatchObject({
      from: Date.parse('2026-11-29T00:00:00Z'),
      to: Date.parse('2026-11-30T00:00:00Z'),
    });
    expect(waitWindow('previous_day', at, 'Asia/Shanghai')).toMatchObject({
      from: Date.parse('2026-11-28T16:00:00Z'),
      to: Date.parse('2026-11-29T16:00:00Z'),
    });
  });
  it('same_hour is the local hour, also in a zone a quarter-hour off UTC', () => {
    expect(waitWindow('same_hour', Date.parse('2026-11-30T10:20:00Z'), 'Asia/Kathmandu')).toMatchObject({
      from: Date.parse('2026-11-30T10:15:00Z'),
      to: Date.parse('2026-11-30T11:15:00Z'),
    });
  });
  it('a day with a DST change is that day, 23 or 25 hours long', () => {
    const w = waitWindow('same_day', Date.parse('2026-03-08T12:00:00Z'), 'America/New_York');
    expect(w).toMatchObject({ from: Date.parse('2026-03-08T05:00:00Z'), to: Date.parse('2026-03-09T04:00:00Z') });
  });
  it('labels and deadlines', () => {
    const [day, latest] = waitDrafts(
      {
        crossUpstream: [
          { workflow: 'a', task: 'x', date: 'same_day' },
          { workflow: 'a', date: 'latest' },
        ],
        waitTimeoutMs: 60_000,
      },
      at,
      'Asia/Shanghai',
      1000,
    );
    expect(day).toMatchObject({ label: 'a.x of 2026-11-30', deadline: 61_000, task: 'x' });
    expect(latest).toMatchObject({
      label: 'the whole of a (its latest run)',
      window: { latestAtOrBefore: at },
      task: null,
      deadline: 61_000,
    });
    expect(
      waitDrafts({ crossUpstream: [{ workflow: 'a', task: 'x', date: 'same_hour' }] }, at, 'Asia/Shanghai', 0)[0],
    ).toMatchObject({ label: 'a.x of 2026-11-30 03:00', deadline: 86_400_000 });
  });
});

import { describe, expect, it } from 'vitest';
import type { TaskSpec, WorkflowSpec } from '../../engine/api/types.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { serializeWorkflow } from '../../engine/core/workflow/workflow-serialize.ts';
import { opts, task } from '../helpers/workflow-text.ts';

describe('serializeWorkflow', () => {
  const minimal: WorkflowSpec = { name: 'w', routing: 'round_robin', tasks: [task('extract')] };
  const full: WorkflowSpec = {
    name: 'nightly-etl',
    description: 'Nightly: load "orders" # not a comment',
    owner: 'ana',
    schedule: { cron: '0 2 * * *', timezone: 'Europe/Berlin', misfire: 'all', overlap: 'parallel' },
    onEvent: 'orders-ready',
    routing: 'random',
    // in topological order, ties by name: as a file is read back
    tasks: [
      task('123', { retryBackoff: { kind: 'fixed', delayMs: 30_000, maxDelayMs: 30_000 } }),
      task('extract', {
        command: 'set -e\n./extract.sh --since "$AX_LOGICAL_TIME"\n',
        cwd: '/data/etl',
        env: { A: '1.10', B: 'true', EMPTY: '', MULTI: 'a\nb', SPACE: ' x ' },
        timeoutMs: 5_400_000,
        retries: 3,
        retryBackoff: { kind: 'exponential', delayMs: 5000, maxDelayMs: 600_000 },
        labels: ['gpu', 'true', '2'],
        owner: 'bo',
      }),
      task('report', { command: 'echo yes', timeoutMs: 1 }),
      task('load', { upstream: ['extract', '123'], retryBackoff: { kind: 'fixed', delayMs: 0, maxDelayMs: 60_000 } }),
    ],
  };
  const specs: Record<string, WorkflowSpec> = {
    minimal,
    full,
    scheduleDefaults: {
      ...minimal,
      schedule: { cron: '*/5 * * * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'skip' },
    },
    exponentialDefault: {
      ...minimal,
      tasks: [task('a', { retries: 1, retryBackoff: { kind: 'exponential', delayMs: 10_000, maxDelayMs: 3_600_000 } })],
    },
  };

  for (const [label, spec] of Object.entries(specs)) {
    it(`round-trips the ${label} spec`, () => {
      const text = serializeWorkflow(spec);
      const back = parseWorkflowFile(text, { defaultTimezone: 'Asia/Tokyo' });
      expect(back.spec).toStrictEqual(spec);
      expect(back.warnings).toEqual([]);
      expect(serializeWorkflow(back.spec)).toBe(text);
    });
  }

  it('writes the minimal form, omitting defaults', () => {
    expect(serializeWorkflow(minimal)).toBe('workflow: w\ntasks:\n  extract:\n    command: ./extract.sh\n');
  });

  it('writes keys in canonical order, tasks in topological order, the schedule as a map with its timezone, lists in flow style', () => {
    const text = serializeWorkflow({
      tasks: [task('b', { upstream: ['a'], labels: ['gpu'], retries: 2, timeoutMs: 1_800_000 }), task('a')],
      routing: 'least_busy',
      schedule: { cron: '0 2 * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'queue' },
      name: 'w',
    });
    expect(text).toBe(`workflow: w
schedule:
  cron: 0 2 * * *
  timezone: UTC
  overlap: queue
routing: least_busy
tasks:
  a:
    command: ./a.sh
  b:
    command: ./b.sh
    timeout: 30m
    retries: 2
    labels: [gpu]
    upstream: [a]
`);
  });

  it('writes a fixed backoff as a duration and other backoffs as a full map', () => {
    const one = (b: TaskSpec['retryBackoff']) =>
      serializeWorkflow({ ...minimal, tasks: [task('t', { retryBackoff: b })] });
    expect(one({ kind: 'fixed', delayMs: 90_000, maxDelayMs: 90_000 })).toContain('    retry_backoff: 1m30s\n');
    expect(one({ kind: 'exponential', delayMs: 1000, maxDelayMs: 60_000 })).toContain(
      '    retry_backoff:\n      strategy: exponential\n      delay: 1s\n      max: 1m\n',
    );
  });

  it('normalises a hand-written file into the canonical text', () => {
    const text = `# hand written
{ "tasks": { "b": { "command": "./b.sh", "upstream": ["a"], "env": { "N": 7 } }, "a": { "command": "./a.sh" } },
  "workflow": "w", "schedule": "0 2 * * *" }`;
    const first = parseWorkflowFile(text, opts);
    expect(first.warnings).toEqual([]);
    const canonical = serializeWorkflow(first.spec);
    expect(
      canonical.startsWith('workflow: w\nschedule:\n  cron: 0 2 * * *\n  timezone: Europe/Berlin\ntasks:\n  a:\n'),
    ).toBe(true);
    expect(canonical).toContain('      N: "7"\n');
    expect(serializeWorkflow(parseWorkflowFile(canonical, { defaultTimezone: 'UTC' }).spec)).toBe(canonical);
  });
});

// The run-history grid and the run views (getRun: the attempts table, the timeline's ties, `ax
// runs RUN`) list tasks in topological order, ties by name, not as they were added
// each task's attempts in turn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t.close();
});

describe('tasks in topological order', () => {
  it('in the grid and in a run, whatever order the spec had', async () => {
    const { spec } = parseWorkflowFile(
      `workflow: etl
tasks:
  report: { command: 'true', upstream: [load] }
  load: { command: '[ "$AX_ATTEMPT" -ge 2 ]', upstream: [clean, fx], retries: 1, retry_backoff: 10ms }
  clean: { command: 'true', upstream: [extract] }
  extract: { command: 'true' }
  fx: { command: 'true' }
`,
      { defaultTimezone: 'UTC' },
    );
    // a spec from the API in the order its tasks were added
    await t.engine.apply({ ...spec, tasks: [...spec.tasks].reverse() }, 'test');
    const run = await t.runToEnd('etl');
    expect(run.run.state).toBe('SUCCESS');
    expect(run.instances.map((i) => `${i.taskName}#${i.attempt}`)).toEqual([
      'extract#1',
      'fx#1',
      'clean#1',
      'load#1',
      'load#2',
      'report#1',
    ]);
    expect((await t.engine.runGrid('etl', {})).tasks).toEqual(['extract', 'fx', 'clean', 'load', 'report']);
    expect((await t.engine.exportWorkflow('etl')).tasks.map((x) => x.name)).toEqual([
      'extract',
      'fx',
      'clean',
      'load',
      'report',
    ]);
  });
});

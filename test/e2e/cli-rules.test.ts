// Trigger rules and when: through the real `ax`: `ax run FILE --wait` prints a skipped task with
// why, the run's exit code follows its final state (skips are no failure, a failure is one even
// when its cleanup ran), and `ax runs RUN` lists each task's state and reason.
import { describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';

const box = cliSandbox('ax-cli-rules-');

describe('ax run --wait and ax runs RUN with trigger rules', () => {
  it('a when: that says no: SKIPPED with its output, its downstream skipped, exit 0', async () => {
    const file = writeFile(
      box.root,
      'skips.yaml',
      `workflow: skips
tasks:
  extract: { command: echo extracted }
  load:
    command: echo loaded
    upstream: [extract]
    when: { command: "echo no new rows; exit 1" }
  index: { command: echo indexed, upstream: [load] }
  notify: { command: echo notice, upstream: [load], run_if: one_failed }
`,
    );
    const r = await ax(['run', file, '--wait'], box.opts());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/⤼ load SKIPPED .*— when: exited 1: no new rows/);
    expect(r.stdout).toMatch(/⤼ index SKIPPED .*— upstream "load" ended SKIPPED \(run_if: all_success\)/);
    expect(r.stdout).toMatch(/⤼ notify SKIPPED .*— run_if: one_failed, and no upstream failed/);
    const runId = /^run #(\d+) SUCCESS/m.exec(r.stdout)?.[1];
    expect(runId).toBeDefined();

    const listed = await ax(['runs', runId as string], box.opts());
    expect(listed.code).toBe(0);
    const row = (task: string) => listed.stdout.split('\n').find((l) => new RegExp(`\\s${task}\\s`).test(l)) ?? '';
    expect(row('extract')).toMatch(/SUCCESS/);
    expect(row('load')).toMatch(/⤼ SKIPPED.*when: exited 1: no new rows/);
    expect(row('index')).toMatch(/⤼ SKIPPED.*upstream "load" ended SKIPPED/);
  });

  it('a failure with a cleanup that ran: the cleanup SUCCESS, the run FAILED, exit 1', async () => {
    const file = writeFile(
      box.root,
      'fails.yaml',
      `workflow: fails
tasks:
  extract: { command: "exit 2" }
  cleanup: { command: echo cleaned, upstream: [extract], run_if: all_done }
`,
    );
    const r = await ax(['run', file, '--wait'], box.opts());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✓ cleanup SUCCESS/);
    expect(r.stdout).toMatch(/^run #\d+ FAILED/m);
  });
});

// How long the guards against hostile or stuck input take, measured where the tests only assert
// that they hold: a workflow file whose aliases would expand to 10^8 values is cut off; a file
// over the size limit is refused before the YAML parser sees it; a task group that obeys SIGTERM
// is gone without waiting out the grace; a task whose background child holds the output pipe open
// still ends when its shell does. Times in ms, the median of a few runs.
import { NodeProcessRunner } from '../engine/adapters/process/node-process-runner.ts';
import { MAX_WORKFLOW_FILE_BYTES, parseWorkflowFile } from '../engine/core/workflow/workflow-file.ts';
import { type BenchOptions, type BenchTable, fmt, median } from './util.ts';

function aliasBomb(): string {
  const lines = ['workflow: w', 'tasks: { t: { command: x } }', 'l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 8; i++)
    lines.push(
      `l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  return lines.join('\n');
}

/** ms of a parse that must be refused */
function refusedIn(text: string): number {
  const t0 = performance.now();
  try {
    parseWorkflowFile(text, { defaultTimezone: 'UTC' });
  } catch {
    return performance.now() - t0;
  }
  throw new Error('the hostile file parsed: the guard is gone');
}

async function runnerTimes(runs: number): Promise<{ terminate: number[]; exited: number[] }> {
  const runner = new NodeProcessRunner();
  const env = { ...(process.env as Record<string, string>) };
  const terminate: number[] = [];
  const exited: number[] = [];
  for (let i = 0; i < runs; i++) {
    const both = await runner.start({ command: 'sleep 300 & sleep 300', env }, { onLine: () => undefined });
    const t0 = performance.now();
    await both.terminate(2_000);
    terminate.push(performance.now() - t0);

    const t1 = performance.now();
    const bg = await runner.start({ command: 'sleep 300 & echo started', env }, { onLine: () => undefined });
    await bg.exited;
    exited.push(performance.now() - t1);
    await bg.terminate(100); // the background sleep, left in the group
  }
  return { terminate, exited };
}

export async function benchGuardTimes(options: BenchOptions): Promise<BenchTable> {
  const runs = options.quick ? 2 : 7;
  options.progress(`guard times: ${runs} runs each`);
  const bomb = aliasBomb();
  const oversize = `{{{ ${'x'.repeat(MAX_WORKFLOW_FILE_BYTES)}`;
  const alias = Array.from({ length: runs }, () => refusedIn(bomb));
  const size = Array.from({ length: runs }, () => refusedIn(oversize));
  const { terminate, exited } = await runnerTimes(runs);
  return {
    title: 'Guard times (ms, median)',
    columns: ['guard', 'median ms', 'max ms'],
    rows: [
      ['aliases expanding to 10^8 values: refused', fmt(median(alias), 1), fmt(Math.max(...alias), 1)],
      [
        `a file just over the ${fmt(MAX_WORKFLOW_FILE_BYTES / 2 ** 20, 0)} MB limit: refused by size`,
        fmt(median(size), 1),
        fmt(Math.max(...size), 1),
      ],
      ['a group obeying SIGTERM: terminate(2000) returns', fmt(median(terminate), 0), fmt(Math.max(...terminate), 0)],
      ['a shell whose background child holds the pipe: exited', fmt(median(exited), 0), fmt(Math.max(...exited), 0)],
    ],
    notes: [
      'the tests assert what these guards do (the message, the signal, the end); the times are here, where a slow machine makes a figure, not a failure',
    ],
  };
}

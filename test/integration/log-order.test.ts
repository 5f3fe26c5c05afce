// Log order across stdout and stderr: a task that alternates them must be stored alternating,
// as far as two pipes allow. Within one turn of the reader's event loop each pipe is read to the
// end, so lines written between two reads cannot be ordered across the pipes; the task pauses
// every BURST iterations so that reads fall between bursts, and the assertion allows a line to
// move within about two bursts, never further. The old launcher stopped reading both pipes
// whenever the engine was 128 KB behind on its channel, and replayed what each stream had
// buffered stream by stream: blocks of ~50 lines here (hundreds with short lines), which fail.
// Real processes (POSIX shell).
import { afterAll, describe, expect, it } from 'vitest';
import { LauncherProcessRunner } from '../../engine/adapters/process/launcher-process-runner.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import type { ProcessRunner } from '../../engine/ports/process-runner.ts';
import type { LogLine } from '../../engine/api/types.ts';
import { startTestEngine } from '../helpers/solo-engine.ts';

const STEPS = 600;
const BURST = 5;
/** how far (in lines) a line may land from where it was written: about two bursts */
const SLACK = 4 * BURST;
const PAD = 'x'.repeat(2000);
/** `out i` then `err i`, a pause every BURST steps; lines padded so that a busy second is megabytes */
const ALTERNATE = `for i in $(seq 1 ${STEPS}); do echo "out $i ${PAD}"; echo "err $i ${PAD}" >&2; [ $((i % ${BURST})) = 0 ] && sleep 0.01; done; true`;

/** Each line's distance from where the task wrote it (out i at 2i−2, err i at 2i−1); the worst one. */
function worstDisplacement(lines: { stream: string; line: string }[]): { worst: number; at: string } {
  expect(lines).toHaveLength(2 * STEPS);
  let worst = 0;
  let at = '';
  lines.forEach(({ stream, line }, position) => {
    const [name, step] = line.split(' ');
    expect(name).toBe(stream === 'stdout' ? 'out' : 'err');
    const written = 2 * (Number(step) - 1) + (name === 'err' ? 1 : 0);
    const off = Math.abs(position - written);
    if (off > worst) [worst, at] = [off, `${name} ${step} at line ${position + 1}`];
  });
  return { worst, at };
}

async function runDirect(runner: ProcessRunner, whileRunning?: () => void) {
  const lines: { stream: string; line: string }[] = [];
  const proc = await runner.start(
    { command: ALTERNATE, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
    { onLine: (stream, line) => lines.push({ stream, line }) },
  );
  whileRunning?.();
  const exit = await proc.exited;
  expect(exit.code).toBe(0);
  return lines;
}

const runners: ProcessRunner[] = [];
afterAll(() => runners.forEach((r) => r.dispose?.()));

// Skipped on Windows only: the tasks are POSIX shell commands (sh -c, >&2, printf).
describe.skipIf(process.platform === 'win32')('log order across stdout and stderr', () => {
  it('the launcher runner keeps the order while the engine is too busy to read its channel', async () => {
    const runner = new LauncherProcessRunner({ killGraceMs: 1_000 });
    runners.push(runner);
    // An engine busy for a second (a large log write, a GC): the launcher must go on reading the
    // pipes meanwhile, holding what it read in one queue in read order. Blocking is the point here,
    // so this is a busy loop, not a sleep.
    const lines = await runDirect(runner, () => {
      const until = Date.now() + 1_000;
      while (Date.now() < until);
    });
    const { worst, at } = worstDisplacement(lines);
    expect(worst, `worst: ${at}`).toBeLessThanOrEqual(SLACK);
  });

  it('the direct runner keeps the order', async () => {
    const { worst, at } = worstDisplacement(await runDirect(new NodeProcessRunner()));
    expect(worst, `worst: ${at}`).toBeLessThanOrEqual(SLACK);
  });

  it('a real engine stores the lines in the order they were read, one sequence for both streams', async () => {
    const t = await startTestEngine();
    try {
      await t.apply(`
workflow: log-order
tasks:
  alternate:
    command: ${JSON.stringify(ALTERNATE)}
`);
      const detail = await t.runToEnd('log-order');
      expect(detail.run.state).toBe('SUCCESS');
      const logs: LogLine[] = await t.engine.readLogs(detail.instances[0]?.id ?? 0, 0, 10_000);
      expect(logs.map((l) => l.seq)).toEqual(logs.map((_, i) => i + 1));
      const { worst, at } = worstDisplacement(logs);
      expect(worst, `worst: ${at}`).toBeLessThanOrEqual(SLACK);
    } finally {
      await t.close();
    }
  });
});

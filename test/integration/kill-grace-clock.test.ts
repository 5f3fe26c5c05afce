// A kill's grace is measured on the monotonic clock: a wall clock stepped back during it (NTP,
// a manual date) must neither hold the SIGKILL back for an hour nor, stepped ahead, bring it
// early. Real processes that ignore SIGTERM; the deadline logic with an injected clock, and the
// default clock while Date.now() jumps an hour back. Unix only: process groups are tested.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IS_WINDOWS, groupAlive, runningGroup } from '../../engine/adapters/process/process-groups.ts';
import type { ProcessExit } from '../../engine/ports/process-runner.ts';
import { waitFor } from '../helpers/wait-for.ts';

const IGNORES_TERM =
  "process.on('SIGTERM', () => console.log('term')); setInterval(() => undefined, 1000); console.log('ready');";

const children: ChildProcess[] = [];

/** A process group led by a node that says "term" on SIGTERM and goes on; resolves once it runs. */
async function stubborn(): Promise<{ pid: number; exited: Promise<ProcessExit>; said: string[] }> {
  const child = spawn(process.execPath, ['-e', IGNORES_TERM], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  const said: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (text: string) => said.push(...text.split('\n').filter(Boolean)));
  const exited = new Promise<ProcessExit>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await waitFor(() => said.includes('ready'), { message: 'the stubborn process to start' });
  return { pid: child.pid as number, exited, said };
}

afterEach(() => {
  vi.restoreAllMocks();
  for (const child of children.splice(0)) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

// Skipped on Windows: no process groups there.
describe.skipIf(IS_WINDOWS)(
  `kill grace on the monotonic clock${IS_WINDOWS ? ' (skipped: no process groups on Windows)' : ''}`,
  () => {
    it('sends SIGKILL when the injected clock reaches the grace, not before', async () => {
      const task = await stubborn();
      let now = 1_000;
      let reads = 0;
      const clock = () => {
        reads += 1;
        return now;
      };
      const running = runningGroup(task.pid, 'spawn-id', task.exited, undefined, clock);
      const stopped = running.terminate(60_000);
      await waitFor(() => task.said.includes('term'), { message: 'the SIGTERM to arrive' });
      // Inside the grace by the injected clock: the kill loop looks at it twice more, and it still runs.
      now += 59_000;
      const seen = reads;
      await waitFor(() => reads >= seen + 2, { message: 'the kill loop to read the clock' });
      expect(groupAlive(task.pid)).toBe(true);
      now += 1_000;
      await stopped;
      expect((await task.exited).signal).toBe('SIGKILL');
    }, 20_000);

    it('kills after the grace although the wall clock steps back an hour during it', async () => {
      const task = await stubborn();
      const running = runningGroup(task.pid, 'spawn-id', task.exited);
      const stopped = running.terminate(300);
      // The step comes after the deadline was set: a deadline on Date.now() would lie an hour ahead.
      const wall = Date.now();
      vi.spyOn(Date, 'now').mockImplementation(() => wall - 3600_000);
      await stopped;
      expect((await task.exited).signal).toBe('SIGKILL');
      expect(task.said).toContain('term');
    }, 20_000);
  },
);

// The seed's incident in solo form (design.md §7): when the engine's own process stalls (a starved
// CPU, a laptop that slept) for longer than the worker-lost threshold, its embedded worker's
// heartbeat looks old, but the worker never stopped. Its running tasks must not be failed over
// and run a second time.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerLostAfterMs } from '../../engine/core/model/config.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;
let scratch: string;

beforeAll(async () => {
  t = await startTestEngine();
  scratch = tempDir('ax-stall-');
});

afterAll(async () => {
  await t?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Blocks this process (which is the engine's) the way a starved or suspended process is. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: no timer, no I/O callback runs meanwhile
  }
}

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: a stalled engine process', () => {
  it('does not fail over the tasks of its own worker after a stall longer than the worker-lost threshold', async () => {
    const counter = path.join(scratch, 'starts');
    await t.apply(`
workflow: survives-stall
tasks:
  slow:
    command: ${JSON.stringify(`echo start >> ${JSON.stringify(counter)}; sleep 3; echo done`)}
`);
    const stallMs = workerLostAfterMs(t.engine.config) + 1_000;
    for (let round = 0; round < 3; round++) {
      const run = await t.engine.runWorkflow('survives-stall', { actor: 'test' });
      await waitFor(
        async () => (await t.engine.getRun(run.id)).instances.some((i) => i.state === 'RUNNING' && i.pid !== undefined),
        {
          message: 'the task running',
        },
      );
      stall(stallMs);
      const { run: done, instances } = await t.waitRun(run.id, 20_000);
      expect(done.state).toBe('SUCCESS');
      expect(instances.map((i) => [i.attempt, i.state, i.reason])).toEqual([[1, 'SUCCESS', undefined]]);
      expect(await t.logText(instances[0]!.id)).toEqual(['done']);
    }
    expect(fs.readFileSync(counter, 'utf8')).toBe('start\n'.repeat(3));
    expect(t.alerts.filter((a) => a.includes('failed over') || a.includes('no longer owns'))).toEqual([]);
  });
});

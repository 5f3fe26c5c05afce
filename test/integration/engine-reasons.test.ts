// A reason says why an instance is as it is now: "waiting: no worker is registered" explains a
// wait, and must be gone once a worker took the task (it used to stay on the SUCCESS).
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { systemClock } from '../../engine/adapters/system-clock.ts';
import { Engine } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { dbFile } from '../../engine/hosts/node/data-dir.ts';
import { tempDir } from '../helpers/files.ts';
import { FAST_CONFIG, startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';

let t: TestEngine | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('instance reasons', () => {
  it('a task that waited for a worker loses its "waiting: …" reason once a worker takes it', async () => {
    const dir = tempDir('ax-reasons-');
    // A scheduler with no worker: the run's task waits, and says why.
    const store = await openSqliteStore(dbFile(dir));
    const scheduler = new Engine({
      ...nodeHostDefaults(),
      store,
      coordinator: new MemoryCoordinator(),
      runner: new NodeProcessRunner(),
      clock: systemClock,
      config: FAST_CONFIG,
      nodeId: 'no-worker',
    });
    await scheduler.apply(
      parseWorkflowFile('workflow: hello\ntasks:\n  say:\n    command: echo hi\n', { defaultTimezone: 'UTC' }).spec,
      'test',
    );
    await scheduler.start();
    const run = await scheduler.runWorkflow('hello', { actor: 'test' });
    await waitFor(
      async () => /^waiting: no worker is registered/.test((await scheduler.getRun(run.id)).instances[0]?.reason ?? ''),
      {
        message: 'the task did not say why it waits',
      },
    );
    await scheduler.stop(1_000);
    await store.close();

    // An engine with a worker on the same data: the task runs, and the wait is over.
    t = await startTestEngine({ dir });
    const done = await t.waitRun(run.id);
    expect(done.run.state).toBe('SUCCESS');
    expect(done.instances[0]).toMatchObject({ state: 'SUCCESS', workerId: 'local' });
    expect(done.instances[0]?.reason).toBeUndefined();
  });
});

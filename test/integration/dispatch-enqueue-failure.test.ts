// The dispatcher sends a worker's claimed share to its queue together (one write to Redis on the
// team's coordinator). One message that cannot be queued must neither keep the others from their
// worker nor be lost itself: it stays DISPATCHED with nothing in the queue, the pass says so,
// and the redispatch rule sends it again.
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { systemClock } from '../../engine/adapters/system-clock.ts';
import { Engine } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { dbFile } from '../../engine/hosts/node/data-dir.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';
import type { DispatchMessage } from '../../engine/ports/coordinator.ts';
import { tempDir } from '../helpers/files.ts';
import { FAST_CONFIG } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

/** Refuses the second enqueue it is asked for (the middle of a share), as Redis away for that one command would. */
class FlakyQueue extends MemoryCoordinator {
  failed: number | undefined;
  private calls = 0;
  readonly enqueued: number[] = [];
  override async enqueue(workerId: string, message: DispatchMessage): Promise<void> {
    this.calls += 1;
    if (this.calls === 2) {
      this.failed = message.instanceId;
      throw new Error('queue unavailable (expected by the test)');
    }
    this.enqueued.push(message.instanceId);
    return super.enqueue(workerId, message);
  }
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('dispatch when one enqueue of a share fails', () => {
  it('queues the rest of the share, and the failed one is dispatched again, each task run once', async () => {
    const dir = tempDir('ax-enqueue-fail-');
    const store = await openSqliteStore(dbFile(dir));
    const coordinator = new FlakyQueue();
    const alerts: string[] = [];
    const engine = new Engine({
      ...nodeHostDefaults(),
      store,
      coordinator,
      runner: new NodeProcessRunner(),
      clock: systemClock,
      config: { ...FAST_CONFIG, redispatchAfterMs: 500 },
      nodeId: 'flaky',
      onAlert: (m) => alerts.push(m),
      worker: {
        id: 'local',
        host: os.hostname(),
        pid: process.pid,
        version: 'test',
        labels: [],
        acceptUnlabelled: true,
        maxConcurrency: 4,
        holderGone: () => true,
        baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
    });
    close = async () => {
      await engine.stop(1_000);
      await store.close();
    };
    await engine.apply(
      parseWorkflowFile(
        'workflow: three\ntasks:\n  a:\n    command: "true"\n  b:\n    command: "true"\n  c:\n    command: "true"\n',
        { defaultTimezone: 'UTC' },
      ).spec,
      'test',
    );
    await engine.start();
    // one pass claims all three for the one worker and queues them together; the second is refused
    const run = await engine.runWorkflow('three', { actor: 'test' });

    await waitFor(async () => (await engine.getRun(run.id)).run.state === 'SUCCESS', {
      timeoutMs: 20_000,
      message: 'the run to end SUCCESS',
    });
    const done = await engine.getRun(run.id);
    const victim = coordinator.failed;
    expect(victim).toBeDefined();
    expect(done.instances.map((i) => [i.taskName, i.state, i.attempt]).sort()).toEqual([
      ['a', 'SUCCESS', 1],
      ['b', 'SUCCESS', 1],
      ['c', 'SUCCESS', 1],
    ]);
    // the two others went in that pass; the refused one only once more, by the redispatch rule
    expect(coordinator.enqueued.filter((id) => id === victim)).toHaveLength(1);
    expect(coordinator.enqueued.slice(0, 2).sort()).toEqual(
      done.instances
        .map((i) => i.id)
        .filter((id) => id !== victim)
        .sort(),
    );
    expect(coordinator.enqueued).toHaveLength(3);
    expect(alerts.some((a) => /queue unavailable/.test(a))).toBe(true);
  });
});

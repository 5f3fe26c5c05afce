import { describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import type { EngineEvent } from '../../engine/ports/coordinator.ts';
import { coordinatorContract } from './coordinator.contract.ts';

coordinatorContract('memory (fake clock)', async () => {
  let now = 1_700_000_000_000;
  const coordinator = new MemoryCoordinator({ now: () => now });
  return {
    coordinator,
    advance: (ms: number) => {
      now += ms;
    },
    teardown: () => coordinator.close(),
  };
});

// Memory-only: the error hook is an option of this adapter, not part of the port.
describe('MemoryCoordinator', () => {
  it('reports a throwing subscriber to onSubscriberError', async () => {
    const reported: Array<{ error: unknown; event: EngineEvent }> = [];
    const coordinator = new MemoryCoordinator({ onSubscriberError: (error, event) => reported.push({ error, event }) });
    const failure = new Error('boom');
    await coordinator.subscribe(() => {
      throw failure;
    });
    const event: EngineEvent = { type: 'alert', message: 'x', at: 1 };
    await coordinator.publish(event);
    expect(reported).toEqual([{ error: failure, event }]);
    await coordinator.close();
  });

  it('refuses subscribers after close', async () => {
    const coordinator = new MemoryCoordinator();
    await coordinator.close();
    await expect(coordinator.subscribe(() => {})).rejects.toThrow(/closed/);
  });
});

import type { EngineEvent } from '../../ports/coordinator.ts';

/** The live event for an instance's state, as every publisher sends it. */
export function instanceEvent(
  inst: { id: number; runId: number; taskName: string; attempt: number; state: string },
  at: number,
): EngineEvent {
  return {
    type: 'instance',
    instanceId: inst.id,
    runId: inst.runId,
    taskName: inst.taskName,
    attempt: inst.attempt,
    state: inst.state,
    at,
  };
}

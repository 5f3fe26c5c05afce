// A system line at the end of a finished attempt's log: its worker closed the log before the
// outcome was recorded, so only these notes come after (a retry announced, a process the task
// left running). Best effort: the line explains, it decides nothing.
import type { LogLine } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { LogStore } from '../../ports/store.ts';

export async function appendLateLine(
  store: LogStore,
  coordinator: Coordinator,
  clock: Clock,
  instanceId: number,
  text: string,
): Promise<void> {
  // Two notes may race for the next seq: the loser reads the end again and takes the one after.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const { lastSeq } = await store.logExtent(instanceId);
      const line: LogLine = { instanceId, seq: lastSeq + 1, stream: 'system', ts: clock.now(), line: text };
      await store.appendLogs([line]);
      await coordinator.publish({ type: 'log', ...line }).catch(() => undefined);
      return;
    } catch {
      // the seq was taken meanwhile, or the store refused the write: try again, then give up
    }
  }
}

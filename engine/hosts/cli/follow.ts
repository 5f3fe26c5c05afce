// Following something live from the CLI: wake on the engine's event stream, with a slow poll as
// a safety net for events lost on the way (a Redis hiccup), never a busy poll.
import type { EngineApi } from '../../api/engine-api.ts';
import type { EngineEvent, Topic } from '../../api/events.ts';

export interface Follower {
  /** resolves at the next matching event, or after the safety-net interval */
  next(): Promise<void>;
  close(): void;
}

export async function follow(api: EngineApi, topics: Topic[], matches: (e: EngineEvent) => boolean, safetyNetMs = 2_000): Promise<Follower> {
  let pending = false;
  let wake: (() => void) | undefined;
  const unsubscribe = await api.subscribe(topics, (e) => {
    if (!matches(e)) return;
    pending = true;
    wake?.();
  });
  return {
    async next() {
      if (!pending) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, safetyNetMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
      pending = false;
    },
    close: unsubscribe,
  };
}

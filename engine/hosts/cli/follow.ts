// Following something live from the CLI: wake on the engine's event stream, with a slow poll as
// a safety net for events lost on the way (a Redis hiccup), never a busy poll.
import type { EngineApi } from '../../api/engine-api.ts';
import type { EngineEvent, Topic } from '../../api/events.ts';

export interface Follower {
  /** resolves at the next matching event (true), or after the safety-net interval (false) */
  next(): Promise<boolean>;
  close(): void;
}

export async function follow(
  api: EngineApi,
  topics: Topic[],
  matches: (e: EngineEvent) => boolean,
  safetyNetMs = 2_000,
): Promise<Follower> {
  let pending = false;
  let wake: (() => void) | undefined;
  const unsubscribe = await api.subscribe(topics, (e) => {
    if (!matches(e)) return;
    pending = true;
    wake?.();
  });
  return {
    async next() {
      let woken = true;
      if (!pending) {
        woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), safetyNetMs);
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        wake = undefined;
      }
      pending = false;
      return woken;
    },
    close: unsubscribe,
  };
}

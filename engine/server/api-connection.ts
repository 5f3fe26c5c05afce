// One client of the EngineApi over any transport (WebSocket, MessagePort): requests go to
// dispatchRequest, watch/unwatch messages change which event topics this client receives.
import type { ApiRequest, EngineApi, EventMessage, WatchMessage } from '../api/engine-api.ts';
import { isTopic, type Topic } from '../api/events.ts';
import { dispatchRequest } from './api-dispatch.ts';

export interface ApiConnection {
  /** handles one decoded incoming message */
  receive(message: unknown): void;
  /** ends every subscription of this client */
  close(): void;
}

export interface ConnectionOptions {
  api: EngineApi;
  send(message: unknown): void;
  /** false when events must be dropped (a slow client's buffer is full); requests are still answered */
  canSendEvent?: () => boolean;
  /** told once each time events were dropped for this client */
  onDropped?: (count: number) => void;
}

/** What a client is told when its events were dropped (see canSendEvent). */
export function droppedNotice(count: number): EventMessage {
  return { event: { type: 'alert', message: `${count} live events were dropped: this client reads too slowly`, at: Date.now() } };
}

export function serveConnection(options: ConnectionOptions): ApiConnection {
  const subscriptions = new Map<Topic, Promise<() => void>>();
  let dropped = 0;
  let closed = false;

  function watch(topics: Topic[]): void {
    for (const topic of topics) {
      if (subscriptions.has(topic)) continue;
      subscriptions.set(
        topic,
        options.api.subscribe([topic], (event) => {
          if (closed) return;
          if (options.canSendEvent && !options.canSendEvent()) {
            dropped++;
            return;
          }
          if (dropped > 0) {
            options.onDropped?.(dropped);
            dropped = 0;
          }
          options.send({ event });
        }),
      );
    }
  }

  function unwatch(topics: Topic[]): void {
    for (const topic of topics) {
      const sub = subscriptions.get(topic);
      subscriptions.delete(topic);
      void sub?.then((stop) => stop()).catch(() => undefined);
    }
  }

  return {
    receive(message) {
      if (closed) return;
      const m = message as Partial<ApiRequest & WatchMessage> | null;
      if (m && typeof m === 'object' && !('method' in m) && (Array.isArray(m.watch) || Array.isArray(m.unwatch))) {
        const valid = (list: unknown[] | undefined) => (list ?? []).filter(isTopic).slice(0, 100);
        watch(valid(m.watch));
        unwatch(valid(m.unwatch));
        return;
      }
      void dispatchRequest(options.api, m as ApiRequest).then((response) => {
        if (!closed) options.send(response);
      });
    },
    close() {
      closed = true;
      unwatch([...subscriptions.keys()]);
    },
  };
}

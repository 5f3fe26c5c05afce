// One client of the EngineApi over any transport (WebSocket, MessagePort): requests go to
// dispatchRequest, watch/unwatch messages change which event topics this client receives.
//
// A transport that can say how much it has not sent yet gives a send budget: answers and events
// share it. Past it, events are dropped (with one notice) and no further request is started;
// requests already received wait, and past a few of them the transport stops reading (the
// client's own writes then back up, TCP's backpressure). So a client that asks and never reads
// holds at most the budget plus a few answers, never an answer per request.
import type { ApiRequest, EngineApi, EventMessage, WatchMessage } from '../api/engine-api.ts';
import type { EngineEvent } from '../api/events.ts';
import { isTopic, type Topic } from '../api/events.ts';
import { type ConnectionIdentity, dispatchRequest } from './api-dispatch.ts';
import { topicGate } from './topic-gate.ts';

export interface ApiConnection {
  /** handles one decoded incoming message */
  receive(message: unknown): void;
  /** the transport sent some of what it held (with a budget): waiting requests may go on */
  drained(): void;
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
  /** who the transport authenticated: the actor of every change this client makes */
  identity?: ConnectionIdentity;
  /** the transport's send budget (see the top of this file); without it every request is started at once */
  budget?: SendBudget;
}

export interface SendBudget {
  /** bytes handed to the transport and not yet sent */
  unsent(): number;
  /** past this many unsent bytes, nothing more is started or sent but answers already started */
  limit: number;
  /** stop / start reading the client's requests */
  pauseReading(): void;
  resumeReading(): void;
}

/** requests of one client run at once at most; the others wait their turn in order */
const MAX_IN_FLIGHT = 8;
/** requests received and waiting, past which the transport stops reading */
const MAX_WAITING = 64;

/** What a client is told when its events were dropped (see canSendEvent). */
export function droppedNotice(count: number): EventMessage {
  return {
    event: {
      type: 'alert',
      message: `${count} live events were dropped: this client reads too slowly`,
      at: Date.now(),
    },
  };
}

export function serveConnection(options: ConnectionOptions): ApiConnection {
  const subscriptions = new Map<Topic, Promise<() => void>>();
  const waiting: ApiRequest[] = [];
  const { budget } = options;
  let inFlight = 0;
  let pumpQueued = false;
  let paused = false;
  let dropped = 0;
  let closed = false;

  const overBudget = () => budget !== undefined && budget.unsent() >= budget.limit;
  const canSendEvent = () => !overBudget() && (!options.canSendEvent || options.canSendEvent());

  /** starts what may start; stops or resumes reading by what waits and what is unsent */
  function pump(): void {
    while (!closed && inFlight < MAX_IN_FLIGHT && waiting.length > 0 && !overBudget()) {
      const request = waiting.shift() as ApiRequest;
      inFlight++;
      void dispatchRequest(options.api, request, options.identity).then((response) => {
        inFlight--;
        if (closed) return;
        options.send(response);
        // The next start waits for a turn of the event loop: answers the store gives at once
        // (SQLite) would otherwise chain in microtasks and starve every other client's I/O.
        if (!pumpQueued) {
          pumpQueued = true;
          setImmediate(() => {
            pumpQueued = false;
            pump();
          });
        }
      });
    }
    if (!budget || closed) return;
    const full = waiting.length >= MAX_WAITING || (waiting.length > 0 && overBudget());
    if (full && !paused) {
      paused = true;
      budget.pauseReading();
    } else if (paused && waiting.length < MAX_WAITING / 2 && !overBudget()) {
      paused = false;
      budget.resumeReading();
    }
  }

  const deliver = (event: EngineEvent) => {
    if (closed) return;
    if (!canSendEvent()) {
      dropped++;
      return;
    }
    if (dropped > 0) {
      options.onDropped?.(dropped);
      dropped = 0;
    }
    options.send({ event });
  };
  // team mode: topics and events checked against who this is (topic-gate.ts)
  const gate = topicGate(options.api, options.identity, deliver, (message) =>
    options.send({ id: 0, error: { code: 'forbidden', message } }),
  );

  function watch(topics: Topic[]): void {
    for (const topic of topics) {
      if (subscriptions.has(topic)) continue;
      if (!gate) {
        subscriptions.set(topic, options.api.subscribe([topic], deliver));
        continue;
      }
      const subscribed = gate.admit(topic).then((ok) => {
        if (!ok || closed) {
          if (subscriptions.get(topic) === subscribed) subscriptions.delete(topic);
          return () => undefined;
        }
        return options.api.subscribe([topic], gate.deliver);
      });
      subscriptions.set(topic, subscribed);
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
      if (!budget) {
        void dispatchRequest(options.api, m as ApiRequest, options.identity).then((response) => {
          if (!closed) options.send(response);
        });
        return;
      }
      waiting.push(m as ApiRequest);
      pump();
    },
    drained() {
      pump();
    },
    close() {
      closed = true;
      waiting.length = 0;
      unwatch([...subscriptions.keys()]);
    },
  };
}

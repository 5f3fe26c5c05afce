// One EngineApi client over any message transport: WebSocket in the CLI and the browser,
// MessagePort in the desktop app, an in-memory pair in tests. Requests are matched to replies
// by id; subscriptions are counted per topic so the server is told only when a topic's first
// handler arrives or its last one leaves.
import { API_METHODS, type ApiResponse, type EngineApi, type EventMessage, type WatchMessage } from './engine-api.ts';
import { AxError, type AxErrorCode, type ValidationProblem } from './errors.ts';
import { type EngineEvent, type Topic, topicOf } from './events.ts';

/**
 * The WebSocket close code with which `ax serve` says it stops on purpose (a drain of its node,
 * SIGTERM), its reason saying why; a transport reports such a close as ENGINE_STOPPED + reason,
 * so a page can say "the engine stopped" instead of "reconnecting" (4000-4999: the application's).
 */
export const ENGINE_STOPPED_CODE = 4000;
export const ENGINE_STOPPED = 'engine stopped: ';

/** A bidirectional channel of JSON-serialisable messages. */
export interface MessageTransport {
  send(message: unknown): void;
  /** registers the receiver of every incoming message (called once) */
  onMessage(handler: (message: unknown) => void): void;
  /** registers what to do when the channel closes (called once) */
  onClose(handler: (reason: string) => void): void;
  close(): void;
}

export interface ApiClient extends EngineApi {
  close(): void;
  /** resolves when the transport closes */
  readonly closed: Promise<string>;
}

export function createApiClient(transport: MessageTransport, options: { timeoutMs?: number } = {}): ApiClient {
  let nextId = 1;
  let isClosed = false;
  const pending = new Map<
    number,
    { resolve(v: unknown): void; reject(e: Error): void; timer?: ReturnType<typeof setTimeout> }
  >();
  const handlers = new Map<Topic, Set<(event: EngineEvent) => void>>();
  let closedResolve: (reason: string) => void = () => undefined;
  const closed = new Promise<string>((resolve) => (closedResolve = resolve));

  transport.onMessage((raw) => {
    const msg = raw as Partial<ApiResponse & EventMessage>;
    if (msg && typeof msg === 'object' && 'event' in msg && msg.event) {
      const event = msg.event;
      for (const h of handlers.get(topicOf(event)) ?? []) h(event);
      return;
    }
    const id = (msg as { id?: number }).id;
    const p = id === undefined ? undefined : pending.get(id);
    if (!p || id === undefined) return;
    pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    const response = msg as ApiResponse;
    if ('error' in response) {
      p.reject(
        new AxError(
          response.error.code as AxErrorCode,
          response.error.message,
          (response.error.problems ?? []) as ValidationProblem[],
        ),
      );
    } else p.resolve(response.result);
  });
  transport.onClose((reason) => {
    isClosed = true;
    for (const p of pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new AxError('unavailable', `the engine closed the connection${reason ? `: ${reason}` : ''}`));
    }
    pending.clear();
    closedResolve(reason);
  });

  const call = (method: string, params: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      if (isClosed) return reject(new AxError('unavailable', 'the connection to the engine is closed'));
      const id = nextId++;
      const entry: { resolve(v: unknown): void; reject(e: Error): void; timer?: ReturnType<typeof setTimeout> } = {
        resolve,
        reject,
      };
      if (options.timeoutMs) {
        entry.timer = setTimeout(() => {
          pending.delete(id);
          reject(new AxError('unavailable', `the engine did not answer ${method} within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
      }
      pending.set(id, entry);
      transport.send({ id, method, params });
    });

  const api = Object.fromEntries(
    API_METHODS.map((m) => [m, (...params: unknown[]) => call(m, params)]),
  ) as unknown as Omit<EngineApi, 'subscribe'>;

  async function subscribe(topics: Topic[], handler: (event: EngineEvent) => void): Promise<() => void> {
    const added: Topic[] = [];
    for (const t of new Set(topics)) {
      let set = handlers.get(t);
      if (!set) handlers.set(t, (set = new Set()));
      if (set.size === 0) added.push(t);
      set.add(handler);
    }
    if (added.length && !isClosed) transport.send({ watch: added } satisfies WatchMessage);
    return () => {
      const removed: Topic[] = [];
      for (const t of new Set(topics)) {
        const set = handlers.get(t);
        if (!set?.delete(handler)) continue;
        if (set.size === 0) {
          handlers.delete(t);
          removed.push(t);
        }
      }
      if (removed.length && !isClosed) transport.send({ unwatch: removed } satisfies WatchMessage);
    };
  }

  return Object.assign(api, {
    subscribe,
    closed,
    close: () => transport.close(),
  }) as ApiClient;
}

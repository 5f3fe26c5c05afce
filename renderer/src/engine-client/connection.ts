// One long-lived, self-healing connection to the engine. The pages hold a single stable ApiClient
// (this object's `api`): calls made while the socket is down wait for the next connection, and
// event subscriptions are replayed on every new socket, so no page has to know about reconnects.
import { createApiClient, ENGINE_STOPPED, type ApiClient, type MessageTransport } from '../../../engine/api/client.ts';
import { API_METHODS, type EngineApi } from '../../../engine/api/engine-api.ts';
import { AxError } from '../../../engine/api/errors.ts';
import type { EngineEvent, Topic } from '../../../engine/api/events.ts';

/** `stopped`: the engine closed the socket saying it stops on purpose (stopReason says why); tried again in the background like `reconnecting` */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'stopped' | 'signed-out';

interface Subscription {
  topics: Topic[];
  handler: (event: EngineEvent) => void;
  unsubscribe?: () => void;
}

export interface ConnectionOptions {
  /** opens a fresh transport; rejects when the engine cannot be reached */
  connect: () => Promise<MessageTransport>;
  /** whether the session is still valid (false → the sign-in screen, not endless retries) */
  checkSession: () => Promise<boolean>;
  /** how long a call waits for a connection before failing */
  callWaitMs?: number;
  /** delays between reconnect attempts; the last one repeats */
  backoffMs?: number[];
}

export class EngineConnection {
  readonly api: ApiClient;
  private current?: ApiClient;
  private statusValue: ConnectionStatus = 'connecting';
  private readonly statusListeners = new Set<(status: ConnectionStatus) => void>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();
  private waiters: { resolve(client: ApiClient): void; reject(error: Error): void }[] = [];
  private attempt = 0;
  private everOpened = false;
  private stopped = true;
  /** bumped by start/stop so a connect that resolves after a stop is dropped (React StrictMode) */
  private generation = 0;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private stoppedBecause?: string;

  constructor(private readonly options: ConnectionOptions) {
    const methods = Object.fromEntries(
      API_METHODS.map((method) => [
        method,
        async (...params: unknown[]) => {
          const client = await this.ready();
          return (client[method] as (...args: unknown[]) => Promise<unknown>)(...params);
        },
      ]),
    ) as unknown as Omit<EngineApi, 'subscribe'>;
    let closedResolve: (reason: string) => void = () => undefined;
    const closed = new Promise<string>((resolve) => (closedResolve = resolve));
    this.api = Object.assign(methods, {
      subscribe: (topics: Topic[], handler: (event: EngineEvent) => void) => this.subscribe(topics, handler),
      closed,
      close: () => {
        this.stop();
        closedResolve('closed by the page');
      },
    }) as ApiClient;
  }

  get status(): ConnectionStatus {
    return this.statusValue;
  }

  /** why the engine said it stopped (status `stopped`), e.g. "this node was drained …" */
  get stopReason(): string | undefined {
    return this.stoppedBecause;
  }

  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** called after the socket came back, so cached data can be refetched (events were missed) */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** opens the connection; a no-op while it is already started */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.generation += 1;
    void this.open(this.generation);
  }

  stop(): void {
    this.stopped = true;
    this.generation += 1;
    clearTimeout(this.retryTimer);
    this.current?.close();
    this.current = undefined;
    // pending calls are not failed here: a restart (React StrictMode remounts) serves them, and
    // otherwise they time out
  }

  private setStatus(status: ConnectionStatus): void {
    if (status === this.statusValue) return;
    this.statusValue = status;
    for (const listener of this.statusListeners) listener(status);
  }

  private async open(generation: number): Promise<void> {
    if (this.stopped || generation !== this.generation) return;
    let transport: MessageTransport;
    try {
      transport = await this.options.connect();
    } catch {
      if (generation === this.generation) await this.afterFailure(generation);
      return;
    }
    if (this.stopped || generation !== this.generation) return transport.close();
    const client = createApiClient(transport);
    this.current = client;
    this.attempt = 0;
    this.stoppedBecause = undefined;
    for (const sub of this.subscriptions) void this.attach(sub, client);
    this.setStatus('open');
    performance.mark('ax:socket-open');
    for (const waiter of this.waiters) waiter.resolve(client);
    this.waiters = [];
    if (this.everOpened) for (const listener of this.reconnectListeners) listener();
    this.everOpened = true;
    void client.closed.then((reason) => {
      if (this.current !== client) return;
      this.current = undefined;
      for (const sub of this.subscriptions) sub.unsubscribe = undefined;
      if (reason.startsWith(ENGINE_STOPPED)) this.stoppedBecause = reason.slice(ENGINE_STOPPED.length);
      // say so at once: the banner must not wait for the session check below
      if (!this.stopped) this.setStatus(this.stoppedBecause === undefined ? 'reconnecting' : 'stopped');
      if (!this.stopped && generation === this.generation) void this.afterFailure(generation);
    });
  }

  private async afterFailure(generation: number): Promise<void> {
    if (this.stopped || generation !== this.generation) return;
    let signedIn = true;
    try {
      signedIn = await this.options.checkSession();
    } catch {
      // the engine is down: keep trying, the session may still be good when it is back
    }
    if (generation !== this.generation) return;
    if (!signedIn) {
      this.setStatus('signed-out');
      this.rejectWaiters(new AxError('unavailable', 'signed out: run `ax open` for a fresh sign-in link'));
      return;
    }
    // a stopped engine is looked for again too (it may be started again), still said as stopped
    this.setStatus(this.stoppedBecause !== undefined ? 'stopped' : this.everOpened ? 'reconnecting' : 'connecting');
    const delays = this.options.backoffMs ?? [500, 1_000, 2_000, 4_000, 5_000];
    const delay = delays[Math.min(this.attempt, delays.length - 1)] ?? 5_000;
    this.attempt += 1;
    this.retryTimer = setTimeout(() => void this.open(generation), delay);
  }

  private ready(): Promise<ApiClient> {
    if (this.current) return Promise.resolve(this.current);
    if (this.statusValue === 'signed-out') {
      return Promise.reject(new AxError('unavailable', 'not connected to the engine'));
    }
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject };
      this.waiters.push(waiter);
      setTimeout(() => {
        if (!this.waiters.includes(waiter)) return;
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new AxError('unavailable', 'the engine cannot be reached; retrying in the background'));
      }, this.options.callWaitMs ?? 15_000);
    });
  }

  private rejectWaiters(error: Error): void {
    for (const waiter of this.waiters) waiter.reject(error);
    this.waiters = [];
  }

  private async attach(sub: Subscription, client: ApiClient): Promise<void> {
    const unsubscribe = await client.subscribe(sub.topics, sub.handler);
    // removed, or the socket was replaced, while the watch message was in flight
    if (!this.subscriptions.has(sub) || this.current !== client) unsubscribe();
    else sub.unsubscribe = unsubscribe;
  }

  private async subscribe(topics: Topic[], handler: (event: EngineEvent) => void): Promise<() => void> {
    const sub: Subscription = { topics, handler };
    this.subscriptions.add(sub);
    if (this.current) await this.attach(sub, this.current);
    return () => {
      this.subscriptions.delete(sub);
      sub.unsubscribe?.();
      sub.unsubscribe = undefined;
    };
  }
}

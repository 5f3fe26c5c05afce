// An edge worker's one connection to its server (api/worker-protocol.ts): WebSocket /worker with
// its token, calls answered by id, live events pushed, and reconnection with backoff whenever the
// socket drops. A call made while the link is down fails at once as 'unavailable', so the
// worker's own retry loops (the take loop, persistently, the log writer) wait it out exactly as a
// database worker waits out its database; a refusal (401/403, or the token revoked meanwhile) is
// final and said once.
import WebSocket from 'ws';
import { AxError, type AxErrorCode } from '../../api/errors.ts';
import type { EngineEvent } from '../../api/events.ts';
import {
  decodeFrame,
  encodeFrame,
  type Hello,
  type Welcome,
  WORKER_ID_HEADER,
  WORKER_PATH,
  WORKER_REFUSED_CODE,
  type WorkerCall,
  type WorkerFrame,
} from '../../api/worker-protocol.ts';
import { backoffDelay } from '../../core/model/backoff.ts';

export interface WorkerLinkOptions {
  /** the server: https://HOST:PORT (wss), http://… (ws), or the ws(s):// URL itself */
  server: string;
  token: string;
  /** PEM of a private CA the server's certificate is signed by */
  ca?: string | Buffer;
  hello: Hello;
  onEvent: (event: EngineEvent) => void;
  /** the link's news: connected, lost (with why), reconnecting */
  onStatus: (message: string) => void;
  /** the server refused this token (at the upgrade, or later): the worker must stop */
  onRefused: (message: string) => void;
  /** a call with no answer this long fails as 'unavailable'; default 60 s */
  callTimeoutMs?: number;
  /** pings the server this often; one unanswered ping drops the socket; default 5 s */
  pingMs?: number;
}

/** The WebSocket URL of a server's worker endpoint. */
export function workerUrl(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new AxError('validation', `--server ${server} is not a URL: give https://HOST:PORT (or http://HOST:PORT)`);
  }
  const scheme = { 'https:': 'wss:', 'http:': 'ws:', 'wss:': 'wss:', 'ws:': 'ws:' }[url.protocol];
  if (!scheme) throw new AxError('validation', `--server ${server}: use https://HOST:PORT (or http://HOST:PORT)`);
  url.protocol = scheme;
  if (!url.pathname.endsWith(WORKER_PATH)) url.pathname = `${url.pathname.replace(/\/$/, '')}${WORKER_PATH}`;
  return url.toString();
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class WorkerLink {
  private ws: WebSocket | undefined;
  private ready = false;
  private stopped = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failures = 0;
  private welcome: Welcome | undefined;
  private firstWelcome: ((w: Welcome) => void) | undefined;
  private firstRefusal: ((err: Error) => void) | undefined;
  readonly url: string;

  constructor(private readonly options: WorkerLinkOptions) {
    this.url = workerUrl(options.server);
  }

  /** Connects (retrying while the server cannot be reached) and says hello; rejects when refused. */
  connect(): Promise<Welcome> {
    return new Promise<Welcome>((resolve, reject) => {
      this.firstWelcome = resolve;
      this.firstRefusal = reject;
      this.open();
    });
  }

  get connected(): boolean {
    return this.ready;
  }

  call(name: WorkerCall, args: unknown[]): Promise<unknown> {
    return this.send(name, args, false);
  }

  private send(name: WorkerCall, args: unknown[], beforeReady: boolean): Promise<unknown> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || (!this.ready && !beforeReady))
      return Promise.reject(
        new AxError('unavailable', `no connection to the server ${this.options.server} now: reconnecting`),
      );
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AxError('unavailable', `the server ${this.options.server} did not answer ${name} in time`));
        // an answer this late means the socket is stuck: a new one is made
        ws.terminate();
      }, this.options.callTimeoutMs ?? 60_000);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      ws.send(encodeFrame({ id, call: name, args }));
    });
  }

  private open(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.url, {
      headers: {
        authorization: `Bearer ${this.options.token}`,
        ...(this.options.hello.workerId && { [WORKER_ID_HEADER]: this.options.hello.workerId }),
      },
      ...(this.options.ca && { ca: this.options.ca }),
      maxPayload: 64 * 1024 * 1024,
      handshakeTimeout: 15_000,
    });
    this.ws = ws;
    let alive = true;
    let ping: NodeJS.Timeout | undefined;
    /** why this socket failed, as first seen (an upgrade refused, a connect error) */
    let why: string | undefined;
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        let message = body;
        try {
          message = (JSON.parse(body) as { error?: string }).error ?? body;
        } catch {
          // not JSON: said as it came
        }
        const text = `the server ${this.options.server} refused this worker (HTTP ${res.statusCode}): ${message || res.statusMessage}`;
        if (res.statusCode === 401 || res.statusCode === 403) this.refused(text);
        else why ??= text;
        ws.terminate();
      });
    });
    ws.on('open', () => {
      ping = setInterval(() => {
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
      }, this.options.pingMs ?? 5_000);
      ping.unref();
      void this.send('hello', [this.options.hello], true).then(
        (w) => this.welcomed(w as Welcome),
        (err: Error) => {
          if (err instanceof AxError && err.code === 'forbidden') this.refused(err.message);
          else {
            why ??= `hello refused: ${err.message}`;
            ws.terminate();
          }
        },
      );
    });
    ws.on('pong', () => (alive = true));
    ws.on('message', (data) => this.receive(String(data)));
    ws.on('error', (err) => {
      why ??= `cannot reach ${this.url}: ${err.message}`;
    });
    ws.on('close', (code, reason) => {
      clearInterval(ping);
      const was = this.ready;
      this.ready = false;
      this.failAll(`the connection to ${this.options.server} dropped`);
      if (code === WORKER_REFUSED_CODE) return this.refused(`the server closed the connection: ${String(reason)}`);
      if (this.stopped) return;
      this.say(
        was
          ? `the connection to ${this.options.server} dropped (${code}${reason.length ? `: ${String(reason)}` : ''})`
          : (why ?? `cannot reach ${this.url}`),
      );
      this.retry();
    });
  }

  private welcomed(w: Welcome): void {
    if (this.welcome && w.workerId !== this.welcome.workerId) {
      this.refused(`the server now names this worker ${w.workerId}, not ${this.welcome.workerId}`);
      return;
    }
    this.welcome = w;
    this.ready = true;
    this.failures = 0;
    this.lastSaid = '';
    this.options.onStatus(`connected to ${this.options.server} (node ${w.server}) as worker ${w.workerId}`);
    this.firstWelcome?.(w);
    this.firstWelcome = undefined;
    this.firstRefusal = undefined;
  }

  private lastSaid = '';

  /** the link's news, each once in a row (a server down for minutes is said once, not every retry) */
  private say(why: string): void {
    if (why !== this.lastSaid) this.options.onStatus(`${why}; reconnecting`);
    this.lastSaid = why;
  }

  private retryTimer: NodeJS.Timeout | undefined;

  private retry(): void {
    if (this.stopped || this.retryTimer) return;
    const delay = backoffDelay({ firstMs: 200, maxMs: 5_000 }, ++this.failures);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.open();
    }, delay);
  }

  private refused(why: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.ws?.terminate();
    if (this.firstRefusal) this.firstRefusal(new AxError('unauthenticated', why));
    else this.options.onRefused(why);
    this.firstRefusal = undefined;
  }

  private receive(text: string): void {
    let frame: WorkerFrame;
    try {
      frame = decodeFrame(text);
    } catch {
      return;
    }
    if ('event' in frame) return this.options.onEvent(frame.event);
    if (!('id' in frame)) return;
    const p = this.pending.get(frame.id);
    if (!p) return;
    this.pending.delete(frame.id);
    clearTimeout(p.timer);
    if ('error' in frame) p.reject(new AxError(frame.error.code as AxErrorCode, frame.error.message));
    else if ('result' in frame) p.resolve(frame.result);
    else p.resolve(undefined);
  }

  private failAll(why: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new AxError('unavailable', `${why}: reconnecting`));
      this.pending.delete(id);
    }
  }

  close(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.ws?.close(1000, 'the worker stopped');
    this.ws?.terminate();
  }
}

import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { AxError } from '../../api/errors.ts';
import type { LuaScript } from './redis-scripts.ts';

/** A single Redis or a Redis Cluster (redis-cluster.ts): the coordinator's commands are the same on both. */
export type RedisClient = Redis | Cluster;

export interface RedisConnectionOptions {
  /** how long a call waits for a dropped connection to come back, counted from the drop */
  readyTimeoutMs: number;
  /** every connection error ioredis emits (it keeps reconnecting after each) */
  onError: (error: Error) => void;
}

/**
 * ioredis options for a coordinator connection. ioredis reconnects forever (retryStrategy); what
 * these bound is how long a *caller* waits. No offline queue: a command issued while the link is
 * down would otherwise run whenever Redis returns, long after its caller gave up (a start lock
 * nobody knows it holds). maxRetriesPerRequest 0 fails in-flight commands when the link drops
 * instead of resending them later; commandTimeout bounds a Redis that accepts but never answers.
 */
export function connectionOptions(role: string, commandTimeoutMs: number): RedisOptions {
  return {
    connectionName: `ax-coordinator-${role}`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: commandTimeoutMs,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
  };
}

/**
 * One ioredis connection and what is known of its health. A call made while the link is down
 * waits for the reconnect at most readyTimeoutMs counted from the moment it went down: a blip is
 * absorbed, a real outage fails every call at once with an error naming Redis and the cause.
 */
export class RedisConnection {
  private downSince: number | null;
  private lastError: Error | undefined;
  private readonly readyWaiters = new Set<() => void>();
  private closed = false;
  private everReady: boolean;
  /** this turn's commands are held back until its end (see batchWrites) */
  private corked = false;
  /** called when the link is ready again after a drop (not on the first connect) */
  onReconnect: () => void = () => undefined;

  constructor(
    readonly client: RedisClient,
    private readonly options: RedisConnectionOptions,
  ) {
    this.everReady = client.status === 'ready';
    this.downSince = this.everReady ? null : Date.now();
    // Without an 'error' listener ioredis's errors would be unhandled and end the process.
    client.on('error', (error: Error) => {
      // Once closed, what the link says is no news: closed mid-handshake, ioredis's ready check
      // fails on the ended stream and emits that as an error.
      if (this.closed) return;
      this.lastError = error;
      options.onError(error);
    });
    client.on('close', () => {
      this.downSince ??= Date.now();
    });
    client.on('ready', () => {
      this.downSince = null;
      this.lastError = undefined;
      for (const wake of [...this.readyWaiters]) wake();
      if (this.everReady) this.onReconnect();
      this.everReady = true;
    });
  }

  /** host:port (never the password); a cluster's known masters */
  get where(): string {
    if (isCluster(this.client)) {
      const masters = this.client.nodes('master').map((node) => `${node.options.host}:${node.options.port}`);
      return `the cluster ${masters.length ? masters.join(',') : '(no master reachable)'}`;
    }
    const o = this.client.options;
    return o.path ? o.path : `${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
  }

  /** Runs one command (or a few sent together) once the link is up; errors say what to do. */
  async call<T>(what: string, command: (client: RedisClient) => Promise<T>): Promise<T> {
    await this.ready(what);
    this.batchWrites();
    try {
      return await command(this.client);
    } catch (error) {
      throw this.explain(what, error);
    }
  }

  /** EVALSHA, falling back to EVAL when Redis lost its script cache (a restart). */
  script(script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.call(script.name, async (client) => {
      try {
        return await client.evalsha(script.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return await client.eval(script.source, keys.length, ...keys, ...args);
      }
    });
  }

  /**
   * Holds the socket's writes back until the event loop's check phase, so the commands issued
   * in one turn (a task's lock release and ack; the start locks, events and dispatches of a
   * batch) leave in one write, and their replies mostly come back in one read: one system call
   * each way instead of one per command, on both ends. Each command stays a command of its own
   * (its reply, error and timeout); unlike ioredis's auto-pipelining, nothing waits for an
   * earlier batch's replies. A cluster client spreads commands over node sockets: left as is.
   */
  private batchWrites(): void {
    if (this.corked || isCluster(this.client)) return;
    const socket = this.client.stream;
    if (!socket || socket.writableCorked > 0) return;
    socket.cork();
    this.corked = true;
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  /** Ends the connection for good: QUIT when it is up, otherwise just stop reconnecting. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const wake of [...this.readyWaiters]) wake();
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // fall through: the link died while quitting
      }
    }
    this.client.disconnect();
  }

  private async ready(what: string): Promise<void> {
    if (this.closed) throw closedError();
    if (this.client.status === 'ready') return;
    const left = (this.downSince ?? Date.now()) + this.options.readyTimeoutMs - Date.now();
    if (left <= 0) throw this.unreachable(what);
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.readyWaiters.delete(done);
        if (this.closed) reject(closedError());
        else if (this.client.status === 'ready') resolve();
        else reject(this.unreachable(what));
      };
      const timer = setTimeout(done, left);
      this.readyWaiters.add(done);
    });
  }

  private unreachable(what: string): AxError {
    const down = this.downSince === null ? '' : `, down for ${Math.round((Date.now() - this.downSince) / 100) / 10} s`;
    // A cluster client's "Failed to refresh slots cache" carries what the last node said.
    const nodeError = (this.lastError as { lastNodeError?: Error } | undefined)?.lastNodeError;
    const said = this.lastError ? `${this.lastError.message}${nodeError ? ` ${nodeError.message}` : ''}` : '';
    const cause = said ? ` (${said})` : '';
    const fix = /cluster support disabled/.test(said)
      ? ': this Redis is not a cluster, so drop --redis-cluster and AX_REDIS_CLUSTER=1'
      : ': check that Redis runs and the URL is right; the coordinator keeps reconnecting';
    const error = new AxError(
      'unavailable',
      `Redis at ${this.where} is unreachable${cause}${down}, so ${what} failed${fix}`,
    );
    error.cause = this.lastError;
    return error;
  }

  private explain(what: string, error: unknown): AxError {
    if (error instanceof AxError) return error;
    const message = error instanceof Error ? error.message : String(error);
    // A ReplyError is Redis refusing the command (a bug, or foreign data under our prefix); any
    // other failure is the link: timed out, dropped mid-command, not writable.
    const refused = error instanceof Error && error.name === 'ReplyError';
    // A single-Redis client sent to a cluster node gets MOVED for most keys: say what to set.
    const hint = refused && /^(MOVED|ASK|CROSSSLOT) /.test(message) && !isCluster(this.client) ? CLUSTER_HINT : '';
    const result = refused
      ? new AxError('internal', `Redis at ${this.where} refused ${what}: ${message}${hint}`)
      : new AxError(
          'unavailable',
          `Redis at ${this.where} did not complete ${what} (${message}): it may or may not have run; check that Redis runs, the coordinator keeps reconnecting`,
        );
    result.cause = error;
    return result;
  }
}

const CLUSTER_HINT =
  ': this Redis is a cluster node; restart with --redis-cluster (or AX_REDIS_CLUSTER=1), or let ax detect it by leaving AX_REDIS_CLUSTER unset';

export const isCluster = (client: RedisClient): client is Cluster => 'isCluster' in client && client.isCluster;

const closedError = (): AxError => new AxError('unavailable', 'the Redis coordinator is closed: open a new one');

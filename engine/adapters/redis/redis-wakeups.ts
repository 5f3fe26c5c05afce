// A worker's wait for work on Redis: one wake channel per worker (subscribed once, kept), the
// waiters of this process, and every waiter woken once the subscriber link is back after a drop.
import type { RedisConnection } from './redis-connection.ts';
import type { RedisKeys } from './redis-keys.ts';

type Waiter = () => void;

export class WorkWakeups {
  private readonly waiters = new Map<string, Set<Waiter>>();
  /**
   * Wake channels stay subscribed once used: an engine waits for one or two workers, so this is
   * small, and a SUBSCRIBE/UNSUBSCRIBE pair per wait would double each idle loop's round trips.
   */
  private readonly wakeChannels = new Map<string, Promise<void>>();
  /** settles once ioredis's automatic re-SUBSCRIBE after a reconnect is confirmed */
  private resubscribed: Promise<void> = Promise.resolve();

  constructor(
    private readonly keys: RedisKeys,
    private readonly commands: RedisConnection,
    private readonly subscriber: RedisConnection,
    private readonly isClosed: () => boolean,
  ) {}

  /** Resolves when work may be in the worker's queue, at the timeout, or when the coordinator closes. */
  async wait(workerId: string, timeoutMs: number): Promise<void> {
    if (this.isClosed()) return;
    const queue = this.keys.queue(workerId);
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (error?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const set = this.waiters.get(workerId);
        set?.delete(finish);
        if (set?.size === 0) this.waiters.delete(workerId);
        if (error === undefined) resolve();
        else reject(error);
      };
      // Counted from the call, so a slow subscribe cannot stretch the wait. unref: an idle worker
      // loop must not keep the process alive on its own.
      const timer = setTimeout(finish, Math.max(0, timeoutMs));
      timer.unref();
      void (async () => {
        // Subscribed before looking at the queue, and registered before the look: an enqueue
        // after the look publishes a wake this waiter is sure to hear. No lost wake-up.
        await Promise.all([this.wakeChannel(workerId), this.resubscribed]);
        if (settled) return;
        if (this.isClosed()) return finish();
        let set = this.waiters.get(workerId);
        if (!set) this.waiters.set(workerId, (set = new Set()));
        set.add(finish);
        if ((await this.commands.call('waitForWork', (r) => r.llen(queue))) > 0) finish();
        // close() releases waiters: a subscribe or look cut short by it is a release, not an error.
      })().catch((err: unknown) => finish(this.isClosed() ? undefined : err));
    });
  }

  private wakeChannel(workerId: string): Promise<void> {
    const channel = this.keys.wake(workerId);
    let subscribed = this.wakeChannels.get(channel);
    if (!subscribed) {
      subscribed = this.subscriber.call('waitForWork', async (r) => {
        await r.subscribe(channel);
      });
      this.wakeChannels.set(channel, subscribed);
      // A failed SUBSCRIBE (Redis down) is retried by the next wait.
      subscribed.catch(() => {
        if (this.wakeChannels.get(channel) === subscribed) this.wakeChannels.delete(channel);
      });
    }
    return subscribed;
  }

  /**
   * Wakes sent while the subscriber link was down are lost, so every waiter is woken (callers
   * loop and look). Not at once: ioredis re-SUBSCRIBEs after 'ready', and a PING answered after
   * it proves the channels are back, so a waiter woken now cannot miss the next wake either.
   */
  afterReconnect(): void {
    this.resubscribed = this.subscriber
      .call('resubscribe', (r) => r.ping())
      .then(
        () => undefined,
        () => undefined,
      );
    void this.resubscribed.then(() => this.wakeAll());
  }

  wake(workerId: string): void {
    const set = this.waiters.get(workerId);
    if (set) for (const waiter of [...set]) waiter();
  }

  wakeAll(): void {
    for (const workerId of [...this.waiters.keys()]) this.wake(workerId);
  }
}

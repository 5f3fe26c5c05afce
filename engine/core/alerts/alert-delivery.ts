// Delivering a recorded alert to its channels: per channel, attempts with a timeout each and a
// doubling wait between them, every step recorded as a delivery; the alert's state at the end.
import type { AlertChannelInfo, AlertDelivery, AlertRecord, AlertState } from '../../api/alerts.ts';
import type { AlertChannel } from '../../ports/alert-channel.ts';
import type { Clock } from '../../ports/clock.ts';
import type { AlertOutcome } from '../../ports/metrics.ts';
import type { AlertStore } from '../../ports/store.ts';
import { backoffDelay } from '../model/backoff.ts';
import { formatDuration } from '../model/duration.ts';
import type { AlertSettings } from './alert-settings.ts';

const DEFAULT_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 10_000;

/** What delivering needs; read at each delivery, so new settings apply to the next one. */
export interface DeliveryDeps {
  store: AlertStore;
  clock: Clock;
  node: string;
  settings: AlertSettings;
  onDelivered?: (channel: string, outcome: AlertOutcome) => void;
}

export class AlertDeliverer {
  private readonly channels = new Map<string, AlertChannel>();

  constructor(
    private readonly deps: DeliveryDeps,
    channels: AlertChannel[],
    /** a failure with no delivery record to keep it (an alert sent without a store) */
    private readonly failed: (what: string, err: unknown) => void,
    /** the alert's new state, told to followers */
    private readonly announce: (alertId: number, rule: AlertRecord['rule'], state: AlertState) => void,
  ) {
    this.setChannels(channels);
  }

  /** Alerts under way finish on the channel they started with; the next one goes by the new set. */
  setChannels(channels: AlertChannel[]): void {
    this.channels.clear();
    for (const c of channels) this.channels.set(c.name, c);
  }

  has(channel: string): boolean {
    return this.channels.has(channel);
  }

  names(): string[] {
    return [...this.channels.keys()];
  }

  list(): AlertChannelInfo[] {
    return [...this.channels.values()].map((c) => ({
      name: c.name,
      kind: c.kind,
      target: c.target,
      ...(c.template && { template: c.template }),
    }));
  }

  /** Sends a recorded alert through every channel, then records it sent (all took it) or failed. */
  async deliver(alertId: number, channels: string[]): Promise<AlertRecord> {
    const alert = (await this.deps.store.getAlert(alertId)) as AlertRecord;
    const results = await Promise.all(channels.map((name) => this.deliverOne(alert, name)));
    const state: AlertState = results.every((ok) => ok) ? 'sent' : 'failed';
    await this.deps.store.setAlertState(alertId, state);
    this.announce(alertId, alert.rule, state);
    return (await this.deps.store.getAlert(alertId)) as AlertRecord;
  }

  /** One channel: attempts with a timeout each and a doubling wait between them; each step recorded. */
  async deliverOne(alert: AlertRecord, name: string): Promise<boolean> {
    // An alert sent without a store (id 0) keeps no delivery records.
    const record = async (d: Omit<AlertDelivery, 'channel' | 'at'>) => {
      if (alert.id !== 0)
        await this.deps.store.recordAlertDelivery(alert.id, { channel: name, at: this.deps.clock.now(), ...d });
      else if (d.state === 'failed') this.failed(`the alert "${alert.title}" through ${name}`, new Error(d.error));
    };
    const channel = this.channels.get(name);
    if (!channel) {
      await record({
        state: 'failed',
        attempts: 0,
        error: `no alert channel "${name}" on ${this.deps.node}: define it in settings.json "alerts.channels" on every node that sends alerts`,
      });
      this.deps.onDelivered?.(name, 'failed');
      return false;
    }
    const kind = channel.kind;
    const attempts = 1 + (channel.retries ?? DEFAULT_RETRIES);
    await record({ kind, state: 'sending', attempts: 0 });
    let error = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await this.attempt(channel, alert);
        // A success after failures keeps the last failure: why it took more than one try.
        await record({ kind, state: 'sent', attempts: attempt, ...(error && { error }) });
        this.deps.onDelivered?.(name, 'sent');
        return true;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      if (attempt === attempts) break;
      await record({ kind, state: 'sending', attempts: attempt, error });
      const wait = backoffDelay({ firstMs: this.deps.settings.retryDelayMs, maxMs: 60_000 }, attempt);
      await new Promise<void>((resolve) => this.deps.clock.setTimer(wait, resolve));
    }
    await record({ kind, state: 'failed', attempts, error });
    this.deps.onDelivered?.(name, 'failed');
    return false;
  }

  /** One attempt, given up at its timeout whether or not the channel heeds the abort. */
  private attempt(channel: AlertChannel, alert: AlertRecord): Promise<void> {
    const timeoutMs = channel.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const abort = new AbortController();
    return new Promise<void>((resolve, reject) => {
      const cancel = this.deps.clock.setTimer(timeoutMs, () => {
        const err = new Error(`no answer within ${formatDuration(timeoutMs)}`);
        abort.abort(err);
        reject(err);
      });
      channel.send(alert, abort.signal).then(
        () => {
          cancel();
          resolve();
        },
        (err: unknown) => {
          cancel();
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}

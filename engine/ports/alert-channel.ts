// A way to tell people of an alert: a webhook, an e-mail, the desktop app's
// notification. The core retries and times out each attempt itself, so a channel that hangs or
// fails never holds the engine; a channel only makes one attempt per call.
import type { AlertChannelKind, AlertRecord, WebhookTemplate } from '../api/alerts.ts';

export interface AlertChannel {
  readonly name: string;
  readonly kind: AlertChannelKind;
  /** what it sends to, fit to show: a webhook's URL with its secret parts masked, a mail's recipients */
  readonly target: string;
  readonly template?: WebhookTemplate;
  /** attempts after the first one failed (default 2) */
  readonly retries?: number;
  /** one attempt's limit (default 10 s) */
  readonly timeoutMs?: number;
  /** one attempt; rejects saying why; gives up when `signal` aborts */
  send(alert: AlertRecord, signal: AbortSignal): Promise<void>;
}

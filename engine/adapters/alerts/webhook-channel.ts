// A webhook alert channel: one JSON POST per attempt (the core times out and retries it). The URL
// may carry a token (Slack, Feishu, DingTalk and WeCom put it in the path or query), so it is
// shown only as scheme://host/***, and a `{ secret: NAME }` URL is read at each send.
import type { AlertRecord, WebhookTemplate } from '../../api/alerts.ts';
import type { AlertChannel } from '../../ports/alert-channel.ts';
import { bodyError, webhookBody } from './alert-text.ts';

export interface WebhookOptions {
  name: string;
  /** resolved at each send (a secret may change, or be missing: then the attempt fails saying so) */
  url: () => string;
  /** what to show instead of the URL */
  shownUrl: string;
  template: WebhookTemplate;
  headers: () => Record<string, string>;
  timeoutMs?: number;
  retries?: number;
}

/** scheme://host/*** : enough to recognise the service, nothing of a token. */
export function maskWebhookUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' && !u.search ? '/' : '/***'}`;
  } catch {
    return '***';
  }
}

/**
 * `https://user:password@host/…` as fetch can send it: the URL without its userinfo and the
 * userinfo as Basic authorization (what curl does; fetch refuses such a URL, quoting it whole).
 */
export function splitCredentials(url: string): { url: string; authorization?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url };
  }
  if (!u.username && !u.password) return { url };
  let userinfo: string;
  try {
    userinfo = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  } catch {
    userinfo = `${u.username}:${u.password}`;
  }
  u.username = '';
  u.password = '';
  return { url: u.toString(), authorization: `Basic ${Buffer.from(userinfo, 'utf8').toString('base64')}` };
}

export class WebhookChannel implements AlertChannel {
  readonly kind = 'webhook' as const;
  readonly name: string;
  readonly target: string;
  readonly template: WebhookTemplate;
  readonly timeoutMs?: number;
  readonly retries?: number;

  constructor(private readonly options: WebhookOptions) {
    this.name = options.name;
    this.target = options.shownUrl;
    this.template = options.template;
    this.timeoutMs = options.timeoutMs;
    this.retries = options.retries;
  }

  async send(alert: AlertRecord, signal: AbortSignal): Promise<void> {
    const { url, authorization } = splitCredentials(this.options.url());
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'ax-scheduler',
          ...(authorization && { authorization }),
          ...this.options.headers(),
        },
        body: JSON.stringify(webhookBody(alert, this.template)),
        signal,
        redirect: 'error',
      });
    } catch (err) {
      // fetch's own message is "fetch failed"; the cause says what (refused, DNS, TLS).
      // fetch's own messages quote the whole URL ("Failed to parse URL from …"), so only the
      // cause's code is kept, never the message (the error's cause is not recorded).
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const causeText = cause?.message && !cause.message.includes('//') ? cause.message : undefined;
      const why =
        cause?.code ??
        causeText ??
        (err instanceof Error && err.name === 'AbortError'
          ? 'aborted'
          : 'the request could not be made (is the URL valid?)');
      throw new Error(`POST ${this.target}: ${why}`, { cause: err });
    }
    const body = await res.text().catch(() => '');
    if (!res.ok) throw new Error(`POST ${this.target}: HTTP ${res.status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    const refused = bodyError(body);
    if (refused) throw new Error(`POST ${this.target}: refused: ${refused.slice(0, 200)}`);
  }
}

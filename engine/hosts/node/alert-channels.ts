// A node's alert channels, built from settings.json's `alerts` object: webhooks and
// e-mail over SMTP (adapters/alerts/), plus what the host adds (the desktop app's notification).
// A secret is `{ secret: NAME }` from this node's task secrets (`ax secrets set NAME`), read at
// each send, so it never sits in settings.json and a change applies to the next alert.
import { AxError } from '../../api/errors.ts';
import { EmailChannel } from '../../adapters/alerts/email-channel.ts';
import { maskWebhookUrl, WebhookChannel } from '../../adapters/alerts/webhook-channel.ts';
import { type AlertSettings, parseAlertSettings, type SecretValue } from '../../core/alerts/alert-settings.ts';
import type { AlertChannel } from '../../ports/alert-channel.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import { ALERTS_KEY, readRawSetting, settingsFile } from './settings.ts';

export interface NodeAlerts {
  settings: AlertSettings;
  channels: AlertChannel[];
}

export interface AlertOptions {
  /** channels the host provides (the desktop app's `desktop`), over settings' of the same name */
  extra?: AlertChannel[];
  /** channels for routes settings.json leaves without any (the desktop app: its notification) */
  defaultChannels?: string[];
  /** settings.json's `alerts` object given in place of the file's (tests) */
  raw?: unknown;
}

/** The data dir's alert settings and the channels they define. */
export function loadAlerts(dataDir: string, secrets: SecretSource, options: AlertOptions = {}): NodeAlerts {
  const extra = options.extra ?? [];
  const raw = options.raw ?? readRawSetting(dataDir, ALERTS_KEY);
  const settings = parseAlertSettings(
    raw,
    settingsFile(dataDir),
    extra.map((c) => c.name),
  );
  if (options.defaultChannels?.length) {
    for (const route of [settings.workflows, settings.engine])
      if (route.channels.length === 0) route.channels = [...options.defaultChannels];
  }
  const resolve = (v: SecretValue, what: string) => () => {
    if (typeof v === 'string') return v;
    const value = secrets.get(v.secret);
    if (value === undefined)
      throw new AxError(
        'validation',
        `${what} is the secret "${v.secret}", which is not set on this node: ${secrets.howToSet(v.secret)}`,
      );
    return value;
  };
  const channels: AlertChannel[] = [];
  for (const [name, c] of Object.entries(settings.channels)) {
    if (extra.some((e) => e.name === name)) continue;
    if (c.type === 'webhook') {
      channels.push(
        new WebhookChannel({
          name,
          url: resolve(c.url, `the URL of alert channel "${name}"`),
          shownUrl: typeof c.url === 'string' ? maskWebhookUrl(c.url) : `{secret: ${c.url.secret}}`,
          template: c.template,
          headers: () =>
            Object.fromEntries(
              Object.entries(c.headers).map(([h, v]) => [h, resolve(v, `header ${h} of alert channel "${name}"`)()]),
            ),
          timeoutMs: c.timeoutMs,
          retries: c.retries,
        }),
      );
    } else if (c.type === 'email') {
      const password = c.password;
      channels.push(
        new EmailChannel({
          name,
          host: c.host,
          port: c.port,
          secure: c.secure,
          starttls: c.starttls,
          tlsInsecure: c.tlsInsecure,
          user: c.user,
          password:
            password === undefined
              ? () => undefined
              : resolve(password, `the SMTP password of alert channel "${name}"`),
          from: c.from,
          to: c.to,
          timeoutMs: c.timeoutMs,
          retries: c.retries,
        }),
      );
    } else {
      channels.push(noDesktop(name));
    }
  }
  return { settings, channels: [...channels, ...extra] };
}

/** A `desktop` channel where no desktop app runs the engine (ax serve, a team node). */
function noDesktop(name: string): AlertChannel {
  return {
    name,
    kind: 'desktop',
    target: 'the desktop app (not on this node)',
    retries: 0,
    send: () =>
      Promise.reject(new Error('no desktop app runs this engine: a desktop channel works only in the desktop app')),
  };
}

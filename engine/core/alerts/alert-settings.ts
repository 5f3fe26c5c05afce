// The `alerts` object of settings.json: the channels a node can send through, which
// rules reach which channels by default (workflows without their own `alerts:`, and the engine's
// alerts about no workflow), and the grouping window. Checked here, without I/O, so the CLI and
// every host give the same errors; secrets are `{ secret: NAME }` references, resolved by the host.
import { z } from 'zod';
import {
  ALERT_RULES,
  DEFAULT_WORKFLOW_ALERT_RULES,
  type AlertRule,
  WEBHOOK_TEMPLATES,
  type WebhookTemplate,
} from '../../api/alerts.ts';
import { AxError } from '../../api/errors.ts';
import { SECRET_NAME, type SecretRef } from '../../api/secrets.ts';
import { parseDuration } from '../model/duration.ts';

export interface AlertRoute {
  channels: string[];
  rules: AlertRule[];
}

/** A literal, or `{ secret: NAME }` from the node's task secrets (`ax secrets set NAME`). */
export type SecretValue = string | SecretRef;

export interface WebhookChannelConfig {
  type: 'webhook';
  url: SecretValue;
  template: WebhookTemplate;
  headers: Record<string, SecretValue>;
  timeoutMs?: number;
  retries?: number;
}

export interface EmailChannelConfig {
  type: 'email';
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS, required unless `starttls: false` */
  secure: boolean;
  starttls: boolean;
  /** accept a self-signed server certificate (a test server only) */
  tlsInsecure?: boolean;
  user?: string;
  password?: SecretValue;
  from: string;
  to: string[];
  timeoutMs?: number;
  retries?: number;
}

export interface DesktopChannelConfig {
  type: 'desktop';
}

export type ChannelConfig = WebhookChannelConfig | EmailChannelConfig | DesktopChannelConfig;

export interface AlertSettings {
  channels: Record<string, ChannelConfig>;
  /** for workflows whose file has no `alerts:` */
  workflows: AlertRoute;
  /** for alerts about no workflow: workers, the queue, the store, the engine */
  engine: AlertRoute;
  /** repeats of a rule about one subject within this window are told in one summary */
  groupWindowMs: number;
  /** the wait before a channel's second attempt (doubling after) */
  retryDelayMs: number;
}

export const ENGINE_ALERT_RULES = [
  'worker_lost',
  'queue_long',
  'store_unreachable',
  'clock_step',
  'engine',
] as const satisfies readonly AlertRule[];

export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  channels: {},
  workflows: { channels: [], rules: DEFAULT_WORKFLOW_ALERT_RULES },
  engine: { channels: [], rules: ['worker_lost', 'queue_long', 'store_unreachable', 'clock_step'] },
  groupWindowMs: 600_000,
  retryDelayMs: 1_000,
};

const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const secret = z.union([
  z.string().min(1),
  z.strictObject({ secret: z.string().regex(SECRET_NAME, 'a secret name: letters, digits, "_", "." or "-"') }),
]);
const duration = z.string().transform((text, ctx) => {
  const d = parseDuration(text);
  if ('error' in d) {
    ctx.addIssue({ code: 'custom', message: d.error });
    return z.NEVER;
  }
  return d.ms;
});
const limits = { timeout: duration.optional(), retries: z.number().int().min(0).max(10).optional() };
const webhook = z.strictObject({
  type: z.literal('webhook'),
  url: secret,
  template: z.enum(WEBHOOK_TEMPLATES).default('json'),
  headers: z.record(z.string(), secret).default({}),
  ...limits,
});
const email = z.strictObject({
  type: z.literal('email'),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(587),
  secure: z.boolean().default(false),
  starttls: z.boolean().default(true),
  tlsInsecure: z.boolean().optional(),
  user: z.string().optional(),
  password: secret.optional(),
  from: z.string().min(3),
  to: z.union([z.string().min(3), z.array(z.string().min(3)).min(1)]),
  ...limits,
});
const desktop = z.strictObject({ type: z.literal('desktop') });
const route = (rules: readonly AlertRule[]) =>
  z.strictObject({
    channels: z.array(z.string()).default([]),
    rules: z.array(z.enum(rules as [AlertRule, ...AlertRule[]])).optional(),
  });
const schema = z.strictObject({
  channels: z
    .record(
      z.string().regex(CHANNEL_NAME, 'a channel name: letters, digits, "_", "." or "-"'),
      z.discriminatedUnion('type', [webhook, email, desktop]),
    )
    .default({}),
  workflows: route(ALERT_RULES).optional(),
  engine: route(ENGINE_ALERT_RULES).optional(),
  groupWindow: duration.optional(),
  retryDelay: duration.optional(),
});

/** Checks settings.json's `alerts` (where: the file, for messages); undefined gives the defaults. */
export function parseAlertSettings(value: unknown, where: string, extraChannels: string[] = []): AlertSettings {
  if (value === undefined) return DEFAULT_ALERT_SETTINGS;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `alerts.${i.path.join('.')}: ${i.message}`);
    throw new AxError('validation', `${where}: ${problems.join('; ')}`);
  }
  const v = parsed.data;
  const channels: Record<string, ChannelConfig> = {};
  for (const [name, c] of Object.entries(v.channels)) {
    const { timeout, ...rest } = c as typeof c & { timeout?: number };
    const config = { ...rest, ...(timeout !== undefined && { timeoutMs: timeout }) };
    channels[name] =
      config.type === 'email'
        ? { ...config, to: typeof config.to === 'string' ? [config.to] : config.to }
        : (config as ChannelConfig);
    if (
      channels[name].type === 'webhook' &&
      typeof (channels[name] as WebhookChannelConfig).url === 'string' &&
      !/^https?:\/\//.test((channels[name] as WebhookChannelConfig).url as string)
    ) {
      throw new AxError('validation', `${where}: alerts.channels.${name}.url must start with http:// or https://`);
    }
  }
  const settings: AlertSettings = {
    channels,
    workflows: {
      channels: v.workflows?.channels ?? [],
      rules: v.workflows?.rules ?? DEFAULT_ALERT_SETTINGS.workflows.rules,
    },
    engine: { channels: v.engine?.channels ?? [], rules: v.engine?.rules ?? DEFAULT_ALERT_SETTINGS.engine.rules },
    groupWindowMs: v.groupWindow ?? DEFAULT_ALERT_SETTINGS.groupWindowMs,
    retryDelayMs: v.retryDelay ?? DEFAULT_ALERT_SETTINGS.retryDelayMs,
  };
  if (settings.groupWindowMs < 1000)
    throw new AxError('validation', `${where}: alerts.groupWindow must be at least 1s`);
  const known = new Set([...Object.keys(channels), ...extraChannels]);
  for (const [which, r] of [
    ['workflows', settings.workflows],
    ['engine', settings.engine],
  ] as const) {
    const unknown = r.channels.filter((c) => !known.has(c));
    if (unknown.length) {
      throw new AxError(
        'validation',
        `${where}: alerts.${which}.channels names ${unknown.map((c) => `"${c}"`).join(', ')}, not defined in alerts.channels (defined: ${[...known].join(', ') || 'none'})`,
      );
    }
  }
  return settings;
}

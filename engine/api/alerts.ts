// Alerts as the API shows them: what happened (a rule about a subject), which channels
// were told, and how each delivery went. Recorded once per alert key in the store, whichever node
// raised it; the node that won the key's insert is the one that sends it.
import type { ReasonCode } from './reason-code.ts';

/**
 * What an alert is about. `engine`: the engine's own free-text alerts (a dispatch ignored, a
 * worker id taken over, …); the others are the alert rules (alert-rules.ts).
 */
export const ALERT_RULES = [
  'task_failed', // a task's final failure or timeout (after its retries)
  'run_failed',
  'recovered', // a workflow's first successful run after failed ones
  'worker_lost',
  'queue_long', // more waiting + dispatched instances than the threshold (design.md §10: 1,000)
  'run_overdue', // a run still going past its workflow's expected duration
  'misfire_skipped', // fires a misfire policy dropped
  'store_unreachable',
  'clock_step', // the wall clock stepped back past the schedules' last fires: they were re-planned from now
  'monitor_missed', // a monitor's expected run was not reported by its fire + grace (design.md §13)
  'run_duration_anomaly', // a reported run far shorter or longer than its history (design.md §13)
  'engine',
] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

export const ALERT_CHANNEL_KINDS = ['desktop', 'webhook', 'email'] as const;
export type AlertChannelKind = (typeof ALERT_CHANNEL_KINDS)[number];

/** The body a webhook posts: `json` (the alert record), or what the chat app's incoming webhook expects. */
export const WEBHOOK_TEMPLATES = ['json', 'slack', 'feishu', 'dingtalk', 'wecom'] as const;
export type WebhookTemplate = (typeof WEBHOOK_TEMPLATES)[number];

export type AlertSeverity = 'critical' | 'warning' | 'info';

/** One channel's delivery of one alert. */
export interface AlertDelivery {
  channel: string;
  /** undefined when the sending node has no channel of that name */
  kind?: AlertChannelKind;
  /** `sending` while attempts go on; `failed` once its retries are spent (error says why) */
  state: 'sending' | 'sent' | 'failed';
  attempts: number;
  error?: string;
  /** when it last changed */
  at: number;
}

/**
 * sending: deliveries under way; sent: every channel took it; failed: at least one channel
 * failed after its retries; grouped: a repeat inside its group's window, told in the group's
 * summary; unsent: no channel is configured for its rule.
 */
export type AlertState = 'sending' | 'sent' | 'failed' | 'grouped' | 'unsent';
export const ALERT_STATES = ['sending', 'sent', 'failed', 'grouped', 'unsent'] as const satisfies readonly AlertState[];

export interface AlertRecord {
  id: number;
  /** unique: rule + subject + time bucket (or the event it is about); the one-sender rule */
  key: string;
  /** `test`: sent by `ax alerts test CHANNEL` */
  rule: AlertRule | 'test';
  /** what it is about: `workflow:NAME`, `worker:ID`, `queue`, `store`, `node:ID`, `channel:NAME` */
  subject: string;
  workflow?: string;
  runId?: number;
  instanceId?: number;
  severity: AlertSeverity;
  /** one line, e.g. `nightly-etl: task "load" failed (attempt 3 of 3)` */
  title: string;
  /** more lines: reason, run, when */
  message: string;
  /** the title as a code and arguments, for the UI to translate (none: alerts of older engines, free-text ones) */
  titleCode?: ReasonCode;
  /** the message, one code per line (line i of `message`), for the UI to translate */
  messageCodes?: ReasonCode[];
  at: number;
  /** the node that recorded it, and sent it */
  node: string;
  /**
   * immediate: the first of its group, sent at once; grouped: a repeat within the group's window
   * (counted, not sent); summary: the group's repeats, sent at the window's end; test
   */
  kind: 'immediate' | 'grouped' | 'summary' | 'test';
  /** a summary: how many repeats it stands for */
  repeats?: number;
  state: AlertState;
  deliveries: AlertDelivery[];
}

export interface AlertFilter {
  limit?: number;
  /** only alerts with a smaller id (paging back) */
  beforeId?: number;
  workflow?: string;
  rule?: AlertRule | 'test';
  state?: AlertState;
}

/** A configured channel as the API shows it: secrets (webhook tokens, passwords) masked. */
export interface AlertChannelInfo {
  name: string;
  kind: AlertChannelKind;
  /** the webhook's URL with its path and query masked, the mail's recipients, `desktop` */
  target: string;
  template?: WebhookTemplate;
}

/** A workflow's `alerts:` in its file: which channels hear which rules about it. */
export interface WorkflowAlerts {
  /** channel names defined in settings (`ax settings` / settings.json `alerts.channels`) */
  channels: string[];
  /** the rules that alert for this workflow; default: run_failed, recovered */
  rules: AlertRule[];
  /** a run still going after this long raises `run_overdue` */
  expectedDurationMs?: number;
}

/** The rules about a workflow, which a workflow's `alerts.rules` picks from. */
export const WORKFLOW_ALERT_RULES = [
  'task_failed',
  'run_failed',
  'recovered',
  'run_overdue',
  'misfire_skipped',
  'monitor_missed',
  'run_duration_anomaly',
] as const satisfies readonly AlertRule[];
/**
 * A failed run and the recovery after it: one alert per failure (the run's names the task that
 * failed and why). `task_failed` adds one per task that failed for good, for runs whose other
 * branches go on.
 */
export const DEFAULT_WORKFLOW_ALERT_RULES: AlertRule[] = ['run_failed', 'recovered'];

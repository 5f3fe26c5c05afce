// An alert as people read it, and the bodies chat apps' incoming webhooks expect (// Slack, Feishu, DingTalk, WeCom work out of the box; `json` is the record for anything else).
import type { AlertRecord, WebhookTemplate } from '../../api/alerts.ts';

const MARK: Record<AlertRecord['severity'], string> = { critical: '[FAILED]', warning: '[WARNING]', info: '[OK]' };

/** e.g. "[FAILED] nightly-etl: run #12 failed: task "load" failed after 3 attempt(s)" */
export function alertSubject(alert: AlertRecord): string {
  return `${alert.rule === 'test' ? '[TEST]' : MARK[alert.severity]} ${alert.title}`;
}

export function alertText(alert: AlertRecord): string {
  return `${alertSubject(alert)}\n${alert.message}\n— AX Scheduler on ${alert.node}, ${new Date(alert.at).toISOString()} (alert ${alert.id}, "ax alerts")`;
}

/** The JSON body a webhook posts with this template. */
export function webhookBody(alert: AlertRecord, template: WebhookTemplate): unknown {
  const text = alertText(alert);
  switch (template) {
    case 'slack':
      return { text };
    case 'feishu':
      return { msg_type: 'text', content: { text } };
    case 'dingtalk':
    case 'wecom':
      return { msgtype: 'text', text: { content: text } };
    case 'json': {
      const { deliveries: _deliveries, ...record } = alert;
      return { alert: record, text };
    }
  }
}

/**
 * Feishu, DingTalk and WeCom answer 200 with an error code in the body (a wrong keyword or
 * signature, a rate limit): that is a failed delivery, with their message.
 */
export function bodyError(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const p = parsed as { code?: unknown; msg?: unknown; errcode?: unknown; errmsg?: unknown; StatusCode?: unknown };
  if (typeof p.errcode === 'number' && p.errcode !== 0) return `errcode ${p.errcode}: ${String(p.errmsg ?? '')}`;
  if (typeof p.code === 'number' && p.code !== 0) return `code ${p.code}: ${String(p.msg ?? '')}`;
  return undefined;
}

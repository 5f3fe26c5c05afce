// The catalogue of engine-written text: each reason code's English template. The engine builds
// its English `reason` FROM a code (because(), reasonText()), so the text the CLI prints and the
// code the UI translates (renderer/src/i18n/locales/*/reasons.json, same keys and placeholders)
// can never disagree. Arguments are raw: durations in ms (`{{x, duration}}`), instants in epoch ms
// (`{{x, clock}}`, shown in the `zone` argument's time zone, or `{{x, iso}}`); each reader formats them.
import type { ReasonCode } from './reason-code.ts';

export const REASONS = {
  // a task's process
  timeout: 'timed out after {{timeout, duration}}',
  exit: 'exit code {{code}}',
  signal: 'killed by {{signal}}',
  could_not_start: 'could not start: {{error}}',
  process_lost: 'failed over: {{detail}}',
  log_incomplete: 'its log is incomplete: {{lines}} line(s) could not be stored',
  log_incomplete_after: '{{reason}}; its log is incomplete: {{lines}} line(s) could not be stored',
  task_removed: 'the task was removed from its workflow',
  // a task's `when:`
  when_could_not_start: 'could not start its when: command: {{error}}',
  when_timeout: 'when: its command timed out after {{timeout, duration}}',
  when_exited: 'when: exited {{code}}',
  when_exited_output: 'when: exited {{code}}: {{output}}',
  when_killed: 'when: killed by {{signal}}',
  when_killed_output: 'when: killed by {{signal}}: {{output}}',
  when_unreadable: 'when: {{expr}}: {{error}}',
  when_false: 'when: {{condition}} is false ({{values}})',
  when_false_missing: 'when: {{condition}} is false ({{reference}} is missing (no {{variable}}); {{values}})',
  when_false_missing_both:
    'when: {{condition}} is false ({{reference}} is missing (no {{variable}}); {{reference2}} is missing (no {{variable2}}); {{values}})',
  // workers (backstops, recovery)
  worker_lost_before_start:
    'worker {{worker}} was lost (no heartbeat for {{silent, seconds}}) before it started the task',
  worker_unregistered_before_start: 'worker {{worker}} was lost (never registered) before it started the task',
  redispatched: 'worker {{worker}} did not pick the task up within {{after, seconds}}: dispatched again',
  failover_worker_lost: 'failed over: worker {{worker}} lost (no heartbeat for {{silent, seconds}})',
  failover_worker_unregistered: 'failed over: worker {{worker}} lost (never registered)',
  failover_not_running: 'failed over: worker {{worker}} no longer runs it (task heartbeat {{age, seconds}} old)',
  timeout_unreported: 'timed out: worker {{worker}} did not report within the timeout + grace',
  engine_restarted: 'engine restarted',
  engine_restarted_killed: 'engine restarted; its leftover process group was killed',
  engine_restarted_before_start: 'engine restarted before the task started',
  failover_worker_restarted: 'failed over: worker {{worker}} restarted',
  failover_worker_restarted_killed: 'failed over: worker {{worker}} restarted; its leftover process group was killed',
  worker_restarted_before_start: 'worker {{worker}} restarted before it started the task',
  // a worker stops a task it runs
  stop_cancelled: 'cancelled',
  stop_identity_lost: 'this worker lost its id to another node (it was judged lost)',
  stop_not_owned: 'this worker no longer owns the instance (taken over after it was judged lost)',
  stop_drain_timeout: 'stopped: the engine shut down and the drain timeout ({{timeout, duration}}) ran out',
  stop_ctrl_c: 'killed: Ctrl-C twice',
  // upstreams (run_if)
  upstream_ended: 'upstream "{{task}}" ended {{state}}',
  upstream_ended_rule: 'upstream "{{task}}" ended {{state}} (run_if: {{rule}})',
  one_failed_none_failed: 'run_if: one_failed, and no upstream failed',
  all_failed_but: 'run_if: all_failed, but upstream "{{task}}" ended {{state}}',
  // waiting
  waiting_upstream: 'waiting for {{labels}}',
  wait_timeout: 'wait_timeout: waited {{limit, duration}} for {{label}}, which did not succeed in time',
  no_worker_registered: 'waiting: no worker is registered: start one (ax serve) or join a machine as a worker',
  lone_worker_offline: 'waiting: none of the 1 worker is online ({{states}})',
  no_worker_online: 'waiting: none of the {{workers}} workers is online ({{states}})',
  workers_stale:
    "waiting: every online worker's heartbeat is stale (newest {{age, seconds}} old, limit {{limit, seconds}})",
  no_worker_for_workflow:
    'waiting: no online worker accepts workflow "{{workflow}}": add it to a worker\'s accept-policy',
  no_worker_for_labels:
    "waiting: no online worker accepts labels {{labels}}: add them to a worker's labels or remove them from the task",
  no_worker_for_unlabelled:
    'waiting: no online worker accepts unlabelled tasks: label the task or let a worker accept unlabelled tasks',
  only_worker_busy: 'waiting: the only worker that accepts it ({{worker}}) is at its concurrency limit',
  all_workers_busy: 'waiting: all {{workers}} workers are at their concurrency limit',
  worker_can_take: 'waiting: worker {{worker}} can take it',
  worker_refused: 'worker {{worker}} does not accept this task',
  // runs
  overlap: 'run #{{run}} was still {{state}} (overlap policy: {{policy}})',
  rerun_task: 're-run of "{{task}}"',
  rerun_failed: 're-run of the failed tasks: {{tasks}}',
  backfill_cancelled: 'backfill #{{backfill}} cancelled by {{actor}}',
  cancelled_by: 'cancelled by {{actor}}',
  caller_gone: 'its calling task no longer waits for it',
  caller_ended: 'its calling task "{{task}}" of run #{{run}} ended {{state}}',
  upstream_failed_for_good: 'upstream {{label}} failed for good: re-run it, then this task',
  upstream_run_cancelled: 'upstream {{label}}: its run #{{run}} was cancelled',
  // monitors
  monitor_missed: 'missed: no ping by {{due, clock}} (due at {{fire, clock}}, grace {{grace, duration}})',
  monitor_no_end:
    'no end reported: started at {{started, clock}}, still running when the next run was due ({{due, clock}}, grace included)',
  // runs reported from outside (ax ping, ax wrap, webhooks)
  reported_exit: 'exit code {{code}} (reported by {{from}})',
  reported_failure: 'failure reported by {{from}}',
  // call: tasks
  call_no_workflow: 'calls workflow "{{workflow}}", which does not exist: apply it, then re-run this task',
  call_workflow_removed: 'calls workflow "{{workflow}}", which was removed: apply it, then re-run this task',
  call_monitor: 'calls "{{workflow}}", a monitor, which runs nothing itself: call a workflow with tasks',
  call_params_refused: 'calls "{{workflow}}" with params it refuses: {{problems}}: fix the call\'s params',
  child_failed: 'child run #{{child}} failed',
  child_cancelled: 'child run #{{child}} failed: it was cancelled',
  child_cancelled_because: 'child run #{{child}} failed: it was cancelled ({{reason}})',
  child_gone: 'child run #{{child}} is gone (lost link): re-run this task',
  call_timeout: 'timed out after {{timeout, duration}}: child run #{{child}} is cancelled',
  // alerts: titles and message lines (alert-rules.ts)
  alert_task_failed: '{{workflow}}: task "{{task}}" failed (attempt {{attempt}}, no retry left)',
  alert_task_timed_out: '{{workflow}}: task "{{task}}" timed out (attempt {{attempt}}, no retry left)',
  alert_run_instance: 'run #{{run}}, instance {{instance}}',
  alert_reason: 'reason: {{reason}}',
  alert_worker: 'worker: {{worker}}',
  alert_run_failed: '{{workflow}}: run #{{run}} failed: failed',
  alert_run_failed_task: '{{workflow}}: run #{{run}} failed: task "{{task}}" failed after {{attempts}} attempt(s)',
  alert_run_failed_timeout:
    '{{workflow}}: run #{{run}} failed: task "{{task}}" timed out after {{attempts}} attempt(s)',
  alert_run_failed_cancel:
    '{{workflow}}: run #{{run}} failed: task "{{task}}" was cancelled after {{attempts}} attempt(s)',
  alert_run_ended_failed: 'run #{{run}} ({{trigger}}, logical time {{logical, iso}}) ended FAILED at {{finished, iso}}',
  alert_failure: '{{task}}: {{state}} (instance {{instance}}, attempt {{attempt}})',
  alert_failure_reason: '{{task}}: {{state}}: {{reason}} (instance {{instance}}, attempt {{attempt}})',
  alert_worker_lost: 'worker {{worker}} ({{host}}) lost: no heartbeat for {{silent, duration}}',
  alert_worker_lost_body: 'last heartbeat at {{at, iso}}; its running tasks fail over to other workers',
  alert_monitor_missed: '{{workflow}}: the run due at {{fire, iso}} was not reported by {{due, iso}}',
  alert_monitor_missed_body:
    'recorded as run #{{run}}; is its job still in the crontab, and does it reach AX ("ax ping", "ax wrap")?',
  alert_recovered: '{{workflow}}: recovered, run #{{run}} succeeded after failed run #{{previous}}',
  alert_run_ended_success:
    'run #{{run}} ({{trigger}}, logical time {{logical, iso}}) ended SUCCESS at {{finished, iso}}',
  alert_queue_long: 'queue of worker {{worker}} is {{length}} long (threshold {{threshold}}): workers cannot keep up',
  alert_queue_long_body: 'add workers or concurrency, or look for a stuck worker ("ax workers")',
  alert_misfire_skipped:
    '{{workflow}}: {{skipped}} missed fire(s) up to {{latest, iso}} not run (misfire policy {{policy}})',
  alert_misfire_skipped_body: 'the engine was down, asleep or paused when they were due',
  alert_run_overdue: '{{workflow}}: run #{{run}} still running past its expected {{expected, duration}}',
  alert_run_overdue_body: 'started at {{started, iso}}',
  alert_clock_step:
    'the clock of {{node}} stepped back by about {{back, duration}}: {{count}} schedule(s) re-planned from now',
  alert_clock_step_body:
    "their last fires lay ahead of the clock ({{at, iso}}), which had gone ahead and was set back (NTP, a restored snapshot); without this they would not fire until the clock caught up. Re-planned: {{schedules}}. Check the machine's time sync.",
  alert_clock_step_body_more:
    "their last fires lay ahead of the clock ({{at, iso}}), which had gone ahead and was set back (NTP, a restored snapshot); without this they would not fire until the clock caught up. Re-planned: {{schedules}} and {{more}} more. Check the machine's time sync.",
  alert_duration_longer:
    '{{workflow}}: run #{{run}} took {{took, duration}}, far longer than usual (median {{median, duration}})',
  alert_duration_shorter:
    '{{workflow}}: run #{{run}} took {{took, duration}}, far shorter than usual (median {{median, duration}})',
  alert_duration_anomaly_body:
    'outside {{factor}}× either way of the median of its last {{runs}} successful runs; it ended {{state}}',
} as const satisfies Record<string, string>;

export type ReasonKey = keyof typeof REASONS;

/** A reason as the engine stores it: the English text (CLI, logs, alerts) and its code (the UI). */
export interface Reason {
  reason: string;
  reasonCode: ReasonCode;
}

/** `{{name}}` or `{{name, format}}` in a template */
const PLACEHOLDER = /\{\{\s*(\w+)\s*(?:,\s*(\w+)\s*)?\}\}/g;

/** The placeholder names of a template, sorted (the locale test compares them with the catalogue's). */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string).sort();
}

/** The canonical text of a duration, largest units first: 5_400_000 → "1h30m" (as `ax` writes durations). */
export function englishDuration(ms: number): string {
  if (ms === 0) return '0s';
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
    ['ms', 1],
  ];
  let rest = ms;
  let out = '';
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}

/** `02:10` (or `02:10:30`) in the zone: when something was due. */
export function englishClock(at: number, zone: string): string {
  const seconds = new Date(at).getUTCSeconds() !== 0;
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds && { second: '2-digit' }),
    hourCycle: 'h23',
  }).format(at);
}

function formatted(value: string | number | undefined, format: string | undefined, args: ReasonCode['args']): string {
  if (value === undefined) return '';
  if (typeof value !== 'number') return value;
  if (format === 'duration') return englishDuration(value);
  if (format === 'seconds') return `${value / 1000}s`;
  if (format === 'clock') return englishClock(value, String(args?.zone ?? 'UTC'));
  if (format === 'iso') return new Date(value).toISOString();
  return String(value);
}

/** The English text of a code (a code the catalogue does not know: its name, so nothing is silently lost). */
export function reasonText(code: ReasonCode): string {
  const template: string | undefined = (REASONS as Record<string, string>)[code.code];
  if (template === undefined) return code.code;
  return template.replace(PLACEHOLDER, (_, name: string, format: string | undefined) =>
    formatted(code.args?.[name], format, code.args),
  );
}

/** A reason from its code: `{ reason, reasonCode }`, to spread into an outcome, a draft or a run. */
export function because(code: ReasonKey, args?: Record<string, string | number>): Reason {
  const reasonCode: ReasonCode = args ? { code, args } : { code };
  return { reason: reasonText(reasonCode), reasonCode };
}

/**
 * The line of an alert that quotes a reason (`reason: …`, or another line with a `reason`
 * argument), with the reason's own code as JSON in `reason_code` when it has one (the UI
 * translates it, then the line).
 */
export function reasonLine(
  reason: string,
  code: ReasonCode | undefined,
  line: { code: ReasonKey; args?: Record<string, string | number> } = { code: 'alert_reason' },
): ReasonCode {
  return { code: line.code, args: { ...line.args, reason, ...(code && { reason_code: JSON.stringify(code) }) } };
}

/** An alert's title and message built from codes: the English and the codes, one source. */
export function alertText(
  title: ReasonCode,
  lines: ReasonCode[],
): { title: string; message: string; titleCode: ReasonCode; messageCodes: ReasonCode[] } {
  return { title: reasonText(title), message: lines.map(reasonText).join('\n'), titleCode: title, messageCodes: lines };
}

/** A reason given as text alone (no code: the UI shows the English) or built from its code. */
export function asReason(why: string | Reason): { reason: string; reasonCode?: ReasonCode } {
  return typeof why === 'string' ? { reason: why } : why;
}

/** The stored form of a code (the reason_code column): JSON, or null with no code. */
export function encodeReasonCode(code: ReasonCode | null | undefined): string | null {
  return code ? JSON.stringify(code) : null;
}

/** A stored code read back; undefined when absent or unreadable (the English reason still stands). */
export function decodeReasonCode(text: string | null | undefined): ReasonCode | undefined {
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as ReasonCode;
    return typeof parsed?.code === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

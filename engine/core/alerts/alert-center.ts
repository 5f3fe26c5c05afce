// Where every alert goes through: routed (the workflow's `alerts:` or the settings'
// defaults), recorded under its keys (alert-keys.ts; the node whose insert wins is the one that
// sends), delivered to each channel with a timeout per attempt and retries, each delivery
// recorded (alert-delivery.ts), and a group's repeats told in one summary once its window ends.
// Nothing here is awaited by the code that raises an alert: a channel that hangs or fails slows no run.
import type { AlertChannelInfo, AlertRecord, AlertRule, AlertState, WorkflowAlerts } from '../../api/alerts.ts';
import { AxError } from '../../api/errors.ts';
import type { AlertChannel } from '../../ports/alert-channel.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { AlertOutcome } from '../../ports/metrics.ts';
import type { NewAlert, AlertStore } from '../../ports/store.ts';
import { formatDuration } from '../model/duration.ts';
import { repeat } from '../support/repeat.ts';
import { AlertDeliverer } from './alert-delivery.ts';
import { alertKeys, fit, summaryKey } from './alert-keys.ts';
import type { AlertRoute, AlertSettings } from './alert-settings.ts';

/** What a rule says about something that happened. */
export interface AlertInput extends Pick<
  AlertRecord,
  'subject' | 'workflow' | 'runId' | 'instanceId' | 'severity' | 'title' | 'message' | 'titleCode' | 'messageCodes'
> {
  rule: AlertRule;
  /** the event itself (`instance:ID`, `run:ID`): raised twice, it is recorded once; none: once per window */
  event?: string;
  /** when it happened; default now */
  at?: number;
}

export interface AlertCenterDeps {
  store: AlertStore;
  coordinator: Coordinator;
  clock: Clock;
  /** this node: recorded with each alert it sends */
  node: string;
  channels: AlertChannel[];
  settings: AlertSettings;
  /** how often to look for due summaries (and whatever `onSweep` looks for) */
  sweepMs: number;
  /** more to do at each sweep: the scheduler's look for overdue runs */
  onSweep?: () => Promise<void>;
  /** a workflow's own `alerts:` (undefined: the settings' defaults apply) */
  workflowAlerts: (workflow: string) => Promise<WorkflowAlerts | undefined>;
  /** an alert that could not be recorded or sent (the host prints it); never raised as an alert */
  onError?: (message: string) => void;
  /** each channel delivery's end, after its retries (the metrics count them) */
  onDelivered?: (channel: string, outcome: AlertOutcome) => void;
  /** the node's secret mask, for what is sent without going through the store (store_unreachable) */
  mask?: (text: string) => string;
  /** the host's randomness: a test alert's own key */
  random: () => number;
}

const SPEC_CACHE_MS = 5_000;

export class AlertCenter {
  private readonly sender: AlertDeliverer;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<() => void>();
  private stopSweeps: (() => void) | undefined;
  private readonly specCache = new Map<string, { at: number; alerts: Promise<WorkflowAlerts | undefined> }>();
  /** store_unreachable alerts sent without a store, by group key */
  private readonly unrecordedSent = new Set<string>();

  constructor(private readonly deps: AlertCenterDeps) {
    this.sender = new AlertDeliverer(
      deps,
      deps.channels,
      (what, err) => this.failed(what, err),
      (alertId, rule, state) => this.announce(alertId, rule, state),
    );
  }

  /**
   * Records and sends an alert in the background; the caller never waits for a channel. A
   * promise is a rule's look-up still under way (undefined: nothing to say after all).
   */
  raise(input: AlertInput | Promise<AlertInput | undefined>): void {
    this.track(
      Promise.resolve(input).then((i) => i && (i.rule === 'store_unreachable' ? this.unrecorded(i) : this.handle(i))),
    );
  }

  /** Summaries of groups whose window ended while no node was there to send them. */
  start(): void {
    this.stopSweeps ??= repeat(
      this.deps.clock,
      this.deps.sweepMs,
      async () => {
        await this.sweep();
        await this.deps.onSweep?.();
      },
      { onError: (err) => this.failed('alert summaries', err) },
    );
  }

  /** Stops the sweeps; alerts under way get up to graceMs more, so a channel that hangs does not hold a stop. */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopSweeps?.();
    this.stopSweeps = undefined;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    let cancel: () => void = () => undefined;
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => (cancel = this.deps.clock.setTimer(graceMs, resolve))),
    ]);
    cancel();
  }

  /** Resolves once every alert raised so far is recorded and delivered (or failed): tests, and a drain. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /**
   * New settings and channels (settings.json read again: SIGHUP on a service's ax serve). Alerts
   * under way finish on the channel they started with; the next one goes by the new routes.
   */
  reconfigure(settings: AlertSettings, channels: AlertChannel[]): void {
    this.deps.settings = settings;
    this.sender.setChannels(channels);
  }

  listChannels(): AlertChannelInfo[] {
    return this.sender.list();
  }

  /** `ax alerts test CHANNEL`: a test alert through one channel, recorded, once delivered or failed. */
  async test(channel: string, actor: string): Promise<AlertRecord> {
    if (!this.sender.has(channel)) {
      const known = this.sender.names();
      throw new AxError(
        'not_found',
        `no alert channel "${channel}" on ${this.deps.node}: ${known.length ? `channels are ${known.join(', ')}` : 'none is defined'} (settings.json "alerts.channels", see "ax alerts channels")`,
      );
    }
    const at = this.deps.clock.now();
    const rec = await this.deps.store.recordAlert({
      key: fit(`test|channel:${channel}|${this.deps.node}|${at}|${this.deps.random().toString(36).slice(2, 10)}`),
      groupKey: `test|${at}`,
      groupEndsAt: at,
      kind: 'test',
      rule: 'test',
      subject: `channel:${channel}`,
      severity: 'info',
      title: `Test alert from AX Scheduler (${this.deps.node})`,
      message: `Sent by ${actor} with "ax alerts test ${channel}": if you read this, the channel "${channel}" works.`,
      at,
      node: this.deps.node,
      state: 'sending',
    });
    if (!rec) throw new AxError('conflict', 'a test alert with the same key was just recorded: try again');
    return this.sender.deliver(rec.id, [channel]);
  }

  /**
   * Sends the summary of every group whose window has ended, once per group across nodes. Its
   * look at the store is also this node's store check: failing, it raises `store_unreachable`.
   */
  async sweep(): Promise<void> {
    const now = this.deps.clock.now();
    let due;
    try {
      due = await this.deps.store.dueAlertGroups(now, 50);
    } catch (err) {
      this.raise({
        rule: 'store_unreachable',
        subject: `node:${this.deps.node}`,
        severity: 'critical',
        title: `${this.deps.node} cannot reach its store`,
        message: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    for (const group of due) {
      const o = group.opener;
      if (group.repeats > 0) {
        const route = await this.route(o.rule as AlertRule, o.workflow);
        const channels = route?.channels ?? [];
        const rec = await this.deps.store.recordAlert({
          key: summaryKey(o.key),
          groupKey: group.groupKey,
          groupEndsAt: group.groupEndsAt,
          kind: 'summary',
          repeats: group.repeats,
          rule: o.rule,
          subject: o.subject,
          ...(o.workflow !== undefined && { workflow: o.workflow }),
          severity: o.severity,
          title: summaryTitle(o, group.repeats, this.deps.settings.groupWindowMs),
          message: `The first one, at ${new Date(o.at).toISOString()}: ${o.title}. The others were recorded without being sent (see "ax alerts${o.workflow ? ` --workflow ${o.workflow}` : ''}").`,
          at: now,
          node: this.deps.node,
          state: channels.length ? 'sending' : 'unsent',
        });
        if (rec) {
          this.announce(rec.id, o.rule, channels.length ? 'sending' : 'unsent');
          if (channels.length) await this.sender.deliver(rec.id, channels);
        }
      }
      await this.deps.store.closeAlertGroup(o.id);
    }
  }

  private track(work: Promise<unknown>): void {
    const p = work.then(
      () => undefined,
      (err: unknown) => this.failed('an alert', err),
    );
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private failed(what: string, err: unknown): void {
    this.deps.onError?.(`could not record or send ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  /**
   * Whether a route takes this rule about this workflow (a rule skips its look-ups when none
   * does); with `toChannel`, only a route with a channel counts.
   */
  async listens(rule: AlertRule, workflow: string | undefined, toChannel = false): Promise<boolean> {
    const route = await this.route(rule, workflow);
    return route !== undefined && (!toChannel || route.channels.length > 0);
  }

  /** A workflow was applied here: its `alerts:` is read again (other nodes read it within seconds). */
  forget(workflow: string): void {
    this.specCache.delete(workflow);
  }

  /** A workflow's `alerts:`, read at most every few seconds per workflow: runs end far more often than files change. */
  private workflowAlerts(workflow: string): Promise<WorkflowAlerts | undefined> {
    const now = this.deps.clock.now();
    const cached = this.specCache.get(workflow);
    if (cached && now - cached.at < SPEC_CACHE_MS) return cached.alerts;
    const alerts = this.deps.workflowAlerts(workflow);
    this.specCache.set(workflow, { at: now, alerts });
    // A failed read is not kept.
    alerts.catch(() => this.specCache.delete(workflow));
    if (this.specCache.size > 1000) this.specCache.delete(this.specCache.keys().next().value as string);
    return alerts;
  }

  /** The channels that hear of a rule about a workflow (or about the engine), or none. */
  private async route(rule: AlertRule, workflow: string | undefined): Promise<AlertRoute | undefined> {
    if (workflow === undefined)
      return this.deps.settings.engine.rules.includes(rule) ? this.deps.settings.engine : undefined;
    const own = await this.workflowAlerts(workflow);
    const route = own ?? this.deps.settings.workflows;
    // An expected duration asks for run_overdue, whatever the rules say; a monitor's miss and
    // odd duration go wherever its failures go (design.md §13).
    return route.rules.includes(rule) ||
      (rule === 'run_overdue' && own?.expectedDurationMs !== undefined) ||
      ((rule === 'monitor_missed' || rule === 'run_duration_anomaly') && route.rules.includes('run_failed'))
      ? route
      : undefined;
  }

  private async handle(input: AlertInput): Promise<void> {
    const route = await this.route(input.rule, input.workflow);
    if (!route) return;
    const at = input.at ?? this.deps.clock.now();
    const state: AlertState = route.channels.length ? 'sending' : 'unsent';
    const { event, ...fields } = input;
    const alert: NewAlert = {
      ...fields,
      ...alertKeys(input.rule, input.subject, at, this.deps.settings.groupWindowMs, event),
      at,
      node: this.deps.node,
      state,
    };
    const rec = await this.deps.store.recordAlert(alert);
    // Recorded already (by another node, or by this one for the same event): theirs to send.
    if (!rec) return;
    this.announce(rec.id, input.rule, rec.kind === 'grouped' ? 'grouped' : state);
    if (rec.kind !== 'immediate') return;
    this.summaryAt(alert.groupEndsAt);
    if (route.channels.length) await this.sender.deliver(rec.id, route.channels);
  }

  /**
   * The store is what decides who sends, and it is away: this node sends on its own, once per
   * window (every node that sees the outage may send one), and records nothing.
   */
  private async unrecorded(input: AlertInput): Promise<void> {
    const route = await this.route(input.rule, input.workflow);
    const at = input.at ?? this.deps.clock.now();
    const { groupKey } = alertKeys(input.rule, input.subject, at, this.deps.settings.groupWindowMs);
    if (!route?.channels.length || this.unrecordedSent.has(groupKey)) return;
    this.unrecordedSent.add(groupKey);
    if (this.unrecordedSent.size > 100) this.unrecordedSent.delete(this.unrecordedSent.values().next().value as string);
    const mask = this.deps.mask ?? ((text: string) => text);
    const alert: AlertRecord = {
      ...input,
      title: mask(input.title),
      message: mask(input.message),
      id: 0,
      key: groupKey,
      at,
      node: this.deps.node,
      kind: 'immediate',
      state: 'sending',
      deliveries: [],
    };
    const results = await Promise.all(route.channels.map((name) => this.sender.deliverOne(alert, name)));
    if (!results.every((ok) => ok))
      this.failed(`the alert "${input.title}"`, new Error('a channel refused it; see the lines above'));
  }

  /** The group's summary when its window ends (a sweep every 30 s is the fallback). */
  private summaryAt(at: number): void {
    const cancel = this.deps.clock.setTimer(Math.max(0, at - this.deps.clock.now()) + 100, () => {
      this.timers.delete(cancel);
      this.track(this.sweep());
    });
    this.timers.add(cancel);
  }

  private announce(alertId: number, rule: AlertRecord['rule'], state: AlertState): void {
    void this.deps.coordinator
      .publish({ type: 'alert-recorded', alertId, rule, state, at: this.deps.clock.now() })
      .catch(() => undefined);
  }
}

const NOUNS: Record<AlertRule, string> = {
  task_failed: 'task failures',
  run_failed: 'failed runs',
  recovered: 'recoveries',
  worker_lost: 'lost workers',
  queue_long: 'long-queue alerts',
  run_overdue: 'overdue runs',
  misfire_skipped: 'skipped fires',
  store_unreachable: 'store outages',
  clock_step: 'clock steps',
  monitor_missed: 'missed monitor runs',
  run_duration_anomaly: 'unusual run durations',
  engine: 'engine alerts',
};

/** e.g. "12 more failed runs of nightly-etl in 10m" */
function summaryTitle(opener: AlertRecord, repeats: number, windowMs: number): string {
  const noun = NOUNS[opener.rule as AlertRule] ?? 'alerts';
  return `${repeats} more ${noun}${opener.workflow ? ` of ${opener.workflow}` : ''} in ${formatDuration(windowMs)}`;
}

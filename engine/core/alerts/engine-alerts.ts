// An engine's alerts, built in one place: the AlertCenter with the host's channels and settings
// (none: alerts are recorded, not sent) and the rules the engine's parts call.
import type { AlertChannel } from '../../ports/alert-channel.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { AlertOutcome } from '../../ports/metrics.ts';
import type { DefinitionStore, AlertStore, RunStore, ReadModelStore } from '../../ports/store.ts';
import type { EngineConfig } from '../model/config.ts';
import { AlertCenter } from './alert-center.ts';
import { AlertRules } from './alert-rules.ts';
import { type AlertSettings, DEFAULT_ALERT_SETTINGS } from './alert-settings.ts';

export interface EngineAlertsDeps {
  store: DefinitionStore & AlertStore & RunStore & ReadModelStore;
  coordinator: Coordinator;
  clock: Clock;
  nodeId: string;
  config: EngineConfig;
  alerts?: { settings: AlertSettings; channels: AlertChannel[] };
  /** this node runs a scheduler: it looks for overdue runs too */
  scheduler: boolean;
  /** what could not be recorded or sent: to the host (stderr), never an alert itself */
  onError?: (message: string) => void;
  /** each channel delivery's end (the metrics' alerts sent and failed) */
  onDelivered?: (channel: string, outcome: AlertOutcome) => void;
  /** the node's secret mask (see AlertCenterDeps.mask) */
  mask?: (text: string) => string;
  /** the host's randomness */
  random: () => number;
}

export function engineAlerts(deps: EngineAlertsDeps): { center: AlertCenter; rules: AlertRules } {
  const center: AlertCenter = new AlertCenter({
    store: deps.store,
    coordinator: deps.coordinator,
    clock: deps.clock,
    node: deps.nodeId,
    channels: deps.alerts?.channels ?? [],
    settings: deps.alerts?.settings ?? DEFAULT_ALERT_SETTINGS,
    workflowAlerts: async (name) => (await deps.store.getWorkflowSpec(name))?.alerts,
    sweepMs: deps.config.alertSweepMs,
    // Overdue runs are looked for by scheduler nodes (any node would do, once per run; fewer is cheaper).
    ...(deps.scheduler && { onSweep: () => rules.checkOverdue() }),
    onError: deps.onError,
    onDelivered: deps.onDelivered,
    mask: deps.mask,
    random: deps.random,
  });
  const rules = new AlertRules(center, deps.store, deps.clock, deps.nodeId);
  return { center, rules };
}

/**
 * Reads the host's alert settings again (SIGHUP on a service) into the center; what was reloaded,
 * in words. Throws on a bad file, keeping the old ones.
 */
export function reloadAlerts(
  center: AlertCenter,
  reload: (() => NonNullable<EngineAlertsDeps['alerts']>) | undefined,
): string {
  if (!reload) return 'nothing: this engine has no settings to reload';
  const { settings, channels } = reload();
  center.reconfigure(settings, channels);
  return `alerts: ${channels.length} channel(s)${channels.length ? ` (${channels.map((c) => c.name).join(', ')})` : ''}`;
}

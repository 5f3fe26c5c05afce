// Alerts: recorded once by their keys, grouped, delivered per channel.
import type { AlertDelivery, AlertFilter, AlertRecord, AlertState } from '../api/alerts.ts';
import type { AlertRecorded, DueAlertGroup, NewAlert } from './store-types.ts';

/** Alerts, their groups and deliveries. */
export interface AlertStore {
  /**
   * Records an alert unless its key exists (undefined: another node, or an earlier call, has it).
   * Without `kind`, the first alert of its group is `immediate` (its node sends it) and later ones
   * are `grouped` (state `grouped`, counted in the group's summary); two nodes at once never both
   * open a group.
   */
  recordAlert(alert: NewAlert): Promise<AlertRecorded>;
  /** Writes (or replaces) one channel's delivery of an alert. */
  recordAlertDelivery(alertId: number, delivery: AlertDelivery): Promise<void>;
  setAlertState(alertId: number, state: AlertState): Promise<void>;
  /** groups whose window ended by `now` and are not closed yet, oldest first */
  dueAlertGroups(now: number, limit: number): Promise<DueAlertGroup[]>;
  /** marks a group's summary dealt with */
  closeAlertGroup(openerId: number): Promise<void>;
  /** newest first, with their deliveries */
  listAlerts(filter: AlertFilter): Promise<AlertRecord[]>;
  getAlert(id: number): Promise<AlertRecord | undefined>;
  /** Forgets alerts (and their deliveries) raised before `before`; returns how many. */
  purgeAlerts(before: number): Promise<number>;
}

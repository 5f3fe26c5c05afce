// The engine's live events and the topics a client subscribes to. The server sends each client
// only the events of the topics it asked for; a UI keeps its views fresh from these.
import type { AlertRule, AlertState } from './alerts.ts';
import type { BackfillState } from './backfill.ts';
import type { WorkerRecord } from './types.ts';

export type EngineEvent =
  | {
      type: 'instance';
      instanceId: number;
      runId: number;
      taskName: string;
      attempt: number;
      state: string;
      at: number;
    }
  | { type: 'run'; runId: number; workflowName: string; state: string; at: number }
  /** a backfill was created, topped up with runs, ended, cancelled or re-opened (getBackfill has its progress) */
  | { type: 'backfill'; backfillId: number; workflowName: string; state: BackfillState; at: number }
  | { type: 'log'; instanceId: number; seq: number; stream: string; ts: number; line: string }
  | { type: 'alert'; message: string; at: number }
  /** an alert recorded, or its delivery moved on (listAlerts has the whole record) */
  | { type: 'alert-recorded'; alertId: number; rule: AlertRule | 'test'; state: AlertState; at: number }
  | { type: 'worker'; change: 'joined' | 'changed' | 'left'; worker: WorkerRecord; at: number }
  | { type: 'workflow'; change: 'applied' | 'enabled' | 'disabled' | 'removed'; workflow: string; at: number }
  /** all scheduling paused (since, by whom) or resumed (by whom) */
  | { type: 'scheduling'; paused: boolean; since?: number; by: string; at: number };

/**
 * `runs`: run, instance and backfill state changes; `workers`: workers joining, leaving, changing;
 * `workflows`: definitions applied, switched, removed, and all scheduling paused or resumed;
 * `alerts`; `log:ID`: the live lines of
 * one task instance.
 */
export type Topic = 'runs' | 'workers' | 'workflows' | 'alerts' | `log:${number}`;

export function topicOf(event: EngineEvent): Topic {
  switch (event.type) {
    case 'instance':
    case 'run':
    case 'backfill':
      return 'runs';
    case 'log':
      return `log:${event.instanceId}`;
    case 'alert':
    case 'alert-recorded':
      return 'alerts';
    case 'worker':
      return 'workers';
    case 'workflow':
    case 'scheduling':
      return 'workflows';
  }
}

export function isTopic(value: unknown): value is Topic {
  return (
    typeof value === 'string' &&
    (['runs', 'workers', 'workflows', 'alerts'].includes(value) || /^log:[1-9][0-9]{0,15}$/.test(value))
  );
}

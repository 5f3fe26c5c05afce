// An instance's life from its recorded times: created → dispatched → started → finished, each step
// with the time it took since the one before (queueing, start-up, run time).
import type { InstanceRecord } from '../../../engine/api/types.ts';

export type HistoryStep = 'created' | 'dispatched' | 'started' | 'finished';

export interface HistoryItem {
  step: HistoryStep;
  at: number;
  /** ms since the previous recorded step */
  sincePrevious?: number;
}

export function stateHistory(inst: InstanceRecord): HistoryItem[] {
  const steps: [HistoryStep, number | undefined][] = [
    ['created', inst.createdAt],
    ['dispatched', inst.dispatchedAt],
    ['started', inst.startedAt],
    ['finished', inst.finishedAt],
  ];
  const out: HistoryItem[] = [];
  for (const [step, at] of steps) {
    if (at === undefined || at === null) continue;
    const prev = out[out.length - 1];
    out.push(prev ? { step, at, sincePrevious: Math.max(0, at - prev.at) } : { step, at });
  }
  return out;
}

/** The step the instance is in now (for a live instance, the one after the last recorded). */
export function pendingStep(inst: InstanceRecord): HistoryStep | undefined {
  if (inst.finishedAt !== undefined) return undefined;
  if (inst.state === 'RUNNING') return 'finished';
  if (inst.state === 'DISPATCHED') return 'started';
  if (inst.state === 'WAITING') return 'dispatched';
  return undefined;
}

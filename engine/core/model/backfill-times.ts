// A backfill's logical times: the schedule's fires in [from, to], or one per `every` step from
// `from` for a workflow without a schedule; oldest first, at most `cap` (the caller learns there
// are more by asking for one over its limit).
import { firesBetween } from './cron.ts';

export type BackfillTimesInput =
  | { cron: string; timezone: string; from: number; to: number; cap: number }
  | { everyMs: number; from: number; to: number; cap: number };

export function backfillTimes(input: BackfillTimesInput): number[] {
  const { from, to, cap } = input;
  if (to < from || cap <= 0) return [];
  if ('cron' in input) return firesBetween(input.cron, input.timezone, from - 1, to, cap);
  const out: number[] = [];
  for (let t = from; t <= to && out.length < cap; t += input.everyMs) out.push(t);
  return out;
}

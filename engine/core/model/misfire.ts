// What a scan does with a schedule's fire times: start them now, set timers for them, or drop
// them by the misfire policy (design.md §5). Work is bounded whatever the downtime: an every-second
// cron after three hours down has 10,800 missed fires, and cron-parser needs ~50-300 µs per step.
import type { MisfirePolicy } from '../../api/types.ts';
import { firesBetween, prevFire } from './cron.ts';

export const MISFIRE_LIMITS = {
  /** on-time fires started by one plan; more means the threshold spans too many fires */
  maxOnTime: 100,
  /** timers planned by one plan (the earliest); the next scan plans the rest */
  maxUpcoming: 100,
  /** dropped fires counted exactly; beyond it `skippedCapped` is set */
  maxCountedSkips: 100,
} as const;

export interface FirePlanInput {
  cron: string;
  timezone: string;
  /** the latest fire time already dealt with; only later fires are planned */
  lastFireAt: number;
  now: number;
  lookAheadMs: number;
  misfire: MisfirePolicy;
  /** a fire at most this late is on time; older ones are missed and follow `misfire` */
  misfireThresholdMs: number;
  /** for `all`: how many of the latest missed fires still run */
  maxCatchUp: number;
}

export interface FirePlan {
  /** Start these now, ascending: every on-time fire plus the catch-up the policy allows. */
  fireNow: number[];
  /** Fires in (now, now + lookAheadMs], ascending; the scheduler sets a timer for each. */
  upcoming: number[];
  /**
   * How many fires were dropped (missed and not caught up). A count rather than a list, because
   * long downtime of a frequent cron would make the list, and the work to build it, unbounded.
   * Counted up to MISFIRE_LIMITS.maxCountedSkips; `skippedCapped` says the real number is higher.
   */
  skipped: number;
  skippedCapped: boolean;
  /** The earliest and latest dropped fire times, for the record; set when `skipped` > 0. */
  skippedEarliest?: number;
  skippedLatest?: number;
}

/** Up to `count` fire times in (afterExclusive, atOrBefore], latest first. */
function latestFires(cron: string, tz: string, afterExclusive: number, atOrBefore: number, count: number): number[] {
  const out: number[] = [];
  let cursor = atOrBefore;
  while (out.length < count) {
    const t = prevFire(cron, tz, cursor);
    if (t === undefined || t <= afterExclusive) break;
    out.push(t);
    cursor = t - 1;
  }
  return out;
}

function catchUpAllowance(policy: MisfirePolicy, maxCatchUp: number): number {
  if (policy === 'run_once') return 1;
  if (policy === 'all') return Math.max(0, Math.floor(maxCatchUp));
  return 0;
}

/**
 * Plans the fire times in (lastFireAt, now + lookAheadMs]. Fires after `now` are upcoming; fires
 * no older than the threshold start now; older ones are missed: `run_once` starts the latest,
 * `all` the latest `maxCatchUp`, `skip` none. What starts now is always the newest fires, so
 * everything dropped lies between lastFireAt and fireNow[0].
 */
export function planFires(input: FirePlanInput): FirePlan {
  const { cron, timezone, lastFireAt, now } = input;
  const threshold = Math.max(0, input.misfireThresholdMs);
  const lookAhead = Math.max(0, input.lookAheadMs);
  // Most scans find nothing due (the next fire is beyond the look-ahead): one step decides that,
  // and also whether anything was missed at all.
  const [first] = firesBetween(cron, timezone, lastFireAt, now + lookAhead, 1);
  if (first === undefined) return { fireNow: [], upcoming: [], skipped: 0, skippedCapped: false };
  const upcoming = firesBetween(cron, timezone, Math.max(lastFireAt, now), now + lookAhead, MISFIRE_LIMITS.maxUpcoming);

  const onTimeAfter = Math.max(lastFireAt, now - threshold - 1);
  let onTime = firesBetween(cron, timezone, onTimeAfter, now, MISFIRE_LIMITS.maxOnTime + 1);
  let allowance = catchUpAllowance(input.misfire, input.maxCatchUp);
  let catchUpBefore = onTimeAfter; // missed fires lie in (lastFireAt, catchUpBefore]
  if (onTime.length > MISFIRE_LIMITS.maxOnTime) {
    // Keep the newest on-time fires; older ones, and every missed fire before them, are dropped.
    onTime = latestFires(cron, timezone, onTimeAfter, now, MISFIRE_LIMITS.maxOnTime).reverse();
    allowance = 0;
    catchUpBefore = (onTime[0] as number) - 1;
  }

  // One beyond the allowance tells us the latest dropped fire.
  const missed = first <= catchUpBefore ? latestFires(cron, timezone, lastFireAt, catchUpBefore, allowance + 1) : [];
  const caughtUp = missed.slice(0, allowance).reverse();
  const plan: FirePlan = { fireNow: [...caughtUp, ...onTime], upcoming, skipped: 0, skippedCapped: false };
  const skippedLatest = missed[allowance];
  if (skippedLatest === undefined) return plan;

  const dropped = firesBetween(cron, timezone, lastFireAt, skippedLatest, MISFIRE_LIMITS.maxCountedSkips + 1);
  plan.skippedCapped = dropped.length > MISFIRE_LIMITS.maxCountedSkips;
  plan.skipped = Math.min(dropped.length, MISFIRE_LIMITS.maxCountedSkips);
  plan.skippedEarliest = dropped[0];
  plan.skippedLatest = skippedLatest;
  return plan;
}

// A task's trigger rule (`run_if:`) as a pure decision: given the states of its upstreams in the
// run, whether it runs, is skipped, ends UPSTREAM_FAILED, or cannot be decided yet. It decides as
// soon as the answer is certain (one failure is enough for all_success and none_failed to give
// up, one success for all_failed), so a downstream never waits for what cannot change its fate.
import type { ReasonCode } from '../../api/reason-code.ts';
import { because } from '../../api/reasons.ts';
import type { InstanceState, RunIfRule } from '../../api/types.ts';

/** An upstream as the rule sees it: its name (for the reason) and its latest state; undefined when it has no instance yet. */
export interface UpstreamState {
  name: string;
  state: InstanceState | undefined;
  /** its reason: an UPSTREAM_FAILED upstream's names the failure further up, which its downstream repeats */
  reason?: string;
  reasonCode?: ReasonCode;
}

/** A verdict's why: its text, and its code (none when it repeats a reason stored without one). */
interface Why {
  reason: string;
  reasonCode?: ReasonCode;
}

export type TriggerVerdict =
  { kind: 'wait' } | { kind: 'run' } | ({ kind: 'skip' } & Why) | ({ kind: 'upstream_failed' } & Why);

/** Ended for good and not a success: a failure, a timeout, a cancel, or a failure further up. */
const FAILED: InstanceState[] = ['FAILED', 'TIMEOUT', 'CANCELLED', 'UPSTREAM_FAILED'];

type Kind = 'pending' | 'success' | 'failed' | 'skipped';

/**
 * What an upstream's latest state counts as. A FAILED or TIMEOUT attempt that still has a retry
 * is never the latest: the retry is created in the same step as the failure.
 */
export function upstreamKind(state: InstanceState | undefined): Kind {
  if (state === 'SUCCESS') return 'success';
  if (state === 'SKIPPED') return 'skipped';
  if (state !== undefined && FAILED.includes(state)) return 'failed';
  return 'pending';
}

/** Why, naming the upstream; a failure further up is named as its first marker named it (the task that failed). */
const described = (u: UpstreamState): Why =>
  u.state === 'UPSTREAM_FAILED' && u.reason
    ? { reason: u.reason, ...(u.reasonCode && { reasonCode: u.reasonCode }) }
    : because('upstream_ended', { task: u.name, state: u.state as string });

/** `… (run_if: RULE)`: with the rule as an argument of the upstream's code (a repeated reason of another code keeps its text, without a code). */
function underRule(why: Why, rule: RunIfRule): Why {
  const args = why.reasonCode?.args;
  if (why.reasonCode?.code === 'upstream_ended' && args)
    return because('upstream_ended_rule', { task: String(args.task), state: String(args.state), rule });
  return { reason: `${why.reason} (run_if: ${rule})` };
}

/**
 * The rule's verdict. A task without upstreams in its run always runs (its rule has nothing to
 * judge). Semantics of each rule:
 * - all_success: a failed upstream → UPSTREAM_FAILED (at once); a skipped one → SKIPPED (skips
 *   propagate); all succeeded → run.
 * - all_done: every upstream ended, whichever way → run.
 * - one_failed: one failed → run (at once); all ended and none failed → SKIPPED.
 * - all_failed: one succeeded or was skipped → SKIPPED (at once); all failed → run.
 * - none_failed: one failed → UPSTREAM_FAILED (at once: like all_success, a failure upstream is
 *   what stops it, and a re-run of that failure brings it back); all succeeded or skipped → run.
 */
export function decideTrigger(rule: RunIfRule, upstreams: readonly UpstreamState[]): TriggerVerdict {
  if (upstreams.length === 0) return { kind: 'run' };
  const of = (k: Kind) => upstreams.find((u) => upstreamKind(u.state) === k);
  const pending = of('pending');
  const failed = of('failed');
  switch (rule) {
    case 'all_success': {
      if (failed) return { kind: 'upstream_failed', ...described(failed) };
      const skipped = of('skipped');
      if (skipped) return { kind: 'skip', ...underRule(described(skipped), 'all_success') };
      return pending ? { kind: 'wait' } : { kind: 'run' };
    }
    case 'none_failed':
      if (failed) return { kind: 'upstream_failed', ...underRule(described(failed), 'none_failed') };
      return pending ? { kind: 'wait' } : { kind: 'run' };
    case 'all_done':
      return pending ? { kind: 'wait' } : { kind: 'run' };
    case 'one_failed':
      if (failed) return { kind: 'run' };
      if (pending) return { kind: 'wait' };
      return { kind: 'skip', ...because('one_failed_none_failed') };
    case 'all_failed': {
      const ok = of('success') ?? of('skipped');
      if (ok) return { kind: 'skip', ...because('all_failed_but', { task: ok.name, state: ok.state as string }) };
      return pending ? { kind: 'wait' } : { kind: 'run' };
    }
  }
}

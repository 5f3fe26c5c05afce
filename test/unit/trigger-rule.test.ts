import { describe, expect, it } from 'vitest';
import type { InstanceState, RunIfRule } from '../../engine/api/types.ts';
import { decideTrigger, type TriggerVerdict } from '../../engine/core/model/trigger-rule.ts';

// Upstream states, shortened: S success, F failed, T timeout, C cancelled, U upstream_failed,
// K skipped, W waiting (an instance not ended), R running, - no instance yet.
const STATE: Record<string, InstanceState | undefined> = {
  S: 'SUCCESS',
  F: 'FAILED',
  T: 'TIMEOUT',
  C: 'CANCELLED',
  U: 'UPSTREAM_FAILED',
  K: 'SKIPPED',
  W: 'WAITING',
  R: 'RUNNING',
  '-': undefined,
};
const ups = (code: string) => [...code].map((c, i) => ({ name: `u${i + 1}`, state: STATE[c] }));
const kind = (v: TriggerVerdict) => ({ wait: 'wait', run: 'run', skip: 'skip', upstream_failed: 'upfail' })[v.kind];

// Each row: the upstreams' states, then the verdict of all_success, all_done, one_failed, all_failed, none_failed.
const RULES: RunIfRule[] = ['all_success', 'all_done', 'one_failed', 'all_failed', 'none_failed'];
const TABLE: [string, string, string, string, string, string][] = [
  // one upstream, every state
  ['S', 'run', 'run', 'skip', 'skip', 'run'],
  ['F', 'upfail', 'run', 'run', 'run', 'upfail'],
  ['T', 'upfail', 'run', 'run', 'run', 'upfail'],
  ['C', 'upfail', 'run', 'run', 'run', 'upfail'],
  ['U', 'upfail', 'run', 'run', 'run', 'upfail'],
  ['K', 'skip', 'run', 'skip', 'skip', 'run'],
  ['W', 'wait', 'wait', 'wait', 'wait', 'wait'],
  ['R', 'wait', 'wait', 'wait', 'wait', 'wait'],
  ['-', 'wait', 'wait', 'wait', 'wait', 'wait'],
  // two upstreams, all ended
  ['SS', 'run', 'run', 'skip', 'skip', 'run'],
  ['SF', 'upfail', 'run', 'run', 'skip', 'upfail'],
  ['FF', 'upfail', 'run', 'run', 'run', 'upfail'],
  ['FT', 'upfail', 'run', 'run', 'run', 'upfail'],
  ['SK', 'skip', 'run', 'skip', 'skip', 'run'],
  ['KK', 'skip', 'run', 'skip', 'skip', 'run'],
  ['FK', 'upfail', 'run', 'run', 'skip', 'upfail'],
  ['KU', 'upfail', 'run', 'run', 'skip', 'upfail'],
  // decided early, while another upstream still runs
  ['FR', 'upfail', 'wait', 'run', 'wait', 'upfail'],
  ['SR', 'wait', 'wait', 'wait', 'skip', 'wait'],
  ['KR', 'skip', 'wait', 'wait', 'skip', 'wait'],
  ['UW', 'upfail', 'wait', 'run', 'wait', 'upfail'],
  ['S-', 'wait', 'wait', 'wait', 'skip', 'wait'],
  ['C-', 'upfail', 'wait', 'run', 'wait', 'upfail'],
  ['SSR', 'wait', 'wait', 'wait', 'skip', 'wait'],
  ['FFR', 'upfail', 'wait', 'run', 'wait', 'upfail'],
  // no upstream in the run (a root): nothing to judge
  ['', 'run', 'run', 'run', 'run', 'run'],
];

describe('decideTrigger: every rule × upstream states', () => {
  for (const [code, ...want] of TABLE) {
    for (const [i, rule] of RULES.entries()) {
      it(`${rule} with upstreams [${code}] → ${want[i]}`, () => {
        expect(kind(decideTrigger(rule, ups(code)))).toBe(want[i]);
      });
    }
  }
});

describe('decideTrigger: reasons name the upstream and the rule', () => {
  it('all_success: the failed upstream, before a skipped one', () => {
    expect(decideTrigger('all_success', ups('KF'))).toMatchObject({
      kind: 'upstream_failed',
      reason: 'upstream "u2" ended FAILED',
    });
  });
  it('all_success: a skip propagates, naming the skipped upstream', () => {
    expect(decideTrigger('all_success', ups('SK'))).toMatchObject({
      kind: 'skip',
      reason: 'upstream "u2" ended SKIPPED (run_if: all_success)',
    });
  });
  it('one_failed: skipped when all ended and none failed', () => {
    expect(decideTrigger('one_failed', ups('SK'))).toMatchObject({
      kind: 'skip',
      reason: 'run_if: one_failed, and no upstream failed',
    });
  });
  it('all_failed: names the upstream that did not fail', () => {
    expect(decideTrigger('all_failed', ups('FS'))).toMatchObject({
      kind: 'skip',
      reason: 'run_if: all_failed, but upstream "u2" ended SUCCESS',
    });
  });
  it('none_failed: names the failure and the rule', () => {
    expect(decideTrigger('none_failed', ups('KT'))).toMatchObject({
      kind: 'upstream_failed',
      reason: 'upstream "u2" ended TIMEOUT (run_if: none_failed)',
    });
  });
});

describe('decideTrigger: a failure further up is named as it was first', () => {
  it('an UPSTREAM_FAILED upstream passes its reason on', () => {
    const up = [{ name: 'load', state: 'UPSTREAM_FAILED' as const, reason: 'upstream "extract" ended FAILED' }];
    expect(decideTrigger('all_success', up)).toMatchObject({
      kind: 'upstream_failed',
      reason: 'upstream "extract" ended FAILED',
    });
    expect(decideTrigger('all_success', [{ name: 'load', state: 'UPSTREAM_FAILED' }])).toMatchObject({
      kind: 'upstream_failed',
      reason: 'upstream "load" ended UPSTREAM_FAILED',
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { FAILOVER_PREFIX, judgeActive } from '../../engine/core/model/backstops.ts';
import { DEFAULT_CONFIG } from '../../engine/core/model/config.ts';

const NOW = 1_000_000_000;
const inst = (over: Partial<InstanceRecord>): InstanceRecord => ({
  id: 7,
  runId: 1,
  workflowId: 1,
  taskId: 1,
  taskName: 't',
  attempt: 1,
  state: 'RUNNING',
  workerId: 'w1',
  notBefore: 0,
  createdAt: NOW - 60_000,
  startedAt: NOW - 60_000,
  heartbeatAt: NOW - 10_000,
  dispatchedAt: NOW - 60_000,
  handled: false,
  ...over,
});
const judge = (i: InstanceRecord, w: Parameters<typeof judgeActive>[1], timeoutMs?: number) =>
  judgeActive(i, w, timeoutMs, NOW, DEFAULT_CONFIG);

describe('judgeActive (design.md §7 backstops, default intervals 5 s / 30 s)', () => {
  it('leaves a running instance of a live worker alone', () => {
    expect(judge(inst({}), { lastHeartbeat: NOW - 4_000, running: [7] })).toBeUndefined();
  });

  it('fails over the instances of a worker silent for more than 3 × 5 s', () => {
    expect(judge(inst({}), { lastHeartbeat: NOW - 14_000 })).toBeUndefined();
    const v = judge(inst({}), { lastHeartbeat: NOW - 16_000 });
    expect(v).toEqual({
      to: 'FAILED',
      reason: `${FAILOVER_PREFIX} worker w1 lost (no heartbeat for 16s)`,
      reasonCode: { code: 'failover_worker_lost', args: { worker: 'w1', silent: 16_000 } },
      failover: true,
    });
    expect(judge(inst({}), undefined)?.reason).toBe(`${FAILOVER_PREFIX} worker w1 lost (never registered)`);
  });

  it('does not judge by task heartbeat age alone: a live worker that still lists the instance keeps it', () => {
    const stale = inst({ heartbeatAt: NOW - 10 * 60_000 });
    expect(judge(stale, { lastHeartbeat: NOW - 1_000, running: [7] })).toBeUndefined();
    // Without the probe's answer (no live registration, e.g. after a Redis flush) nothing is concluded either.
    expect(judge(stale, { lastHeartbeat: NOW - 1_000 })).toBeUndefined();
  });

  it('probe: a stale task heartbeat and a live worker that no longer lists it → failed over', () => {
    const stale = inst({ heartbeatAt: NOW - 76_000 }); // 2.5 × 30 s = 75 s
    expect(judge(stale, { lastHeartbeat: NOW - 1_000, running: [8] })).toMatchObject({
      failover: true,
      reason: expect.stringMatching(/^failed over: worker w1 no longer runs it/),
    });
    expect(judge(inst({ heartbeatAt: NOW - 74_000 }), { lastHeartbeat: NOW - 1_000, running: [8] })).toBeUndefined();
  });

  it('times out only past timeout + 1.5 × the task heartbeat interval', () => {
    const live = { lastHeartbeat: NOW - 1_000, running: [7] };
    // started 60 s ago; timeout 10 s → backstop at 10 + 45 = 55 s
    expect(judge(inst({}), live, 10_000)?.to).toBe('TIMEOUT');
    expect(judge(inst({}), live, 20_000)).toBeUndefined();
  });

  it('sends a DISPATCHED instance back to WAITING when its worker is lost or never picks it up', () => {
    expect(
      judge(inst({ state: 'DISPATCHED', dispatchedAt: NOW - 1_000 }), { lastHeartbeat: NOW - 1_000 }),
    ).toBeUndefined();
    expect(judge(inst({ state: 'DISPATCHED', dispatchedAt: NOW - 31_000 }), { lastHeartbeat: NOW - 1_000 })?.to).toBe(
      'WAITING',
    );
    expect(
      judge(inst({ state: 'DISPATCHED', dispatchedAt: NOW - 1_000 }), { lastHeartbeat: NOW - 20_000 })?.reason,
    ).toMatch(/was lost .* before it started/);
  });

  it('ignores final states', () => {
    expect(judge(inst({ state: 'SUCCESS' }), undefined)).toBeUndefined();
  });
});

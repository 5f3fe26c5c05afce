// The node's masking step: a value straddling the line cut is masked whole, URLs'
// userinfo is masked, values with a NUL are masked by their parts, and the store decorator masks
// every free text the engine keeps.
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../engine/core/logs/line-splitter.ts';
import { maskedStore } from '../../engine/core/secrets/masked-store.ts';
import { lineMask, MASK, maskUserinfo, SecretMask } from '../../engine/core/secrets/secret-mask.ts';
import type { Store } from '../../engine/ports/store.ts';

const SECRET = 'straddling-secret-42';

function split(max: number, text: string, values: string[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter(max, (l) => lines.push(l), lineMask(values));
  splitter.push(new TextEncoder().encode(text));
  splitter.end();
  return lines;
}

describe('masking before the line cut', () => {
  it('a value straddling the cut becomes *** whole: no first part shows', () => {
    for (const before of [1, 10, 19]) {
      const [line] = split(20 + before - 10, `${'x'.repeat(20 + before - 10 - before)}${SECRET}tail\n`, [SECRET]);
      expect(line).not.toContain(SECRET.slice(0, 3));
      expect(line).toMatch(/^x*\*\*\* … \[line truncated: \d+ bytes\]$/);
    }
  });

  it('masks whole lines as before, and leaves lines without a value alone', () => {
    expect(split(100, `a ${SECRET} b\nplain\n`, [SECRET])).toEqual([`a ${MASK} b`, 'plain']);
    expect(split(8, 'abcdefghij\n', [SECRET])).toEqual(['abcdefgh … [line truncated: 10 bytes]']);
  });

  it('maskPrefix keeps the cut and masks what starts before it', () => {
    const m = lineMask(['abcd'])!;
    expect(m.maskPrefix('xxabcdyy', 3)).toBe(`xx${MASK}`);
    expect(m.maskPrefix('xxxxabcd', 4)).toBe('xxxx');
    expect(m.slackBytes).toBe(3);
  });
});

describe('SecretMask', () => {
  it('learns the values a source gives, masks them and URLs userinfo, and NUL-holding values by their parts', () => {
    const mask = new SecretMask();
    const source = mask.watch({ get: (n) => (n === 'a' ? 'value-one\u0000value-two' : undefined), howToSet: () => '' });
    expect(mask.mask('value-one')).toBe('value-one');
    source.get('a');
    expect(mask.mask('got value-one and value-two')).toBe(`got ${MASK} and ${MASK}`);
    expect(maskUserinfo('POST https://user:pw@example.com/x failed')).toBe(`POST https://${MASK}@example.com/x failed`);
  });

  it('the store keeps audit, alert, delivery and reason texts masked', async () => {
    const seen: unknown[] = [];
    const fake = new Proxy(
      {},
      {
        get:
          (_t, prop) =>
          (...args: unknown[]) => (seen.push([prop, ...args]), Promise.resolve(true)),
      },
    ) as Store;
    const store = maskedStore(fake, (t) => t.replaceAll('s3cr3t', MASK));
    await store.audit({ at: 1, actor: 'me', action: 'x', object: 'o', detail: 'd s3cr3t' });
    await store.recordAlertDelivery(1, { channel: 'c', state: 'failed', attempts: 1, at: 1, error: 'POST s3cr3t' });
    const code = { code: 'worker_unregistered_before_start', args: { worker: 's3cr3t' } };
    await store.requeueInstance(1, { from: ['DISPATCHED'], attempt: 1 }, 'worker s3cr3t was lost', code);
    await store.setWaitingReason(1, 1, 'waiting: s3cr3t');
    await store.finishInstance(
      {
        id: 1,
        runId: 1,
        guard: { from: ['RUNNING'], attempt: 1 },
        to: 'FAILED',
        outcome: {
          reason: 'could not start: s3cr3t',
          reasonCode: { code: 'could_not_start', args: { error: 's3cr3t' } },
        },
        followUps: {},
        settlement: { taskCount: 1, queuedRoots: [] },
      },
      1,
    );
    await store.recordPid(1, { from: ['RUNNING'], attempt: 1 }, 3);
    expect(JSON.stringify(seen)).not.toContain('s3cr3t');
    // a reason's code quotes what its text quotes: its arguments are masked too
    expect(seen[2]).toEqual([
      'requeueInstance',
      1,
      { from: ['DISPATCHED'], attempt: 1 },
      `worker ${MASK} was lost`,
      { code: 'worker_unregistered_before_start', args: { worker: MASK } },
    ]);
    expect(seen[5]).toEqual(['recordPid', 1, { from: ['RUNNING'], attempt: 1 }, 3]);
  });
});

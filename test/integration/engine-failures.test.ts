// Retries through the real engine: each attempt is its own instance with its own log, and the
// next attempt waits for the backoff (fixed or exponential) after the previous one finished.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;
let scratch: string;

beforeAll(async () => {
  t = await startTestEngine();
  scratch = tempDir('ax-retry-');
});

afterAll(async () => {
  await t?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** A command that fails until it has been run `succeedOn` times (counted in a file). */
function flaky(counter: string, succeedOn: number): string {
  const file = JSON.stringify(path.join(scratch, counter));
  return `n=$(cat ${file} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${file}; echo "attempt $AX_ATTEMPT call $n"; test $n -ge ${succeedOn}`;
}

function attempts(instances: InstanceRecord[], task: string): InstanceRecord[] {
  return instances.filter((i) => i.taskName === task).sort((a, b) => a.attempt - b.attempt);
}

const gap = (prev: InstanceRecord, next: InstanceRecord): number =>
  (next.startedAt as number) - (prev.finishedAt as number);

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: retries', () => {
  it('retries a failing task with a fixed backoff; every attempt keeps its own log', async () => {
    await t.apply(`
workflow: retry-fixed
tasks:
  flaky:
    command: ${JSON.stringify(flaky('fixed', 3))}
    retries: 3
    retry_backoff: 1s
  after:
    command: echo after
    upstream: [flaky]
`);
    const { run, instances } = await t.runToEnd('retry-fixed');
    expect(run.state).toBe('SUCCESS');
    const tries = attempts(instances, 'flaky');
    expect(tries.map((i) => [i.attempt, i.state])).toEqual([
      [1, 'FAILED'],
      [2, 'FAILED'],
      [3, 'SUCCESS'],
    ]);
    expect(new Set(tries.map((i) => i.id)).size).toBe(3);
    // each failed attempt's log ends with the engine's word on the retry it scheduled
    for (const i of tries) {
      const retry = i.state === 'FAILED' ? [`retrying in 1s (attempt ${i.attempt + 1} of 4)`] : [];
      expect(await t.logText(i.id)).toEqual([`attempt ${i.attempt} call ${i.attempt}`, ...retry]);
    }
    expect(tries[0]?.exitCode).toBe(1);
    for (let n = 1; n < tries.length; n++) {
      const [prev, next] = [tries[n - 1] as InstanceRecord, tries[n] as InstanceRecord];
      expect(gap(prev, next)).toBeGreaterThanOrEqual(1_000);
      expect(next.startedAt).toBeGreaterThanOrEqual(next.notBefore);
    }
    // the downstream ran once, after the successful attempt only
    const after = attempts(instances, 'after');
    expect(after).toHaveLength(1);
    expect(after[0]?.startedAt).toBeGreaterThanOrEqual(tries[2]?.finishedAt as number);
  });

  it('doubles an exponential backoff per attempt', async () => {
    const delay = 400;
    await t.apply(`
workflow: retry-exp
tasks:
  flaky:
    command: ${JSON.stringify(flaky('exp', 3))}
    retries: 5
    retry_backoff:
      strategy: exponential
      delay: ${delay}ms
      max: 10s
`);
    const { run, instances } = await t.runToEnd('retry-exp');
    expect(run.state).toBe('SUCCESS');
    const tries = attempts(instances, 'flaky');
    expect(tries.map((i) => i.state)).toEqual(['FAILED', 'FAILED', 'SUCCESS']);
    const [first, second, third] = tries as [InstanceRecord, InstanceRecord, InstanceRecord];
    // notBefore is set from the backoff when the failure is handled: exact up to handling time
    expect(second.notBefore - (first.finishedAt as number)).toBeGreaterThanOrEqual(delay);
    expect(second.notBefore - (first.finishedAt as number)).toBeLessThan(2 * delay);
    expect(third.notBefore - (second.finishedAt as number)).toBeGreaterThanOrEqual(2 * delay);
    expect(third.notBefore - (second.finishedAt as number)).toBeLessThan(4 * delay);
    // and the processes really waited
    expect(gap(first, second)).toBeGreaterThanOrEqual(delay);
    expect(gap(second, third)).toBeGreaterThanOrEqual(2 * delay);
  });

  it('gives up after the last retry: the run fails and nothing more is attempted', async () => {
    await t.apply(`
workflow: retry-exhausted
tasks:
  broken:
    command: echo "try $AX_ATTEMPT"; exit 7
    retries: 1
    retry_backoff: 100ms
  after:
    command: echo never
    upstream: [broken]
`);
    const { run, instances } = await t.runToEnd('retry-exhausted');
    expect(run.state).toBe('FAILED');
    const tries = attempts(instances, 'broken');
    expect(tries.map((i) => [i.attempt, i.state, i.exitCode])).toEqual([
      [1, 'FAILED', 7],
      [2, 'FAILED', 7],
    ]);
    // the last attempt announces no retry; the first one does
    expect(await t.logText(tries[0]!.id)).toEqual(['try 1', 'retrying in 100ms (attempt 2 of 2)']);
    expect(await t.logText(tries[1]!.id)).toEqual(['try 2']);
    expect(attempts(instances, 'after').map((i) => i.state)).toEqual(['UPSTREAM_FAILED']);
    // no third attempt appears later either
    expect((await t.engine.getRun(run.id)).instances).toHaveLength(3);
  });
});

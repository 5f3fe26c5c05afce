// Volume through the real engine: 1,000 independent tasks under a concurrency limit of 8, each
// run exactly once, dispatched without reading the queue; a 50-task chain that runs strictly in order; and dispatch that is not
// blocked by a crowd of instances nobody can take.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import type { RunDetail } from '../../engine/api/engine-api.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

const MAX_CONCURRENCY = 8;
let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine({ maxConcurrency: MAX_CONCURRENCY });
});

afterAll(async () => {
  await t?.close();
});

/**
 * Runs the workflow and waits for the end polling only the run row: listing 1,000 instances every
 * 25 ms (as runToEnd does) would itself load the engine's event loop.
 */
async function runAndWait(workflow: string, timeoutMs: number): Promise<RunDetail> {
  const run = await t.engine.runWorkflow(workflow, { actor: 'test' });
  await waitFor(async () => (await t.engine.store.getRun(run.id))?.state !== 'RUNNING', {
    timeoutMs,
    intervalMs: 250,
    message: `run #${run.id} of ${workflow} to end`,
  });
  return t.engine.getRun(run.id);
}

const name = (i: number): string => `t${String(i).padStart(4, '0')}`;

/** The most instances whose [startedAt, finishedAt] intervals overlap at one moment. */
function peakOverlap(instances: InstanceRecord[]): number {
  const events = instances.flatMap((i) => [
    [i.startedAt as number, 1],
    [i.finishedAt as number, -1],
  ]);
  // at equal times, count the end first: back-to-back is not overlap
  events.sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number));
  let now = 0;
  let peak = 0;
  for (const [, delta] of events) peak = Math.max(peak, (now += delta as number));
  return peak;
}

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: scale', () => {
  it('runs 1,000 independent tasks exactly once each with at most 8 at a time', async () => {
    const count = 1_000;
    const tasks = Array.from({ length: count }, (_, i) => `  ${name(i)}:\n    command: "true"\n`).join('');
    await t.apply(`workflow: wide\ntasks:\n${tasks}`);
    // What dispatch reads: watched on the real store, not replaced.
    const store = t.engine.store;
    const dueWaiting = store.dueWaiting.bind(store);
    const reads: number[] = [];
    store.dueWaiting = async (...args) => {
      const due = await dueWaiting(...args);
      reads.push(due.length);
      return due;
    };
    const started = Date.now();
    const { run, instances } = await runAndWait('wide', 150_000).finally(() => (store.dueWaiting = dueWaiting));
    const elapsed = Date.now() - started;
    expect(run.state).toBe('SUCCESS');
    expect(instances).toHaveLength(count);
    expect(instances.every((i) => i.state === 'SUCCESS' && i.attempt === 1 && i.exitCode === 0)).toBe(true);
    expect(new Set(instances.map((i) => i.taskId)).size).toBe(count);
    expect(new Set(instances.map((i) => i.taskName))).toEqual(
      new Set(Array.from({ length: count }, (_, i) => name(i))),
    );
    expect(peakOverlap(instances)).toBeLessThanOrEqual(MAX_CONCURRENCY);
    // every task ran through the worker, none was dropped or duplicated by a stale dispatch
    expect(t.alerts.filter((a) => a.includes('ignored'))).toEqual([]);
    // Dispatch reads only what it can place: at most twice the free slots per read, never a page
    // of the queue per finished task (it read ~370 rows per task before). The one exception is
    // the look at the head of the line (50) while no worker is registered (a loaded machine lets
    // the registration lapse), at most once a second.
    expect(reads.reduce((n, r) => n + r, 0)).toBeLessThan(5 * count);
    expect(Math.max(...reads)).toBeLessThanOrEqual(50);
    expect(reads.filter((r) => r > 2 * MAX_CONCURRENCY).length).toBeLessThanOrEqual(Math.ceil(elapsed / 1000) + 1);
    // a figure for the report, not a timing assertion
    console.info(`1,000 tasks: ${elapsed} ms (${Math.round(count / (elapsed / 1000))} tasks/s)`);
    // ~40 s on an idle 2-core machine (spawn and SQLite per task); the deadline allows for a busy one
  }, 180_000);

  it('runs a chain of 50 tasks strictly in order', async () => {
    const length = 50;
    const tasks = Array.from({ length }, (_, i) =>
      i === 0
        ? `  ${name(i)}:\n    command: echo ${i}\n`
        : `  ${name(i)}:\n    command: echo ${i}\n    upstream: [${name(i - 1)}]\n`,
    ).join('');
    await t.apply(`workflow: chain\ntasks:\n${tasks}`);
    const { run, instances } = await runAndWait('chain', 60_000);
    expect(run.state).toBe('SUCCESS');
    expect(instances).toHaveLength(length);
    const byName = new Map(instances.map((i) => [i.taskName, i]));
    for (let i = 1; i < length; i++) {
      const prev = byName.get(name(i - 1)) as InstanceRecord;
      const next = byName.get(name(i)) as InstanceRecord;
      expect(next.state).toBe('SUCCESS');
      expect(next.startedAt, `${next.taskName} started after ${prev.taskName} finished`).toBeGreaterThanOrEqual(
        prev.finishedAt as number,
      );
      // created only once its upstream succeeded: event-driven advance, not pre-created
      expect(next.createdAt).toBeGreaterThanOrEqual(prev.finishedAt as number);
    }
    // instance ids follow the chain: each was created by its upstream's success
    expect(instances.map((i) => i.taskName)).toEqual(Array.from({ length }, (_, i) => name(i)));
    expect(await t.logText((byName.get(name(length - 1)) as InstanceRecord).id)).toEqual([String(length - 1)]);
  });

  // Last in the file: it leaves 600 instances waiting for good.
  it('does not let a page of instances no worker can take hide the ones behind it', async () => {
    // More unplaceable instances (labelled for a worker that is not there) than one dispatch page.
    const stuck = 600;
    const tasks = Array.from(
      { length: stuck },
      (_, i) => `  ${name(i)}:\n    command: "true"\n    labels: [gpu]\n`,
    ).join('');
    await t.apply(`workflow: needs-gpu\ntasks:\n${tasks}`);
    await t.apply('workflow: plain\ntasks:\n  hello:\n    command: echo hello\n');
    const blocked = await t.engine.runWorkflow('needs-gpu', { actor: 'test' });
    const { run, instances } = await runAndWait('plain', 20_000);
    expect(run.state).toBe('SUCCESS');
    expect(await t.logText(instances[0]!.id)).toEqual(['hello']);
    const waiting = (await t.engine.getRun(blocked.id)).instances;
    expect(waiting).toHaveLength(stuck);
    expect(waiting.every((i) => i.state === 'WAITING')).toBe(true);
    expect(waiting[0]?.reason).toContain('labels [gpu]');
  });
});

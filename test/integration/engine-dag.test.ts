// Dependency order through the real engine: a diamond a → (b, c) → d on a SQLite file with
// real processes. d must start once, after both of its upstreams, and never when one fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t?.close();
});

function byTask(instances: InstanceRecord[]): Map<string, InstanceRecord[]> {
  const out = new Map<string, InstanceRecord[]>();
  for (const i of instances) out.set(i.taskName, [...(out.get(i.taskName) ?? []), i]);
  return out;
}

function only(map: Map<string, InstanceRecord[]>, task: string): InstanceRecord {
  const list = map.get(task) ?? [];
  expect(list, `instances of ${task}`).toHaveLength(1);
  return list[0] as InstanceRecord;
}

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: diamond DAG', () => {
  it('runs d exactly once, after both b and c finished', async () => {
    // b and c take different times, so "after both" is not satisfied by chance by the first one.
    await t.apply(`
workflow: diamond-ok
tasks:
  a:
    command: echo a
  b:
    command: sleep 0.3; echo b
    upstream: [a]
  c:
    command: sleep 0.8; echo c
    upstream: [a]
  d:
    command: echo d
    upstream: [b, c]
`);
    const { run, instances } = await t.runToEnd('diamond-ok');
    expect(run.state).toBe('SUCCESS');
    expect(instances).toHaveLength(4);
    const tasks = byTask(instances);
    const a = only(tasks, 'a');
    const b = only(tasks, 'b');
    const c = only(tasks, 'c');
    const d = only(tasks, 'd');
    for (const i of [a, b, c, d]) {
      expect(i.state).toBe('SUCCESS');
      expect(i.attempt).toBe(1);
      expect(await t.logText(i.id)).toEqual([i.taskName]);
    }
    expect(b.startedAt).toBeGreaterThanOrEqual(a.finishedAt as number);
    expect(c.startedAt).toBeGreaterThanOrEqual(a.finishedAt as number);
    // b and c are independent: both run while the other is still going.
    expect(b.startedAt).toBeLessThan(c.finishedAt as number);
    expect(c.startedAt).toBeLessThan(b.finishedAt as number);
    expect(d.startedAt).toBeGreaterThanOrEqual(Math.max(b.finishedAt as number, c.finishedAt as number));
    expect(run.finishedAt).toBeGreaterThanOrEqual(d.finishedAt as number);
  });

  it('never runs d when c fails: d is UPSTREAM_FAILED and the run FAILED', async () => {
    await t.apply(`
workflow: diamond-fail
tasks:
  a:
    command: echo a
  b:
    command: sleep 0.5; echo b
    upstream: [a]
  c:
    command: echo failing; exit 1
    upstream: [a]
  d:
    command: echo d
    upstream: [b, c]
`);
    const { run, instances } = await t.runToEnd('diamond-fail');
    expect(run.state).toBe('FAILED');
    const tasks = byTask(instances);
    expect(only(tasks, 'a').state).toBe('SUCCESS');
    // b was already running when c failed; it is let finish, not abandoned.
    expect(only(tasks, 'b').state).toBe('SUCCESS');
    const c = only(tasks, 'c');
    expect(c).toMatchObject({ state: 'FAILED', exitCode: 1, attempt: 1 });
    const d = only(tasks, 'd');
    expect(d.state).toBe('UPSTREAM_FAILED');
    expect(d.startedAt).toBeUndefined();
    expect(d.pid).toBeUndefined();
    expect(d.reason).toContain('"c"');
    expect(await t.logText(d.id)).toEqual([]);
    expect(run.finishedAt).toBeGreaterThanOrEqual(only(tasks, 'b').finishedAt as number);
  });

  it('runs a join once when its many upstreams finish at about the same moment', async () => {
    const fan = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const tasks = fan.map((m) => `  ${m}:\n    command: "true"\n    upstream: [root]\n`).join('');
    await t.apply(
      `workflow: fan-in\ntasks:\n  root:\n    command: "true"\n${tasks}  join:\n    command: echo joined\n    upstream: [${fan.join(', ')}]\n`,
    );
    const { run, instances } = await t.runToEnd('fan-in');
    expect(run.state).toBe('SUCCESS');
    const tasksByName = byTask(instances);
    const join = only(tasksByName, 'join');
    expect(join.state).toBe('SUCCESS');
    expect(await t.logText(join.id)).toEqual(['joined']);
    const lastUpstream = Math.max(...fan.map((m) => only(tasksByName, m).finishedAt as number));
    expect(join.startedAt).toBeGreaterThanOrEqual(lastUpstream);
    expect(instances).toHaveLength(22);
  });

  it('fails the whole downstream closure, not just the direct children', async () => {
    await t.apply(`
workflow: chain-fail
tasks:
  first:
    command: exit 3
  second:
    command: echo never
    upstream: [first]
  third:
    command: echo never
    upstream: [second]
  side:
    command: echo side
`);
    const { run, instances } = await t.runToEnd('chain-fail');
    expect(run.state).toBe('FAILED');
    const tasks = byTask(instances);
    expect(only(tasks, 'first')).toMatchObject({ state: 'FAILED', exitCode: 3 });
    expect(only(tasks, 'second').state).toBe('UPSTREAM_FAILED');
    expect(only(tasks, 'third').state).toBe('UPSTREAM_FAILED');
    expect(only(tasks, 'side').state).toBe('SUCCESS');
  });
});

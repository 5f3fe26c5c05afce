// Dependencies across workflows through the real engine: a solo engine on a SQLite file
// with real processes runs a three-workflow chain of three owners; apply refuses a cycle across
// workflows (spelled out), warns about references to what does not exist yet and about a removed
// task others depend on; `ax ls` lists the dangling references; the lineage has owners and
// today's states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../engine/api/errors.ts';
import type { ApplyOutcome } from '../../engine/api/engine-api.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { lineageTable } from '../../engine/hosts/cli/commands-lineage.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

// A zone where it is now about noon, so runs made during the test fall on one calendar day there.
const offset = 12 - new Date().getUTCHours();
const NOON_ZONE = offset >= 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
const schedule = `schedule: { cron: "0 0 1 1 *", timezone: ${NOON_ZONE} }`;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t?.close();
});

function apply(text: string): Promise<ApplyOutcome> {
  return t.engine.apply(parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec, 'test');
}

const task = (instances: InstanceRecord[], name: string) =>
  instances.filter((i) => i.taskName === name).at(-1) as InstanceRecord;

// POSIX shells and process groups: these do not exist on Windows.
describe.skipIf(process.platform === 'win32')('engine: dependencies across workflows', () => {
  it('a chain over three workflows and owners: each waits, visibly, and starts once its upstream succeeded', async () => {
    const warned = await apply(
      `workflow: sales\nowner: carol\n${schedule}\ntasks:\n  report: { command: "echo report", upstream: [warehouse.load] }\n`,
    );
    expect(warned.warnings).toEqual([
      'tasks.report.upstream: no workflow "warehouse" yet: "report" waits until it is applied and succeeds (up to its wait_timeout)',
    ]);
    expect((await t.engine.listWorkflows()).find((w) => w.name === 'sales')?.missingUpstreams).toEqual([
      'warehouse.load',
    ]);
    await apply(
      `workflow: orders\nowner: alice\n${schedule}\ntasks:\n  extract: { command: "sleep 0.3; echo extract" }\n`,
    );
    const ok = await apply(
      `workflow: warehouse\nowner: bob\n${schedule}\ntasks:\n  load: { command: "echo load", upstream: [orders.extract], owner: dave }\n`,
    );
    expect(ok.warnings).toBeUndefined();
    expect((await t.engine.listWorkflows()).every((w) => w.missingUpstreams === undefined)).toBe(true);

    const sales = await t.engine.runWorkflow('sales', { actor: 'test' });
    const warehouse = await t.engine.runWorkflow('warehouse', { actor: 'test' });
    expect(task((await t.engine.getRun(sales.id)).instances, 'report')).toMatchObject({
      state: 'WAITING',
      reason: expect.stringMatching(/^waiting for warehouse\.load of \d{4}-\d\d-\d\d$/),
    });
    expect(task((await t.engine.getRun(warehouse.id)).instances, 'load').reason).toMatch(
      /^waiting for orders\.extract of /,
    );
    // held instances wait for another workflow, not for a worker: not in the dashboard's queue
    expect((await t.engine.dashboard()).queueLength).toBe(0);

    const orders = await t.engine.runWorkflow('orders', { actor: 'test' });
    const [o, w, s] = [await t.waitRun(orders.id), await t.waitRun(warehouse.id), await t.waitRun(sales.id)];
    expect([o.run.state, w.run.state, s.run.state]).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    const [extract, load, report] = [
      task(o.instances, 'extract'),
      task(w.instances, 'load'),
      task(s.instances, 'report'),
    ];
    expect(load.attempt).toBe(1);
    expect(load.startedAt as number).toBeGreaterThanOrEqual(extract.finishedAt as number);
    expect(report.startedAt as number).toBeGreaterThanOrEqual(load.finishedAt as number);
    expect(report.reason).toBeUndefined();

    const graph = await t.engine.lineage('warehouse.load');
    expect(graph.focus).toEqual(['warehouse.load']);
    expect(graph.nodes).toEqual([
      { id: 'orders.extract', workflow: 'orders', task: 'extract', owner: 'alice', state: 'SUCCESS', runId: orders.id },
      { id: 'sales.report', workflow: 'sales', task: 'report', owner: 'carol', state: 'SUCCESS', runId: sales.id },
      {
        id: 'warehouse.load',
        workflow: 'warehouse',
        task: 'load',
        owner: 'dave',
        state: 'SUCCESS',
        runId: warehouse.id,
      },
    ]);
    expect(graph.edges).toEqual([
      { from: 'orders.extract', to: 'warehouse.load', across: true, date: 'same_day' },
      { from: 'warehouse.load', to: 'sales.report', across: true, date: 'same_day' },
    ]);
    // "who depends on me": downstream only
    expect((await t.engine.lineage('orders.extract', { up: 0, down: 1 })).nodes.map((n) => n.id)).toEqual([
      'orders.extract',
      'warehouse.load',
    ]);
    expect(lineageTable(graph).split('\n')).toEqual([
      expect.stringMatching(/^TASK\s+OWNER\s+TODAY\s+UPSTREAM$/),
      expect.stringMatching(/^ {2}orders\.extract\s+alice\s+✓ SUCCESS\s+–$/),
      expect.stringMatching(/^ {2}sales\.report\s+carol\s+✓ SUCCESS\s+warehouse\.load$/),
      expect.stringMatching(/^▸ warehouse\.load\s+dave\s+✓ SUCCESS\s+orders\.extract$/),
    ]);
  });

  it('refuses a cycle across workflows at apply, spelled out, and keeps what was there', async () => {
    await apply(`workflow: ping\ntasks:\n  x: { command: "true", upstream: [pong.y] }\n`);
    await apply(`workflow: pong\ntasks:\n  y: { command: "true" }\n  z: { command: "true", upstream: [y] }\n`);
    const err = await apply(
      `workflow: pong\ntasks:\n  y: { command: "true", upstream: [{ ref: ping.x, date: previous_day }] }\n`,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).problems).toEqual([
      {
        file: 'workflow pong',
        path: 'tasks',
        message: 'cycle across workflows: pong.y → ping.x → pong.y: remove one of these upstreams',
      },
    ]);
    expect((await t.engine.exportWorkflow('pong')).tasks.map((x) => x.name)).toEqual(['y', 'z']);
    // A whole-workflow reference closes a cycle too.
    const whole = await apply(`workflow: pong\ntasks:\n  y: { command: "true", upstream: [ping.*] }\n`).catch(
      (e: unknown) => e,
    );
    expect(whole).toBeInstanceOf(ValidationError);
    expect((whole as ValidationError).problems[0]?.message).toBe(
      'cycle across workflows: pong.y → ping.x → pong.y: remove one of these upstreams',
    );
  });

  it('warns when a task others depend on is removed or renamed, naming them', async () => {
    await apply(`workflow: up1\ntasks:\n  extract: { command: "true" }\n`);
    await apply(`workflow: down1\ntasks:\n  load: { command: "true", upstream: [up1.extract] }\n`);
    await apply(`workflow: down2\ntasks:\n  use: { command: "true", upstream: [up1.extract] }\n`);
    const out = await apply(`workflow: up1\ntasks:\n  extract_v2: { command: "true" }\n`);
    expect(out.warnings).toEqual([
      'task "extract" is removed (or renamed), but down1.load, down2.use depend on up1.extract: they will wait until their wait_timeout; change their upstream',
    ]);
    expect(
      (await t.engine.listWorkflows()).filter((w) => w.missingUpstreams).map((w) => [w.name, w.missingUpstreams]),
    ).toEqual([
      ['down1', ['up1.extract']],
      ['down2', ['up1.extract']],
    ]);
    await expect(t.engine.lineage('up1.nope')).rejects.toThrow(
      'workflow "up1" has no task "nope": its tasks are extract_v2',
    );
  });

  it('a waiter whose upstream fails for good ends UPSTREAM_FAILED, and runs once a re-run succeeds', async () => {
    await apply(
      `workflow: flaky\n${schedule}\ntasks:\n  make: { command: "test -f $AX_FLAG_FILE" }\n`.replace(
        '$AX_FLAG_FILE',
        `${t.dir}/ok`,
      ),
    );
    await apply(
      `workflow: consumer\n${schedule}\ntasks:\n  use: { command: "echo used" }\n  take: { command: "echo take", upstream: [flaky.make] }\n`,
    );
    const consumer = await t.engine.runWorkflow('consumer', { actor: 'test' });
    const flaky = await t.runToEnd('flaky');
    expect(flaky.run.state).toBe('FAILED');
    const failed = await t.waitRun(consumer.id);
    expect(task(failed.instances, 'take')).toMatchObject({
      state: 'UPSTREAM_FAILED',
      reason: expect.stringMatching(/^upstream flaky\.make of .* failed for good/),
    });
    const again = await t.engine.runWorkflow('consumer', { actor: 'test' });
    await waitFor(async () => task((await t.engine.getRun(again.id)).instances, 'take')?.state === 'WAITING', {
      message: 'consumer.take did not wait',
    });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${t.dir}/ok`, '');
    await t.engine.rerunTask(flaky.run.id, 'make', 'test');
    expect((await t.waitRun(flaky.run.id)).run.state).toBe('SUCCESS');
    const done = await t.waitRun(again.id);
    expect(done.run.state).toBe('SUCCESS');
    expect(task(done.instances, 'take').attempt).toBe(1);
  });
});

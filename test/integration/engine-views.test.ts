// The read models and live topics behind the UI, through a real solo engine: validation with
// field paths, fire previews, the run-history grid with paging, the dashboard, search, runtime
// statistics with the timeout suggestion, a log's extent and server-side search, and
// subscriptions that deliver only their topics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../engine/api/events.ts';
import { COMMENTS_DROPPED } from '../../engine/core/read-models.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';
import { waitFor } from '../helpers/wait-for.ts';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
  await t.apply(`
workflow: etl
description: the nightly load
schedule:
  cron: "0 2 * * *"
  timezone: Europe/Berlin
tasks:
  extract:
    command: printf 'row %s\\n' 1 2 3 NEEDLE 5; echo oops >&2
  load:
    command: sh -c 'exit $LOAD_EXIT'
    env: { LOAD_EXIT: "0" }
    upstream: [extract]
`);
});

afterAll(async () => {
  await t?.close();
});

describe('validate and formatWorkflow', () => {
  it('reports every problem with its field path, and the defaults of a valid file', async () => {
    const bad = await t.engine.validate({
      text: 'workflow: w\ntasks:\n  a:\n    command: x\n    timeout: soon\n  b:\n    command: y\n    upstream: [zz]\n',
    });
    expect(bad.ok).toBe(false);
    expect(bad.problems.map((p) => p.path).sort()).toEqual(['tasks.a.timeout', 'tasks.b.upstream']);
    const good = await t.engine.validate({ text: 'workflow: w\ntasks:\n  a:\n    command: x\n' });
    expect(good).toMatchObject({ ok: true, problems: [] });
    expect(good.spec?.tasks[0]).toMatchObject({ name: 'a', command: 'x', retries: 0 });
    expect(good.warnings).toEqual([]);
    // a text taken in (the designer's import) keeps no comments: said once, as a warning
    const commented = await t.engine.validate({
      text: '# the nightly one\nworkflow: w\ntasks:\n  a:\n    command: x  # list\n',
    });
    expect(commented).toMatchObject({ ok: true, warnings: [{ path: '', message: COMMENTS_DROPPED }] });
  });

  it('a spec validates like a file, and formats to the text ax export writes', async () => {
    const spec = await t.engine.exportWorkflow('etl');
    expect((await t.engine.validate({ spec })).ok).toBe(true);
    const text = await t.engine.formatWorkflow(spec);
    expect(text).toContain('workflow: etl');
    const back = await t.engine.validate({ text });
    expect(back.spec).toEqual(spec);
    const cyclic = {
      ...spec,
      tasks: spec.tasks.map((task) => (task.name === 'extract' ? { ...task, upstream: ['load'] } : task)),
    };
    const report = await t.engine.validate({ spec: cyclic });
    expect(report.problems).toEqual([
      expect.objectContaining({
        path: 'tasks',
        message: expect.stringMatching(/cycle: (extract → load → extract|load → extract → load)/),
      }),
    ]);
  });
});

describe('nextFires', () => {
  it('gives the next fire times in the schedule zone, and refuses a wrong cron naming the field', async () => {
    const preview = await t.engine.nextFires({ cron: '0 2 * * *', timezone: 'Europe/Berlin' }, 3);
    expect(preview.times).toHaveLength(3);
    for (const at of preview.times) {
      expect(
        new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(at),
      ).toBe('02:00');
    }
    expect(preview.times[1] as number).toBeGreaterThan(preview.times[0] as number);
    expect(preview.text).toMatch(/02:00/);
    await expect(t.engine.nextFires({ cron: '0 25 * * *' }, 3)).rejects.toMatchObject({
      problems: [expect.objectContaining({ path: 'schedule.cron' })],
    });
  });
});

describe('after two runs, one failing', () => {
  let okRun = 0;
  let failedRun = 0;
  beforeAll(async () => {
    okRun = (await t.runToEnd('etl')).run.id;
    const spec = await t.engine.exportWorkflow('etl');
    await t.engine.apply(
      {
        ...spec,
        tasks: spec.tasks.map((task) => (task.name === 'load' ? { ...task, env: { LOAD_EXIT: '3' } } : task)),
      },
      'test',
    );
    failedRun = (await t.runToEnd('etl')).run.id;
  });

  it('runGrid: runs × tasks, newest first, each cell the latest attempt, paged by run id', async () => {
    const first = await t.engine.runGrid('etl', { limit: 1 });
    expect(first.tasks).toEqual(['extract', 'load']);
    expect(first.rows.map((r) => r.run.id)).toEqual([failedRun]);
    expect(first.rows[0]?.cells.load).toMatchObject({ state: 'FAILED', attempt: 1 });
    expect(first.nextBeforeRunId).toBe(failedRun);
    const second = await t.engine.runGrid('etl', { limit: 1, beforeRunId: first.nextBeforeRunId });
    expect(second.rows.map((r) => r.run.id)).toEqual([okRun]);
    expect(second.rows[0]?.cells.load?.state).toBe('SUCCESS');
    await expect(t.engine.runGrid('nope', {})).rejects.toMatchObject({ code: 'not_found' });
  });

  it("dashboard: today's failures one click from their instance, counts, next fires", async () => {
    const d = await t.engine.dashboard();
    expect(d.failuresToday).toEqual([
      expect.objectContaining({ taskName: 'load', state: 'FAILED', reason: 'exit code 3' }),
    ]);
    expect(d.failuresToday[0]?.run.id).toBe(failedRun);
    const inst = await t.engine.getInstance(d.failuresToday[0]?.instanceId as number);
    expect(inst).toMatchObject({ taskName: 'load', runId: failedRun });
    expect(d.today).toEqual({ success: 1, failed: 1, total: 2 });
    expect(d.nextFires).toEqual([expect.objectContaining({ workflow: 'etl', timezone: 'Europe/Berlin' })]);
    expect(d.workers.online).toBe(1);
    expect(d.running).toEqual([]);
    expect(d.queueLength).toBe(0);
  });

  it('search finds workflows, task names and commands, case-insensitively and literally', async () => {
    expect(await t.engine.search('EXTRACT')).toEqual([
      expect.objectContaining({ workflow: 'etl', task: 'extract', field: 'task' }),
    ]);
    expect(await t.engine.search('LOAD_EXIT')).toEqual([expect.objectContaining({ task: 'load', field: 'command' })]);
    expect(await t.engine.search('_x')).toEqual([]); // a LIKE wildcard would match "extract"
    expect(await t.engine.search('%s')).toEqual([expect.objectContaining({ task: 'extract', field: 'command' })]);
    expect((await t.engine.search('etl')).map((h) => h.task)).toEqual(['extract', 'load']);
  });

  it('taskStats: runtimes of successful attempts and the suggestion observed × 1.5 + 5 min', async () => {
    const stats = await t.engine.taskStats('etl');
    const extract = stats.find((s) => s.task === 'extract');
    expect(extract?.samples).toBe(2);
    expect(extract?.suggestedTimeoutMs).toBe(Math.ceil(((extract?.maxMs as number) * 1.5 + 300_000) / 60_000) * 60_000);
    expect(stats.find((s) => s.task === 'load')?.samples).toBe(1);
  });

  it('logInfo and searchLog answer from the store without shipping the log', async () => {
    const { instances } = await t.engine.getRun(okRun);
    const extract = instances.find((i) => i.taskName === 'extract')?.id as number;
    const info = await t.engine.logInfo(extract);
    expect(info).toMatchObject({ instanceId: extract, firstSeq: 1, lines: info.lastSeq });
    expect(info.lines).toBeGreaterThanOrEqual(6);
    const hits = await t.engine.searchLog(extract, 'needle', {});
    expect(hits).toEqual([expect.objectContaining({ line: 'row NEEDLE', stream: 'stdout' })]);
    expect(await t.engine.searchLog(extract, 'needle', { afterSeq: hits[0]?.seq })).toEqual([]);
    expect(await t.engine.searchLog(extract, 'OOPS', {})).toEqual([expect.objectContaining({ stream: 'stderr' })]);
    expect(await t.engine.logInfo(999_999)).toMatchObject({ lines: 0, firstSeq: 0, lastSeq: 0 });
  });
});

describe('subscribe', () => {
  it("delivers only the topics asked for: one instance's lines, not another's", async () => {
    await t.apply(`
workflow: two
tasks:
  a:
    command: for i in 1 2 3; do echo "a$i"; sleep 0.1; done
  b:
    command: for i in 1 2 3; do echo "b$i"; sleep 0.1; done
`);
    const runEvents: EngineEvent[] = [];
    const logEvents: EngineEvent[] = [];
    const stopRuns = await t.engine.subscribe(['runs'], (e) => runEvents.push(e));
    const run = await t.engine.runWorkflow('two', { actor: 'test' });
    const a = await waitFor(async () => (await t.engine.getRun(run.id)).instances.find((i) => i.taskName === 'a'), {
      timeoutMs: 10_000,
    });
    const stopLog = await t.engine.subscribe([`log:${a.id}`], (e) => logEvents.push(e));
    await t.waitRun(run.id);
    await waitFor(() => logEvents.some((e) => e.type === 'log' && e.line === 'a3'), { timeoutMs: 5_000 });
    stopRuns();
    stopLog();
    expect(logEvents.every((e) => e.type === 'log' && e.instanceId === a.id)).toBe(true);
    expect(runEvents.every((e) => e.type === 'run' || e.type === 'instance')).toBe(true);
    expect(runEvents).toContainEqual(expect.objectContaining({ type: 'run', runId: run.id, state: 'SUCCESS' }));
  });

  it('workflow changes reach the workflows topic', async () => {
    const seen: EngineEvent[] = [];
    const stop = await t.engine.subscribe(['workflows'], (e) => seen.push(e));
    await t.engine.setEnabled('two', false, 'test');
    await t.engine.removeWorkflow('two', 'test');
    stop();
    expect(seen.map((e) => (e.type === 'workflow' ? `${e.change}:${e.workflow}` : e.type))).toEqual([
      'disabled:two',
      'removed:two',
    ]);
  });
});

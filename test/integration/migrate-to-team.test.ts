// ax migrate --to team, at the store level: a solo data dir's workflows and history land in an
// empty MySQL or PostgreSQL database with the same ids, and the team carries on from there.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyStore } from '../../engine/adapters/sql/copy-store.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import { openPostgresStore } from '../../engine/adapters/sql/postgres-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { createRun } from '../contract/store-fixtures.ts';
import { createPostgresDatabase, createTestDatabase, mysqlAvailable, postgresAvailable } from '../helpers/services.ts';
import { startTestEngine } from '../helpers/solo-engine.ts';

const TARGETS = [
  { name: 'MySQL', available: await mysqlAvailable(), create: createTestDatabase, open: openMysqlStore },
  { name: 'PostgreSQL', available: await postgresAvailable(), create: createPostgresDatabase, open: openPostgresStore },
];

// Skipped only off CI on a machine without the database: under CI=true *Available() throws instead.
describe.each(TARGETS)('migrate a solo data dir to team $name', ({ available, create, open }) => {
  if (!available) {
    // off CI only, on a machine without this database server (under CI=true the check above threw)
    it.skip('needs the database server', () => undefined);
    return;
  }
  it('copies workflows, runs, instances, logs, alerts and the audit (its notes too) with their ids; refuses a non-empty target', async () => {
    const solo = await startTestEngine();
    await solo.apply(`workflow: etl
schedule: { cron: "0 2 * * *", timezone: UTC }
params: { region: { type: enum, choices: [eu, us], default: eu } }
tasks:
  a: { command: "echo alpha" }
  b: { command: "echo beta >&2", upstream: [a] }
`);
    const done = await solo.runToEnd('etl');
    expect(done.run.state).toBe('SUCCESS');
    // A failed run: its alert is recorded (unsent: no channel here).
    await solo.apply('workflow: broken\ntasks:\n  x: { command: "exit 1" }\n');
    const broken = await solo.runSettled('broken');
    expect(broken.run.state).toBe('FAILED');
    const alerts = await solo.engine.listAlerts({});
    expect(alerts.map((a) => [a.rule, a.state])).toEqual([['run_failed', 'unsent']]);
    const spec = await solo.engine.exportWorkflow('etl');
    // A task waiting on a workflow that is not there, started by an event with an Idempotency-Key:
    // its cross-workflow dependency, its wait and the key are copied too.
    await solo.apply(
      'workflow: report\non_event: books-closed\ntasks:\n  sum: { command: "echo sum", upstream: [{ ref: ledger.post, date: latest }] }\n',
    );
    const [held] = await solo.engine.trigger('books-closed', undefined, 'webhook', 'close-1');
    const reportSpec = await solo.engine.exportWorkflow('report');
    // an audit entry with a note beside its actor (as an authenticated connection writes one)
    await solo.engine.setEnabled('broken', false, { name: 'alice@box (API token)', note: 'webhook from 10.0.0.7' });
    const audit = await solo.engine.listAudit(100);
    await solo.engine.stop(1_000);
    await solo.engine.store.close();

    const database = await create('ax_migrate');
    const source = await openSqliteStore(path.join(solo.dir, 'ax.db'));
    const target = await open({ url: database.url });
    try {
      const counts = await copyStore(source.db, target.db);
      expect(counts).toMatchObject({
        workflow: 3,
        task_definition: 4,
        task_dependency: 1,
        cross_dependency: 1,
        schedule_plan: 1,
        workflow_run: 3,
        task_instance: 4,
        upstream_wait: 1,
        event_key: 1,
        alert: 1,
      });
      expect(await target.listAlerts({})).toEqual(alerts);
      expect(counts.execution_log_chunk).toBeGreaterThanOrEqual(1);
      expect(await target.listAudit(100)).toEqual(audit);
      expect(audit.find((e) => e.action === 'workflow.disable')).toMatchObject({
        actor: 'alice@box (API token)',
        note: 'webhook from 10.0.0.7',
      });

      expect(await target.getWorkflowSpec('etl')).toEqual(spec);
      expect(await target.getWorkflowSpec('report')).toEqual(reportSpec);
      expect((await target.listInstances(held?.id ?? -1)).map((i) => i.state)).toEqual(['WAITING']);
      const runs = await target.listRuns({ workflowName: 'etl' });
      expect(runs.map((r) => [r.id, r.state])).toEqual([[done.run.id, 'SUCCESS']]);
      // the run's params (migration 0016) and the workflow's, read with its graph
      expect(runs[0]?.params).toEqual({ region: 'eu' });
      expect((await target.getWorkflowGraph(runs[0]?.workflowId ?? -1))?.params?.map((p) => p.name)).toEqual([
        'region',
      ]);
      const instances = await target.listInstances(done.run.id);
      expect(instances.map((i) => [i.id, i.taskName, i.state])).toEqual(
        done.instances.map((i) => [i.id, i.taskName, i.state]),
      );
      // a failure's reason with its code (migration 0021), for the UI to translate
      expect((await target.listInstances(broken.run.id)).map((i) => [i.reason, i.reasonCode])).toEqual([
        ['exit code 1', { code: 'exit', args: { code: 1 } }],
      ]);
      const b = instances.find((i) => i.taskName === 'b');
      expect((await target.readLogs(b?.id ?? -1, 0, 10)).map((l) => [l.stream, l.line])).toEqual([['stderr', 'beta']]);

      // New rows continue after the migrated ids.
      const next = await createRun(target, {
        workflowId: runs[0]?.workflowId ?? -1,
        state: 'RUNNING',
        trigger: 'manual',
        triggeredBy: 't',
        logicalTime: 1,
        createdAt: 1,
      });
      expect(next?.id).toBeGreaterThan(done.run.id);

      await expect(copyStore(source.db, target.db)).rejects.toThrow(
        'the team database already has 3 workflow(s): migrate into an empty database',
      );
    } finally {
      await source.close();
      await target.close();
      await database.drop();
      await solo.close().catch(() => undefined);
    }
  });

  it('copies a call: task and the links between a parent run and its child run', async () => {
    const solo = await startTestEngine();
    await solo.apply('workflow: child\ntasks:\n  work: { command: "echo work" }\n');
    await solo.apply('workflow: parent\ntasks:\n  call-child: { call: child }\n');
    const done = await solo.runToEnd('parent');
    expect(done.run.state).toBe('SUCCESS');
    const caller = done.instances[0];
    const child = await solo.engine.getRun(caller?.childRunId ?? -1);
    await solo.engine.stop(1_000);
    await solo.engine.store.close();

    const database = await create('ax_migrate_calls');
    const source = await openSqliteStore(path.join(solo.dir, 'ax.db'));
    const target = await open({ url: database.url });
    try {
      await copyStore(source.db, target.db);
      expect((await target.getWorkflowSpec('parent'))?.tasks[0]?.call).toEqual({ workflow: 'child' });
      const parentId = (await target.findWorkflowId('parent')) ?? -1;
      expect((await target.getWorkflowGraph(parentId))?.tasks[0]?.call).toEqual({ workflow: 'child' });
      expect(await target.listInstances(done.run.id)).toEqual(done.instances);
      expect(await target.getRun(child.run.id)).toEqual(child.run);
      expect(child.run).toMatchObject({ parentRunId: done.run.id, parentInstanceId: caller?.id });
    } finally {
      await source.close();
      await target.close();
      await database.drop();
      await solo.close().catch(() => undefined);
    }
  });
});

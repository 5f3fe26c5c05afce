// Run history written straight into an engine's SQLite file, fast: finished runs only (so the
// engine has nothing to do with them), for the UI tests and bench/ui-dashboard.ts.
import { openSqlite } from '../../engine/adapters/sql/sqlite-driver.ts';
import { dbFile } from '../../engine/hosts/node/data-dir.ts';
import { seededRandom } from '../../bench/util.ts';

/**
 * Writes `runs` finished runs (one instance per task) spread over the last `days` days, about 3 %
 * failed, round-robin over the stored workflows (or only `workflow`).
 */
export function seedHistory(dataDir: string, runs: number, options: { workflow?: string; days?: number } = {}): void {
  const db = openSqlite(dbFile(dataDir));
  db.exec('PRAGMA busy_timeout = 10000');
  const tasks = (
    options.workflow
      ? db
          .prepare(
            'SELECT t.id, t.workflow_id, t.name FROM task_definition t JOIN workflow w ON w.id = t.workflow_id WHERE w.name = ? ORDER BY t.position',
          )
          .all([options.workflow])
      : db.prepare('SELECT id, workflow_id, name FROM task_definition ORDER BY workflow_id, position').all()
  ) as { id: number; workflow_id: number; name: string }[];
  if (tasks.length === 0)
    throw new Error(`no tasks to write history for${options.workflow ? ` (workflow ${options.workflow})` : ''}`);
  const byWorkflow = new Map<number, { id: number; name: string }[]>();
  for (const t of tasks) byWorkflow.set(t.workflow_id, [...(byWorkflow.get(t.workflow_id) ?? []), t]);
  const workflowIds = [...byWorkflow.keys()];
  const insertRun = db.prepare(
    `INSERT INTO workflow_run (workflow_id, state, trigger_type, triggered_by, logical_time, schedule_id, only_task, event_payload, reason, created_at, started_at, finished_at)
     VALUES (?, ?, 'manual', 'seeded history', ?, NULL, NULL, NULL, NULL, ?, ?, ?)`,
  );
  const insertInstance = db.prepare(
    `INSERT INTO task_instance (run_id, workflow_id, task_id, task_name, attempt, state, worker_id, pid, exit_code, reason, not_before, created_at, dispatched_at, started_at, finished_at, heartbeat_at, handled)
     VALUES (?, ?, ?, ?, 1, ?, 'local', 1, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const random = seededRandom(6);
  const now = Date.now();
  const span = (options.days ?? 30) * 86_400_000;
  db.exec('BEGIN');
  {
    for (let i = 0; i < runs; i++) {
      const wf = workflowIds[i % workflowIds.length] as number;
      // oldest first, so ids grow with time like real history
      const created = now - span + Math.floor((span * i) / runs);
      const taskCount = byWorkflow.get(wf)?.length ?? 1;
      const failAt = random() < 0.03 ? Math.floor(random() * taskCount) : -1;
      const finished = created + 4 * 1_000;
      const run = insertRun.run([wf, failAt >= 0 ? 'FAILED' : 'SUCCESS', created, created, created, finished]);
      const runId = Number(run.lastInsertRowid);
      (byWorkflow.get(wf) ?? []).forEach((task, k) => {
        const state = failAt < 0 || k < failAt ? 'SUCCESS' : k === failAt ? 'FAILED' : 'UPSTREAM_FAILED';
        const start = created + k * 1_000;
        const ran = state !== 'UPSTREAM_FAILED';
        insertInstance.run([
          runId,
          wf,
          task.id,
          task.name,
          state,
          state === 'FAILED' ? 1 : ran ? 0 : null,
          state === 'FAILED' ? 'exit code 1' : null,
          start,
          start,
          ran ? start : null,
          ran ? start : null,
          start + 900,
          ran ? start + 900 : null,
        ]);
      });
    }
  }
  db.exec('COMMIT');
  db.close();
}

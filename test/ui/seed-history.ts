// Run history written straight into an engine's SQLite file, fast: finished runs only (so the
// engine has nothing to do with them), for the UI tests and bench/ui-dashboard.ts.
import { openSqlite } from '../../engine/adapters/sql/sqlite-driver.ts';
import { dbFile } from '../../engine/hosts/node/data-dir.ts';
import { seededRandom } from '../../bench/util.ts';
import type { TriggerType } from '../../engine/api/types.ts';

export interface SeedOptions {
  workflow?: string;
  days?: number;
  /** the runs' triggers, in turn (default all manual) */
  triggers?: TriggerType[];
  /** each task lasts up to this long, at random (default 900 ms: 1 s a task) */
  taskMs?: number;
  /** the share of runs that fail (default 0.03) */
  failRate?: number;
  /** durations that differ by task and by run (each task after the previous), not a fixed one each: trends to read */
  varied?: boolean;
}

/**
 * Writes `runs` finished runs (one instance per task) spread over the last `days` days, about 3 %
 * failed, round-robin over the stored workflows (or only `workflow`).
 */
export function seedHistory(dataDir: string, runs: number, options: SeedOptions = {}): void {
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
     VALUES (?, ?, ?, 'seeded history', ?, NULL, NULL, NULL, NULL, ?, ?, ?)`,
  );
  const insertInstance = db.prepare(
    `INSERT INTO task_instance (run_id, workflow_id, task_id, task_name, attempt, state, worker_id, pid, exit_code, reason, not_before, created_at, dispatched_at, started_at, finished_at, heartbeat_at, handled)
     VALUES (?, ?, ?, ?, 1, ?, 'local', 1, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const random = seededRandom(6);
  // varied: each task's typical duration (0.5 s to 90 s), then ±50 % per run, from their own seed
  const vary = seededRandom(7);
  const typical = new Map(tasks.map((t) => [t.id, 500 + Math.floor(vary() * vary() * 90_000)]));
  const now = Date.now();
  const span = (options.days ?? 30) * 86_400_000;
  db.exec('BEGIN');
  {
    for (let i = 0; i < runs; i++) {
      const wf = workflowIds[i % workflowIds.length] as number;
      // oldest first, so ids grow with time like real history
      const created = now - span + Math.floor((span * i) / runs);
      const taskCount = byWorkflow.get(wf)?.length ?? 1;
      const failAt = random() < (options.failRate ?? 0.03) ? Math.floor(random() * taskCount) : -1;
      const taskMs = options.taskMs === undefined ? 900 : 1_000 + Math.floor(random() * options.taskMs);
      const step = Math.max(1_000, taskMs + 100);
      // each task after the previous: fixed steps, or (varied) its own duration this run
      let at = created;
      const times = (byWorkflow.get(wf) ?? []).map((task, k) => {
        if (!options.varied) return { start: created + k * step, end: created + k * step + taskMs };
        const ms = Math.round((typical.get(task.id) ?? 1000) * (0.5 + vary()));
        const time = { start: at, end: at + ms };
        at += ms;
        return time;
      });
      const finished = options.varied ? at : created + taskCount * step + 1_000;
      const trigger = options.triggers?.[i % options.triggers.length] ?? 'manual';
      const runState = failAt >= 0 ? 'FAILED' : 'SUCCESS';
      const run = insertRun.run([wf, runState, trigger, created, created, created, finished]);
      const runId = Number(run.lastInsertRowid);
      (byWorkflow.get(wf) ?? []).forEach((task, k) => {
        const state = failAt < 0 || k < failAt ? 'SUCCESS' : k === failAt ? 'FAILED' : 'UPSTREAM_FAILED';
        const { start, end } = times[k] as { start: number; end: number };
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
          end,
          ran ? end : null,
        ]);
      });
    }
  }
  db.exec('COMMIT');
  db.close();
}

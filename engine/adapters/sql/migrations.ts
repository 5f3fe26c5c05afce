// Versioned migrations, applied at start by Kysely's Migrator. One schema for every dialect:
// the column types that differ and the id column are in migration-sql.ts.
import { AxError } from '../../api/errors.ts';
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { autoId, type SqlDialectName, tableEnd, types } from './migration-sql.ts';
import {
  alerts,
  auditNote,
  crossWorkflowDependencies,
  engineFlags,
  eventKeys,
  instanceLaunch,
  instanceOutputs,
  monitorGrace,
  runParams,
  subworkflows,
  backfills,
  reasonCodes,
  taskLogLimit,
  taskConditions,
} from './migrations-features.ts';

import { runListIndex } from './migration-run-list.ts';
import { accounts } from './migration-accounts.ts';
import { teamSecrets } from './migration-team-secrets.ts';
import { logChunks } from './migration-log-chunks.ts';

export type { SqlDialectName } from './migration-sql.ts';

function initial(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  const end = tableEnd(dialect);
  return {
    async up(db: Kysely<unknown>) {
      const id = autoId(dialect);
      await db.schema
        .createTable('workflow')
        .addColumn('id', 'integer', id)
        .addColumn('name', t.name, (c) => c.notNull().unique())
        .addColumn('description', t.longText)
        .addColumn('owner', t.name)
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('routing', t.name, (c) => c.notNull())
        .addColumn('on_event', t.name)
        .addColumn('spec_json', t.longText, (c) => c.notNull())
        .addColumn('created_at', t.big, (c) => c.notNull())
        .addColumn('updated_at', t.big, (c) => c.notNull())
        .modifyEnd(end)
        .execute();
      await db.schema
        .createTable('task_definition')
        .addColumn('id', 'integer', id)
        .addColumn('workflow_id', 'integer', (c) => c.notNull())
        .addColumn('name', t.name, (c) => c.notNull())
        .addColumn('command', t.longText, (c) => c.notNull())
        .addColumn('cwd', t.longText)
        .addColumn('env_json', t.longText, (c) => c.notNull())
        .addColumn('timeout_ms', t.big)
        .addColumn('retries', 'integer', (c) => c.notNull())
        .addColumn('retry_backoff_json', t.longText, (c) => c.notNull())
        .addColumn('labels_json', t.longText, (c) => c.notNull())
        .addColumn('owner', t.name)
        .addColumn('position', 'integer', (c) => c.notNull())
        .addUniqueConstraint('task_definition_workflow_name', ['workflow_id', 'name'])
        .modifyEnd(end)
        .execute();
      await db.schema
        .createTable('task_dependency')
        .addColumn('workflow_id', 'integer', (c) => c.notNull())
        .addColumn('upstream_task_id', 'integer', (c) => c.notNull())
        .addColumn('downstream_task_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('task_dependency_pk', ['upstream_task_id', 'downstream_task_id'])
        .modifyEnd(end)
        .execute();
      await db.schema.createIndex('task_dependency_workflow').on('task_dependency').column('workflow_id').execute();
      await db.schema
        .createTable('schedule_plan')
        .addColumn('id', 'integer', id)
        .addColumn('workflow_id', 'integer', (c) => c.notNull().unique())
        .addColumn('cron', t.name, (c) => c.notNull())
        .addColumn('timezone', t.name, (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('trigger_type', t.name, (c) => c.notNull())
        .addColumn('misfire', t.name, (c) => c.notNull())
        .addColumn('overlap', t.name, (c) => c.notNull())
        .addColumn('last_fire_at', t.big, (c) => c.notNull())
        .modifyEnd(end)
        .execute();
      await db.schema
        .createTable('workflow_run')
        .addColumn('id', 'integer', id)
        .addColumn('workflow_id', 'integer', (c) => c.notNull())
        .addColumn('state', t.name, (c) => c.notNull())
        .addColumn('trigger_type', t.name, (c) => c.notNull())
        .addColumn('triggered_by', t.name, (c) => c.notNull())
        .addColumn('logical_time', t.big, (c) => c.notNull())
        .addColumn('schedule_id', 'integer')
        .addColumn('only_task', t.name)
        .addColumn('event_payload', t.longText)
        .addColumn('reason', t.longText)
        .addColumn('created_at', t.big, (c) => c.notNull())
        .addColumn('started_at', t.big)
        .addColumn('finished_at', t.big)
        // NULL schedule_id (manual and event runs) never collides: both dialects allow many NULLs.
        .addUniqueConstraint('workflow_run_fire', ['schedule_id', 'logical_time'])
        .modifyEnd(end)
        .execute();
      await db.schema.createIndex('workflow_run_workflow').on('workflow_run').columns(['workflow_id', 'id']).execute();
      await db.schema.createIndex('workflow_run_state').on('workflow_run').columns(['state']).execute();
      await db.schema
        .createTable('task_instance')
        .addColumn('id', 'integer', id)
        .addColumn('run_id', 'integer', (c) => c.notNull())
        .addColumn('workflow_id', 'integer', (c) => c.notNull())
        .addColumn('task_id', 'integer', (c) => c.notNull())
        .addColumn('task_name', t.name, (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('state', t.name, (c) => c.notNull())
        .addColumn('worker_id', t.name)
        .addColumn('pid', 'integer')
        .addColumn('exit_code', 'integer')
        .addColumn('reason', t.longText)
        .addColumn('not_before', t.big, (c) => c.notNull())
        .addColumn('created_at', t.big, (c) => c.notNull())
        .addColumn('dispatched_at', t.big)
        .addColumn('started_at', t.big)
        .addColumn('finished_at', t.big)
        .addColumn('heartbeat_at', t.big)
        .addColumn('handled', 'integer', (c) => c.notNull())
        // Two upstreams finishing together cannot both create the downstream's instance.
        .addUniqueConstraint('task_instance_attempt', ['run_id', 'task_id', 'attempt'])
        .modifyEnd(end)
        .execute();
      await db.schema.createIndex('task_instance_state').on('task_instance').columns(['state', 'not_before']).execute();
      await db.schema.createIndex('task_instance_handled').on('task_instance').columns(['handled', 'state']).execute();
      await db.schema
        .createTable('execution_log')
        .addColumn('id', 'integer', id)
        .addColumn('instance_id', 'integer', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('stream', t.name, (c) => c.notNull())
        .addColumn('ts', t.big, (c) => c.notNull())
        .addColumn('line', t.longText, (c) => c.notNull())
        .modifyEnd(end)
        .execute();
      await db.schema
        .createIndex('execution_log_instance')
        .on('execution_log')
        .columns(['instance_id', 'seq'])
        .execute();
      await db.schema.createIndex('execution_log_ts').on('execution_log').columns(['ts']).execute();
      await db.schema
        .createTable('worker')
        .addColumn('id', t.name, (c) => c.primaryKey())
        .addColumn('host', t.name, (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('version', t.name, (c) => c.notNull())
        .addColumn('labels_json', t.longText, (c) => c.notNull())
        .addColumn('max_concurrency', 'integer', (c) => c.notNull())
        .addColumn('running', 'integer', (c) => c.notNull())
        .addColumn('started_at', t.big, (c) => c.notNull())
        .addColumn('last_heartbeat', t.big, (c) => c.notNull())
        .addColumn('status', t.name, (c) => c.notNull())
        .modifyEnd(end)
        .execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'integer', id)
        .addColumn('at', t.big, (c) => c.notNull())
        .addColumn('actor', t.name, (c) => c.notNull())
        .addColumn('action', t.name, (c) => c.notNull())
        .addColumn('object', t.name, (c) => c.notNull())
        .addColumn('detail', t.longText)
        .modifyEnd(end)
        .execute();
    },
  };
}

/** Settling a run asks "anything pending?" after every event: answer it from indexes, not rows. */
const runStateIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('task_instance_run_state').on('task_instance').columns(['run_id', 'state']).execute();
    await db.schema
      .createIndex('task_instance_run_handled')
      .on('task_instance')
      .columns(['run_id', 'handled'])
      .execute();
  },
};

/** The UI's dashboard asks "what finished (or failed) since midnight?": by time, not by scan. */
const viewIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('task_instance_state_finished')
      .on('task_instance')
      .columns(['state', 'finished_at'])
      .execute();
    await db.schema.createIndex('workflow_run_finished').on('workflow_run').columns(['finished_at']).execute();
  },
};

/** A worker id belongs to one process at a time: the claim of that process. */
function workerClaim(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('worker').addColumn('claim', types(dialect).name).execute();
    },
  };
}

/**
 * Fail-overs are counted in columns, not parsed out of the reason text: they spend no
 * retries, and their number is capped. Rows from before keep what their reason said.
 */
const failoverAccounting: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('task_instance')
      .addColumn('failovers', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('task_instance')
      .addColumn('failed_over', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`UPDATE task_instance SET failed_over = 1 WHERE reason LIKE 'failed over:%'`.execute(db);
  },
};

/** A schedule that cannot compute its next fire says so on the workflow, not only in an alert. */
function scheduleError(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('schedule_plan').addColumn('error', types(dialect).longText).execute();
    },
  };
}

/** `ax workers` says the role of a worker that left (drained, lost) too, not only of a live one. */
function workerRole(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('worker').addColumn('role', types(dialect).name).execute();
    },
  };
}

/**
 * claim-due-instances counts one worker's DISPATCHED + RUNNING instances on every claim (issue
 * 10): from an index, not by reading every active instance of every worker.
 */
const workerLoadIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('task_instance_worker_state')
      .on('task_instance')
      .columns(['worker_id', 'state'])
      .execute();
  },
};

/**
 * A big workflow's graph is read a page at a time (no long stall while a 100k-task graph
 * loads): tasks by position, edges by their key, each page a range of one index.
 */
function graphPageIndexes(dialect: SqlDialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('task_definition_workflow_position')
        .on('task_definition')
        .columns(['workflow_id', 'position'])
        .execute();
      await db.schema
        .createIndex('task_dependency_workflow_edge')
        .on('task_dependency')
        .columns(['workflow_id', 'upstream_task_id', 'downstream_task_id'])
        .execute();
      // Its first column leads the new one. MySQL names the table of an index to drop; SQLite and
      // PostgreSQL refuse it.
      const drop = db.schema.dropIndex('task_dependency_workflow');
      await (dialect === 'mysql' ? drop.on('task_dependency') : drop).execute();
    },
  };
}

class StaticProvider implements MigrationProvider {
  constructor(
    private readonly dialect: SqlDialectName,
    private readonly onNote?: (message: string) => void,
  ) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '0001_initial': initial(this.dialect),
      '0002_run_state_indexes': runStateIndexes,
      '0003_view_indexes': viewIndexes,
      '0003_worker_claim': workerClaim(this.dialect),
      '0004_failover_accounting': failoverAccounting,
      '0005_schedule_error': scheduleError(this.dialect),
      '0006_worker_role': workerRole(this.dialect),
      '0007_worker_load_index': workerLoadIndex,
      '0008_graph_page_indexes': graphPageIndexes(this.dialect),
      '0009_engine_flags': engineFlags(this.dialect),
      '0010_event_keys': eventKeys(this.dialect),
      '0011_alerts': alerts(this.dialect),
      '0012_cross_workflow_dependencies': crossWorkflowDependencies(this.dialect),
      '0013_audit_note': auditNote(this.dialect),
      '0014_task_log_limit': taskLogLimit(this.dialect),
      '0015_monitor_grace': monitorGrace(this.dialect),
      '0016_run_params': runParams(this.dialect),
      '0017_task_conditions': taskConditions(this.dialect),
      '0018_instance_outputs': instanceOutputs(this.dialect),
      '0019_backfills': backfills(this.dialect),
      '0020_subworkflows': subworkflows(this.dialect),
      '0021_reason_codes': reasonCodes(this.dialect),
      '0022_instance_launch': instanceLaunch(this.dialect),
      '0023_run_list_index': runListIndex,
      '0024_accounts': accounts(this.dialect),
      '0025_team_secrets': teamSecrets(this.dialect),
      '0026_log_chunks': logChunks(this.dialect, this.onNote),
    };
  }
}

/**
 * Migrations this AX does not know were applied by a newer one: migrating would fail half-way
 * (or worse, run), so it stops first and says so.
 */
async function checkNotNewer(db: Kysely<unknown>, known: string[], where: string): Promise<string[]> {
  let applied: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    applied = rows.map((r) => r.name);
  } catch (err) {
    // A new database has no migration table yet (SQLite: "no such table", MySQL: "doesn't exist",
    // PostgreSQL: "does not exist").
    if (/no such table|doesn't exist|does not exist/i.test(err instanceof Error ? err.message : String(err))) return [];
    throw err;
  }
  const unknown = applied.filter((name) => !known.includes(name)).sort();
  if (unknown.length) {
    throw new AxError(
      'storage',
      `${where} was written by a newer AX (schema ${unknown.join(', ')}, unknown to this one): upgrade ax to at least the version that wrote it, or use another database`,
    );
  }
  return applied;
}

/**
 * `where` names the database in errors: a file, or "the team database". `onNote` hears what a
 * long migration is doing (moving old log lines), so a start that waits says why.
 */
export async function migrate(
  db: Kysely<unknown>,
  dialect: SqlDialectName,
  where = 'the database',
  onNote?: (message: string) => void,
): Promise<void> {
  const provider = new StaticProvider(dialect, onNote);
  const known = Object.keys(await provider.getMigrations());
  const applied = new Set(await checkNotNewer(db, known, where));
  // Up to date: no migrator, so no lock. On MySQL Kysely's migration lock is one GET_LOCK name for
  // the whole server, so a node starting on an up-to-date database would otherwise queue behind
  // any other database's migration on that server (a worker waited > 90 s that way under load).
  if (known.every((name) => applied.has(name))) return;
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    // The cause keeps the driver's code (a locked or read-only file), which the opener words.
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

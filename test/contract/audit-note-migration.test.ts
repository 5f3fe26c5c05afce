// The audit's note column arrives by migration on a database an older AX wrote: its entries stay
// (with no note), and entries written after it keep their note. The older database is made by
// taking the column and its migration record back out of a migrated one (and those of every later
// migration: the task log limit, the monitor grace, params, conditions, outputs, backfills, calls, reason codes, instance launches, the run list's index, the accounts, team secrets, log chunks), which leaves exactly the schema the migration before it left.
// SQLite and MariaDB alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlDialectName } from '../../engine/adapters/sql/migrations.ts';
import { createTestDatabase, MYSQL_ADMIN_URL, mysqlAvailable } from '../helpers/services.ts';
import { asBeforeLogChunks } from '../helpers/old-log-rows.ts';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const mysql = await mysqlAvailable();

/** the database as the AX before the note column left it, with one entry of that time */
async function asBeforeTheNote(store: SqlStore, dialect: SqlDialectName): Promise<void> {
  // 0026_log_chunks
  await asBeforeLogChunks(store.db, dialect);
  // 0025_team_secrets
  await sql`DROP TABLE team_secret`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0025_team_secrets'`.execute(store.db);
  // 0024_accounts
  for (const table of ['ax_user', 'ax_session', 'ax_token', 'ax_group']) {
    await sql`DROP TABLE ${sql.table(table)}`.execute(store.db);
  }
  await sql`ALTER TABLE audit_log DROP COLUMN role`.execute(store.db);
  await sql`ALTER TABLE audit_log DROP COLUMN address`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0024_accounts'`.execute(store.db);
  // 0023_run_list_index
  await sql`DROP INDEX workflow_run_created ON workflow_run`
    .execute(store.db)
    .catch(() => sql`DROP INDEX workflow_run_created`.execute(store.db));
  await sql`DELETE FROM kysely_migration WHERE name = '0023_run_list_index'`.execute(store.db);
  // 0022_instance_launch
  await sql`ALTER TABLE task_instance DROP COLUMN launch_json`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0022_instance_launch'`.execute(store.db);
  // 0021_reason_codes
  await sql`ALTER TABLE task_instance DROP COLUMN reason_code`.execute(store.db);
  await sql`ALTER TABLE workflow_run DROP COLUMN reason_code`.execute(store.db);
  await sql`ALTER TABLE alert DROP COLUMN text_code`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0021_reason_codes'`.execute(store.db);
  // 0020_subworkflows (MySQL's DROP INDEX names the table, SQLite's must not)
  await sql`DROP INDEX workflow_run_parent ON workflow_run`
    .execute(store.db)
    .catch(() => sql`DROP INDEX workflow_run_parent`.execute(store.db));
  await sql`ALTER TABLE workflow_run DROP COLUMN parent_run_id`.execute(store.db);
  await sql`ALTER TABLE workflow_run DROP COLUMN parent_instance_id`.execute(store.db);
  await sql`ALTER TABLE task_instance DROP COLUMN child_run_id`.execute(store.db);
  await sql`ALTER TABLE task_definition DROP COLUMN call_json`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0020_subworkflows'`.execute(store.db);
  // 0019_backfills
  await sql`DROP INDEX workflow_run_backfill ON workflow_run`
    .execute(store.db)
    .catch(() => sql`DROP INDEX workflow_run_backfill`.execute(store.db));
  await sql`ALTER TABLE workflow_run DROP COLUMN backfill_id`.execute(store.db);
  await sql`DROP TABLE backfill`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0019_backfills'`.execute(store.db);
  // 0018_instance_outputs
  await sql`ALTER TABLE task_instance DROP COLUMN outputs_json`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0018_instance_outputs'`.execute(store.db);
  // 0017_task_conditions
  await sql`ALTER TABLE task_definition DROP COLUMN run_if`.execute(store.db);
  await sql`ALTER TABLE task_definition DROP COLUMN when_json`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0017_task_conditions'`.execute(store.db);
  // 0016_run_params
  await sql`ALTER TABLE workflow_run DROP COLUMN params_json`.execute(store.db);
  await sql`ALTER TABLE workflow_run DROP COLUMN with_downstream`.execute(store.db);
  await sql`ALTER TABLE workflow DROP COLUMN params_json`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name = '0016_run_params'`.execute(store.db);
  await sql`ALTER TABLE schedule_plan DROP COLUMN monitor_grace_ms`.execute(store.db);
  await sql`ALTER TABLE task_definition DROP COLUMN log_limit_bytes`.execute(store.db);
  await sql`ALTER TABLE audit_log DROP COLUMN note`.execute(store.db);
  await sql`DELETE FROM kysely_migration WHERE name IN ('0013_audit_note', '0014_task_log_limit', '0015_monitor_grace')`.execute(
    store.db,
  );
  await sql`INSERT INTO audit_log (at, actor, action, object, detail) VALUES (${T0}, ${'alice@box (API token) — note: old style'}, ${'workflow.apply'}, ${'workflow:etl'}, ${'version 1'})`.execute(
    store.db,
  );
}

async function checkMigrated(reopened: SqlStore): Promise<void> {
  await reopened.audit({
    at: T0 + 1,
    actor: 'alice@box (API token)',
    note: 'webhook from 10.0.0.7',
    role: 'operator',
    address: '10.0.0.7',
    action: 'run.manual',
    object: 'workflow:etl',
  });
  const entries = await reopened.listAudit(10);
  expect(entries.map((e) => [e.at, e.actor, e.note, e.detail, e.role, e.address])).toEqual([
    [T0 + 1, 'alice@box (API token)', 'webhook from 10.0.0.7', undefined, 'operator', '10.0.0.7'],
    [T0, 'alice@box (API token) — note: old style', null, 'version 1', null, null],
  ]);
  // the accounts' tables arrived with the migration, empty
  expect(await reopened.listUsers()).toEqual([]);
}

describe('the audit note migration on an existing database', () => {
  it('sqlite: the old entries stay, with no note; new ones keep theirs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ax-audit-note-'));
    try {
      const file = join(dir, 'ax.db');
      const old = await openSqliteStore(file);
      await asBeforeTheNote(old, 'sqlite');
      await old.close();
      const reopened = await openSqliteStore(file);
      try {
        await checkMigrated(reopened);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Not under CI (mysqlAvailable throws there): a developer machine without MariaDB.
  it.skipIf(!mysql)(`mysql: the same on a team database (needs MariaDB/MySQL at ${MYSQL_ADMIN_URL})`, async () => {
    const database = await createTestDatabase('ax_audit_note');
    try {
      const old = await openMysqlStore({ url: database.url });
      await asBeforeTheNote(old, 'mysql');
      await old.close();
      const reopened = await openMysqlStore({ url: database.url });
      try {
        await checkMigrated(reopened);
      } finally {
        await reopened.close();
      }
    } finally {
      await database.drop();
    }
  });
});

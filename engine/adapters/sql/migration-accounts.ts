// Migration 0024 (issue 25): people in team mode. Accounts, UI sessions, API tokens and groups
// (engine/ports/store-accounts.ts), and who did it in the audit: the caller's role and source
// address. Both dialects run it; a solo SQLite database gets the tables too and keeps them empty
// (solo mode has one user and no sign-in).
import type { Kysely, Migration } from 'kysely';
import { autoId, type SqlDialectName, tableEnd, types } from './migration-sql.ts';

export function accounts(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  const end = tableEnd(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('ax_user')
        .addColumn('name', t.name, (c) => c.primaryKey())
        .addColumn('role', t.name, (c) => c.notNull())
        .addColumn('groups_json', t.longText, (c) => c.notNull())
        .addColumn('source', t.name, (c) => c.notNull())
        .addColumn('password_hash', t.longText)
        .addColumn('disabled', 'integer', (c) => c.notNull())
        .addColumn('failed_sign_ins', 'integer', (c) => c.notNull())
        .addColumn('locked_until', t.big)
        .addColumn('created_at', t.big, (c) => c.notNull())
        .addColumn('updated_at', t.big, (c) => c.notNull())
        .addColumn('last_sign_in_at', t.big)
        .modifyEnd(end)
        .execute();
      await db.schema
        .createTable('ax_session')
        .addColumn('id_hash', t.name, (c) => c.primaryKey())
        .addColumn('user', t.name, (c) => c.notNull())
        .addColumn('created_at', t.big, (c) => c.notNull())
        .addColumn('expires_at', t.big, (c) => c.notNull())
        .addColumn('last_seen_at', t.big, (c) => c.notNull())
        .addColumn('address', t.name)
        .modifyEnd(end)
        .execute();
      await db.schema.createIndex('ax_session_user').on('ax_session').column('user').execute();
      await db.schema
        .createTable('ax_token')
        .addColumn('id', 'integer', autoId(dialect))
        .addColumn('name', t.name, (c) => c.notNull())
        .addColumn('user', t.name, (c) => c.notNull())
        .addColumn('hash', t.name, (c) => c.notNull().unique())
        .addColumn('scopes_json', t.longText, (c) => c.notNull())
        .addColumn('workflow', t.name)
        .addColumn('worker_id', t.name)
        .addColumn('labels_json', t.longText)
        .addColumn('created_at', t.big, (c) => c.notNull())
        .addColumn('created_by', t.name, (c) => c.notNull())
        .addColumn('expires_at', t.big)
        .addColumn('last_used_at', t.big)
        .addColumn('revoked_at', t.big)
        .addUniqueConstraint('ax_token_user_name', ['user', 'name'])
        .modifyEnd(end)
        .execute();
      await db.schema
        .createTable('ax_group')
        .addColumn('name', t.name, (c) => c.primaryKey())
        .addColumn('private', 'integer', (c) => c.notNull())
        .modifyEnd(end)
        .execute();
      await db.schema.alterTable('audit_log').addColumn('role', t.name).execute();
      await db.schema.alterTable('audit_log').addColumn('address', t.name).execute();
    },
  };
}

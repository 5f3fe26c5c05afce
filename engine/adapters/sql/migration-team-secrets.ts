// 0025_team_secrets (issue 25): team secrets, encrypted (AES-256-GCM) under the team key that
// only the nodes allowed to decrypt hold; the database never has a value in the clear. `group`
// is a reserved word in SQL, hence owner_group.
import type { Kysely, Migration } from 'kysely';
import { type SqlDialectName, tableEnd, types } from './migration-sql.ts';

export function teamSecrets(dialect: SqlDialectName): Migration {
  const t = types(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('team_secret')
        .addColumn('name', t.name, (c) => c.primaryKey())
        .addColumn('owner_group', t.name)
        .addColumn('ciphertext', t.longText, (c) => c.notNull())
        .addColumn('iv', t.name, (c) => c.notNull())
        .addColumn('key_id', t.name, (c) => c.notNull())
        .addColumn('set_by', t.name, (c) => c.notNull())
        .addColumn('set_at', t.big, (c) => c.notNull())
        .modifyEnd(tableEnd(dialect))
        .execute();
    },
  };
}

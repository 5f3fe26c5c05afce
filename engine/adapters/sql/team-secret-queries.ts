// The team secrets' table (migration-team-secrets.ts) behind the TeamSecretStore port. Its own
// table type (withTables), so the rest of the schema is untouched.
import type { Kysely } from 'kysely';
import type { TeamSecretRow, TeamSecretStore } from '../../ports/team-secrets.ts';
import { num } from './rows.ts';
import type { Database } from './schema.ts';

interface TeamSecretTable {
  name: string;
  owner_group: string | null;
  ciphertext: string;
  iv: string;
  key_id: string;
  set_by: string;
  set_at: number;
}

type Db = Kysely<Database & { team_secret: TeamSecretTable }>;

/** set_by is an indexed-length column (191 in MySQL): an identity longer than that is cut. */
const SET_BY_MAX = 191;

function toRow(r: TeamSecretTable): TeamSecretRow {
  return {
    name: r.name,
    group: r.owner_group,
    sealed: { ciphertext: r.ciphertext, iv: r.iv, keyId: r.key_id },
    setBy: r.set_by,
    setAt: num(r.set_at),
  };
}

export class SqlTeamSecretStore implements TeamSecretStore {
  private readonly db: Db;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<{ team_secret: TeamSecretTable }>();
  }

  async listTeamSecrets(): Promise<TeamSecretRow[]> {
    const rows = await this.db.selectFrom('team_secret').selectAll().orderBy('name').execute();
    return rows.map(toRow);
  }

  async getTeamSecrets(names: readonly string[]): Promise<TeamSecretRow[]> {
    if (names.length === 0) return [];
    const rows = await this.db
      .selectFrom('team_secret')
      .selectAll()
      .where('name', 'in', [...names])
      .orderBy('name')
      .execute();
    return rows.map(toRow);
  }

  async putTeamSecret(row: TeamSecretRow): Promise<boolean> {
    const values = {
      owner_group: row.group,
      ciphertext: row.sealed.ciphertext,
      iv: row.sealed.iv,
      key_id: row.sealed.keyId,
      set_by: row.setBy.slice(0, SET_BY_MAX),
      set_at: row.setAt,
    };
    // Update first, insert when there was none: one statement in each dialect, no upsert syntax
    // of either. Two setters racing on a new name: the loser's insert hits the key and updates.
    const updated = await this.db
      .updateTable('team_secret')
      .set(values)
      .where('name', '=', row.name)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return true;
    try {
      await this.db
        .insertInto('team_secret')
        .values({ name: row.name, ...values })
        .execute();
      return false;
    } catch (err) {
      const again = await this.db
        .updateTable('team_secret')
        .set(values)
        .where('name', '=', row.name)
        .executeTakeFirst();
      if (Number(again.numUpdatedRows) > 0) return true;
      throw err;
    }
  }

  async deleteTeamSecret(name: string): Promise<boolean> {
    const res = await this.db.deleteFrom('team_secret').where('name', '=', name).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async workflowOwner(workflowId: number): Promise<string | null | undefined> {
    const row = await this.db.selectFrom('workflow').select('owner').where('id', '=', workflowId).executeTakeFirst();
    return row === undefined ? undefined : row.owner;
  }
}

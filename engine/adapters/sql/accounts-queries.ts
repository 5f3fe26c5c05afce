// The AccountStore over Kysely (engine/ports/store-accounts.ts): accounts, UI sessions, API
// tokens and groups, in both dialects. A base of SqlStore (through SqlReadModels). Sessions and
// tokens arrive here already hashed; this module never sees a secret.
import type { Kysely, Selectable } from 'kysely';
import type { Role, TokenScope } from '../../api/access.ts';
import { AxError } from '../../api/errors.ts';
import type { AccountStore, GroupRow, SessionRow, TokenRow, UserRow } from '../../ports/store-accounts.ts';
import { num } from './rows.ts';
import { isUniqueViolation } from './run-queries.ts';
import type { AxTokenTable, AxUserTable, Database } from './schema.ts';

const optNum = (v: number | string | null): number | null => (v === null ? null : num(v));

function userFromRow(r: Selectable<AxUserTable>): UserRow {
  return {
    name: r.name,
    role: r.role as Role,
    groups: JSON.parse(r.groups_json) as string[],
    source: r.source as UserRow['source'],
    passwordHash: r.password_hash,
    disabled: r.disabled !== 0,
    failedSignIns: r.failed_sign_ins,
    lockedUntil: optNum(r.locked_until),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    lastSignInAt: optNum(r.last_sign_in_at),
  };
}

function tokenFromRow(r: Selectable<AxTokenTable>): TokenRow {
  return {
    name: r.name,
    user: r.user,
    hash: r.hash,
    scopes: JSON.parse(r.scopes_json) as TokenScope[],
    workflow: r.workflow,
    workerId: r.worker_id,
    labels: r.labels_json === null ? null : (JSON.parse(r.labels_json) as string[]),
    createdAt: num(r.created_at),
    createdBy: r.created_by,
    expiresAt: optNum(r.expires_at),
    lastUsedAt: optNum(r.last_used_at),
    revokedAt: optNum(r.revoked_at),
  };
}

type UserPatch = Partial<Omit<UserRow, 'name' | 'createdAt'>>;

function userColumns(patch: UserPatch): Partial<AxUserTable> {
  const out: Partial<AxUserTable> = {};
  if (patch.role !== undefined) out.role = patch.role;
  if (patch.groups !== undefined) out.groups_json = JSON.stringify(patch.groups);
  if (patch.source !== undefined) out.source = patch.source;
  if (patch.passwordHash !== undefined) out.password_hash = patch.passwordHash;
  if (patch.disabled !== undefined) out.disabled = patch.disabled ? 1 : 0;
  if (patch.failedSignIns !== undefined) out.failed_sign_ins = patch.failedSignIns;
  if (patch.lockedUntil !== undefined) out.locked_until = patch.lockedUntil;
  if (patch.updatedAt !== undefined) out.updated_at = patch.updatedAt;
  if (patch.lastSignInAt !== undefined) out.last_sign_in_at = patch.lastSignInAt;
  return out;
}

export class SqlAccounts implements AccountStore {
  constructor(readonly db: Kysely<Database>) {}

  async getUser(name: string): Promise<UserRow | undefined> {
    const row = await this.db.selectFrom('ax_user').selectAll().where('name', '=', name).executeTakeFirst();
    return row && userFromRow(row);
  }

  async listUsers(): Promise<UserRow[]> {
    const rows = await this.db.selectFrom('ax_user').selectAll().orderBy('name').execute();
    return rows.map(userFromRow);
  }

  async insertUser(row: UserRow): Promise<void> {
    try {
      await this.db
        .insertInto('ax_user')
        .values({
          name: row.name,
          role: row.role,
          groups_json: JSON.stringify(row.groups),
          source: row.source,
          password_hash: row.passwordHash,
          disabled: row.disabled ? 1 : 0,
          failed_sign_ins: row.failedSignIns,
          locked_until: row.lockedUntil,
          created_at: row.createdAt,
          updated_at: row.updatedAt,
          last_sign_in_at: row.lastSignInAt,
        })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new AxError('conflict', `a user named "${row.name}" exists already`);
      throw err;
    }
  }

  async updateUser(name: string, patch: UserPatch): Promise<boolean> {
    const columns = userColumns(patch);
    if (Object.keys(columns).length === 0) return (await this.getUser(name)) !== undefined;
    const res = await this.db.updateTable('ax_user').set(columns).where('name', '=', name).executeTakeFirst();
    // MySQL counts changed rows, not matched ones: an update to the same values reports 0.
    if (Number(res.numUpdatedRows) > 0) return true;
    return (await this.getUser(name)) !== undefined;
  }

  async deleteUser(name: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('ax_session').where('user', '=', name).execute();
      await trx.deleteFrom('ax_token').where('user', '=', name).execute();
      const res = await trx.deleteFrom('ax_user').where('name', '=', name).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }

  async insertSession(row: SessionRow): Promise<void> {
    await this.db
      .insertInto('ax_session')
      .values({
        id_hash: row.idHash,
        user: row.user,
        created_at: row.createdAt,
        expires_at: row.expiresAt,
        last_seen_at: row.lastSeenAt,
        address: row.address,
      })
      .execute();
  }

  async getSession(idHash: string): Promise<SessionRow | undefined> {
    const r = await this.db.selectFrom('ax_session').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    return (
      r && {
        idHash: r.id_hash,
        user: r.user,
        createdAt: num(r.created_at),
        expiresAt: num(r.expires_at),
        lastSeenAt: num(r.last_seen_at),
        address: r.address,
      }
    );
  }

  async touchSession(idHash: string, at: number): Promise<void> {
    await this.db.updateTable('ax_session').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.deleteFrom('ax_session').where('id_hash', '=', idHash).execute();
  }

  async deleteSessionsOf(user: string): Promise<number> {
    const res = await this.db.deleteFrom('ax_session').where('user', '=', user).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async insertToken(row: TokenRow): Promise<void> {
    try {
      await this.db
        .insertInto('ax_token')
        .values({
          name: row.name,
          user: row.user,
          hash: row.hash,
          scopes_json: JSON.stringify(row.scopes),
          workflow: row.workflow,
          worker_id: row.workerId,
          labels_json: row.labels === null ? null : JSON.stringify(row.labels),
          created_at: row.createdAt,
          created_by: row.createdBy,
          expires_at: row.expiresAt,
          last_used_at: row.lastUsedAt,
          revoked_at: row.revokedAt,
        })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new AxError(
          'conflict',
          `${row.user} has a token named "${row.name}" already (revoked ones keep their name): choose another name`,
        );
      }
      throw err;
    }
  }

  async tokenByHash(hash: string): Promise<TokenRow | undefined> {
    const row = await this.db.selectFrom('ax_token').selectAll().where('hash', '=', hash).executeTakeFirst();
    return row && tokenFromRow(row);
  }

  async listTokens(user?: string): Promise<TokenRow[]> {
    let query = this.db.selectFrom('ax_token').selectAll();
    if (user !== undefined) query = query.where('user', '=', user);
    const rows = await query.orderBy('user').orderBy('name').execute();
    return rows.map(tokenFromRow);
  }

  async revokeToken(user: string, name: string, at: number): Promise<boolean> {
    const res = await this.db
      .updateTable('ax_token')
      .set({ revoked_at: at })
      .where('user', '=', user)
      .where('name', '=', name)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async touchToken(hash: string, at: number): Promise<void> {
    await this.db.updateTable('ax_token').set({ last_used_at: at }).where('hash', '=', hash).execute();
  }

  async listGroups(): Promise<GroupRow[]> {
    const rows = await this.db.selectFrom('ax_group').selectAll().orderBy('name').execute();
    return rows.map((r) => ({ name: r.name, private: r.private !== 0 }));
  }

  async putGroup(row: GroupRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('ax_group')
        .set({ private: row.private ? 1 : 0 })
        .where('name', '=', row.name)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) > 0) return;
      const exists = await trx.selectFrom('ax_group').select('name').where('name', '=', row.name).executeTakeFirst();
      if (!exists)
        await trx
          .insertInto('ax_group')
          .values({ name: row.name, private: row.private ? 1 : 0 })
          .execute();
    });
  }
}

// The audit log: appended to, read newest first.
import type { Kysely } from 'kysely';
import type { AuditEntry } from '../../api/types.ts';
import { num } from './rows.ts';
import type { Database } from './schema.ts';

export async function audit(db: Kysely<Database>, entry: Omit<AuditEntry, 'id'>): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      ...entry,
      detail: entry.detail ?? null,
      note: entry.note ?? null,
      role: entry.role ?? null,
      address: entry.address ?? null,
    })
    .execute();
}

export async function listAudit(db: Kysely<Database>, limit: number): Promise<AuditEntry[]> {
  const rows = await db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    id: r.id,
    at: num(r.at),
    actor: r.actor,
    action: r.action,
    object: r.object,
    detail: r.detail ?? undefined,
    note: r.note,
    role: r.role,
    address: r.address,
  }));
}

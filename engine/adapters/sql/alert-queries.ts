// Alerts and their deliveries (tables alert and alert_delivery, migration 0011). The
// unique alert_key makes a team send each alert once: the node whose insert wins sends it. The
// unique (group_key, opens_group) makes one alert per group the opener (sent at once); the
// others of the group are recorded `grouped` and told in the group's summary.
import type { ReasonCode } from '../../api/reason-code.ts';
import type { Kysely, Selectable } from 'kysely';
import type {
  AlertChannelKind,
  AlertDelivery,
  AlertFilter,
  AlertRecord,
  AlertRule,
  AlertSeverity,
  AlertState,
} from '../../api/alerts.ts';
import type { AlertRecorded, DueAlertGroup, NewAlert } from '../../ports/store.ts';
import { num } from './rows.ts';
import { insertedId, mayCollide } from './inserts.ts';
import { isUniqueViolation } from './run-queries.ts';
import type { AlertDeliveryTable, AlertTable, Database } from './schema.ts';

async function insert(
  db: Kysely<Database>,
  alert: NewAlert,
  kind: AlertRecord['kind'],
  opens: boolean,
): Promise<number | undefined> {
  try {
    return await mayCollide(db, () =>
      insertedId(
        db,
        db.insertInto('alert').values({
          alert_key: alert.key,
          group_key: alert.groupKey,
          opens_group: opens ? 1 : null,
          group_ends_at: alert.groupEndsAt,
          // Only an opener has a summary to send.
          group_done: opens ? 0 : 1,
          rule: alert.rule,
          // Indexed-size columns (MySQL varchar(191)): a worker id may be that long already.
          subject: alert.subject.slice(0, 191),
          workflow: alert.workflow ?? null,
          run_id: alert.runId ?? null,
          instance_id: alert.instanceId ?? null,
          severity: alert.severity,
          title: alert.title,
          message: alert.message,
          text_code:
            alert.titleCode || alert.messageCodes
              ? JSON.stringify({ title: alert.titleCode, message: alert.messageCodes })
              : null,
          at: alert.at,
          node: alert.node.slice(0, 191),
          kind,
          repeats: alert.repeats ?? null,
          state: kind === 'grouped' ? 'grouped' : alert.state,
        }),
      ),
    );
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

export async function recordAlert(db: Kysely<Database>, alert: NewAlert): Promise<AlertRecorded> {
  if (alert.kind) {
    const id = await insert(db, alert, alert.kind, false);
    return id === undefined ? undefined : { id, kind: alert.kind };
  }
  // First as the group's opener; refused (by either key), then as a repeat; refused again, the
  // alert key itself exists: someone recorded this alert already.
  const opened = await insert(db, alert, 'immediate', true);
  if (opened !== undefined) return { id: opened, kind: 'immediate' };
  const grouped = await insert(db, alert, 'grouped', false);
  return grouped === undefined ? undefined : { id: grouped, kind: 'grouped' };
}

export async function recordAlertDelivery(db: Kysely<Database>, alertId: number, d: AlertDelivery): Promise<void> {
  const row = { kind: d.kind ?? null, state: d.state, attempts: d.attempts, error: d.error ?? null, at: d.at };
  // One node sends an alert, one channel at a time: no other writer races this row.
  const res = await db
    .updateTable('alert_delivery')
    .set(row)
    .where('alert_id', '=', alertId)
    .where('channel', '=', d.channel)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0)
    await db
      .insertInto('alert_delivery')
      .values({ alert_id: alertId, channel: d.channel, ...row })
      .execute();
}

export async function setAlertState(db: Kysely<Database>, alertId: number, state: AlertState): Promise<void> {
  await db.updateTable('alert').set({ state }).where('id', '=', alertId).execute();
}

export async function dueAlertGroups(db: Kysely<Database>, now: number, limit: number): Promise<DueAlertGroup[]> {
  const openers = await db
    .selectFrom('alert')
    .selectAll()
    .where('group_done', '=', 0)
    .where('group_ends_at', '<=', now)
    .orderBy('group_ends_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  if (openers.length === 0) return [];
  const counts = await db
    .selectFrom('alert')
    .select(['group_key', db.fn.countAll<number | string>().as('n')])
    .where(
      'group_key',
      'in',
      openers.map((o) => o.group_key),
    )
    .where('kind', '=', 'grouped')
    .groupBy('group_key')
    .execute();
  const repeats = new Map(counts.map((c) => [c.group_key, num(c.n)]));
  const records = await withDeliveries(db, openers);
  return openers.map((o, i) => ({
    opener: records[i] as AlertRecord,
    groupKey: o.group_key,
    groupEndsAt: num(o.group_ends_at),
    repeats: repeats.get(o.group_key) ?? 0,
  }));
}

export async function closeAlertGroup(db: Kysely<Database>, openerId: number): Promise<void> {
  await db.updateTable('alert').set({ group_done: 1 }).where('id', '=', openerId).execute();
}

export async function listAlerts(db: Kysely<Database>, filter: AlertFilter): Promise<AlertRecord[]> {
  let q = db
    .selectFrom('alert')
    .selectAll()
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 100);
  if (filter.beforeId !== undefined) q = q.where('id', '<', filter.beforeId);
  if (filter.workflow !== undefined) q = q.where('workflow', '=', filter.workflow);
  if (filter.rule !== undefined) q = q.where('rule', '=', filter.rule);
  if (filter.state !== undefined) q = q.where('state', '=', filter.state);
  return withDeliveries(db, await q.execute());
}

export async function getAlert(db: Kysely<Database>, id: number): Promise<AlertRecord | undefined> {
  const rows = await db.selectFrom('alert').selectAll().where('id', '=', id).execute();
  return (await withDeliveries(db, rows))[0];
}

export async function purgeAlerts(db: Kysely<Database>, before: number): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const old = await tx.selectFrom('alert').select('id').where('at', '<', before).execute();
    if (old.length === 0) return 0;
    const ids = old.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 1000) {
      const part = ids.slice(i, i + 1000);
      await tx.deleteFrom('alert_delivery').where('alert_id', 'in', part).execute();
      await tx.deleteFrom('alert').where('id', 'in', part).execute();
    }
    return ids.length;
  });
}

async function withDeliveries(db: Kysely<Database>, rows: Selectable<AlertTable>[]): Promise<AlertRecord[]> {
  const byAlert = new Map<number, AlertDelivery[]>();
  if (rows.length > 0) {
    const deliveries = await db
      .selectFrom('alert_delivery')
      .selectAll()
      .where(
        'alert_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('alert_id')
      .orderBy('channel')
      .execute();
    for (const d of deliveries) byAlert.set(d.alert_id, [...(byAlert.get(d.alert_id) ?? []), deliveryFromRow(d)]);
  }
  return rows.map((r) => alertFromRow(r, byAlert.get(r.id) ?? []));
}

function deliveryFromRow(d: Selectable<AlertDeliveryTable>): AlertDelivery {
  return {
    channel: d.channel,
    ...(d.kind !== null && { kind: d.kind as AlertChannelKind }),
    state: d.state as AlertDelivery['state'],
    attempts: d.attempts,
    ...(d.error !== null && { error: d.error }),
    at: num(d.at),
  };
}

/** An alert's stored codes; none when absent or unreadable (its English stands). */
function alertCodes(text: string | null): Pick<AlertRecord, 'titleCode' | 'messageCodes'> {
  if (!text) return {};
  try {
    const { title, message } = JSON.parse(text) as { title?: ReasonCode; message?: ReasonCode[] };
    return { ...(title && { titleCode: title }), ...(message && { messageCodes: message }) };
  } catch {
    return {};
  }
}

function alertFromRow(r: Selectable<AlertTable>, deliveries: AlertDelivery[]): AlertRecord {
  return {
    id: r.id,
    key: r.alert_key,
    rule: r.rule as AlertRule,
    subject: r.subject,
    ...(r.workflow !== null && { workflow: r.workflow }),
    ...(r.run_id !== null && { runId: r.run_id }),
    ...(r.instance_id !== null && { instanceId: r.instance_id }),
    severity: r.severity as AlertSeverity,
    title: r.title,
    message: r.message,
    ...alertCodes(r.text_code),
    at: num(r.at),
    node: r.node,
    kind: r.kind as AlertRecord['kind'],
    ...(r.repeats !== null && { repeats: r.repeats }),
    state: r.state as AlertState,
    deliveries,
  };
}

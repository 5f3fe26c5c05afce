// claim-due-instances: WAITING → DISPATCHED for one worker, fenced and complete in one step.
// In: the worker, the candidates a dispatcher routed to it (id and the attempt it saw), now.
// Out: the ids claimed: those still WAITING at their attempt and due, oldest due first, as many
// as the worker has free slots (its stored maxConcurrency minus its DISPATCHED + RUNNING).
// Two dispatchers racing (a lease hand-over, a split brain) can neither hand one instance out
// twice nor take a worker past its limit.
// Locks: see below; they are where the dialects truly differ.
// The dialects truly differ here: SQLite runs it as one conditional UPDATE … RETURNING (a
// statement holds the database's one write lock); MySQL has neither RETURNING on UPDATE nor a
// subquery on the updated table, so it takes the worker's row lock and claims in a transaction
// of four statements, locking instance rows only by their key.
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql, type Transaction } from 'kysely';
import type { ClaimCandidate } from '../../ports/store.ts';
import { groupCommit } from './group-commit.ts';
import { memoQuery, slot } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import { transact } from './transaction.ts';
import type { Database } from './schema.ts';

const ACTIVE = ['DISPATCHED', 'RUNNING'] as const;

/** `id IN (…)` finds the rows by key; the pairs fence each one on the attempt the caller saw. */
function candidateFilter(candidates: ClaimCandidate[]) {
  return (eb: ExpressionBuilder<Database, 'task_instance'>): Expression<SqlBool> =>
    eb.and([
      eb(
        'id',
        'in',
        candidates.map((c) => c.id),
      ),
      eb.or(candidates.map((c) => eb.and([eb('id', '=', c.id), eb('attempt', '=', c.attempt)]))),
    ]);
}

export async function claimDueInstances(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  workerId: string,
  candidates: ClaimCandidate[],
  now: number,
): Promise<number[]> {
  if (candidates.length === 0) return [];
  // SQLite: the claim shares its commit with the other writes of the turn (group-commit.ts).
  return dialect === 'sqlite'
    ? groupCommit(db, (trx) => claimSqlite(trx, workerId, candidates, now))
    : claimMysql(db, workerId, candidates, now);
}

async function claimSqlite(
  db: Kysely<Database>,
  workerId: string,
  candidates: ClaimCandidate[],
  now: number,
): Promise<number[]> {
  // Slots: the worker, now, then each candidate's id and attempt (one statement per count).
  const slotted = candidates.map((_, i) => ({ id: slot<number>(2 + 2 * i), attempt: slot<number>(3 + 2 * i) }));
  const { rows } = await memoQuery(
    db,
    `claim:${candidates.length}`,
    (d) => {
      const worker = slot<string>(0);
      const at = slot<number>(1);
      // Free slots, read inside the statement: a worker the store does not know has none, and a
      // negative LIMIT would mean "no limit" to SQLite.
      const free = sql<number>`max(0, coalesce((select max_concurrency from worker where id = ${worker}), 0) - (select count(*) from task_instance where worker_id = ${worker} and state in (${sql.join(ACTIVE)})))`;
      return d
        .updateTable('task_instance')
        .set({ state: 'DISPATCHED', worker_id: worker, dispatched_at: at, reason: null, reason_code: null })
        .where('id', 'in', (qb) =>
          qb
            .selectFrom('task_instance')
            .select('id')
            .where(candidateFilter(slotted))
            // `+state`: look the candidates up by key; SQLite would otherwise walk every due
            // WAITING row by the (state, not_before) index, the queue scan this exists to avoid.
            .where(sql<string>`+state`, '=', 'WAITING')
            .where('not_before', '<=', at)
            .orderBy('not_before')
            .orderBy('id')
            .limit(free),
        )
        .returning('id');
    },
    [workerId, now, ...candidates.flatMap((c) => [c.id, c.attempt])],
  );
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

function claimMysql(
  db: Kysely<Database>,
  workerId: string,
  candidates: ClaimCandidate[],
  now: number,
): Promise<number[]> {
  // Claims lock instance rows by key in key order, so a deadlock is rare (transact runs a
  // rolled-back claim again).
  return transact(db, (trx) => claimInTransaction(trx, workerId, candidates, now));
}

async function claimInTransaction(
  trx: Transaction<Database>,
  workerId: string,
  candidates: ClaimCandidate[],
  now: number,
): Promise<number[]> {
  // The worker's row lock orders every claim for this worker; a worker without a row takes nothing.
  const worker = await trx
    .selectFrom('worker')
    .select('max_concurrency')
    .where('id', '=', workerId)
    .forUpdate()
    .executeTakeFirst();
  if (!worker) return [];
  // The first plain read of the transaction, so its snapshot is taken under the lock: it sees
  // every earlier claim for this worker. Anything else changes this count only downwards.
  const active = await trx
    .selectFrom('task_instance')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('worker_id', '=', workerId)
    .where('state', 'in', [...ACTIVE])
    .executeTakeFirstOrThrow();
  const free = worker.max_concurrency - Number(active.n);
  if (free <= 0) return [];
  // The candidates' rows, locked by their key alone: a locking read by state and due time would
  // lock a range of the queue's index (gap locks) and deadlock with new instances' inserts. A
  // claim for another worker racing on them waits here, then reads them DISPATCHED.
  const rows = await trx
    .selectFrom('task_instance')
    .select(['id', 'attempt', 'state', 'not_before'])
    .where(
      'id',
      'in',
      candidates.map((c) => c.id),
    )
    .forUpdate()
    .execute();
  const fence = new Map(candidates.map((c) => [c.id, c.attempt]));
  const ids = rows
    .filter((r) => r.state === 'WAITING' && fence.get(r.id) === r.attempt && Number(r.not_before) <= now)
    .sort((a, b) => Number(a.not_before) - Number(b.not_before) || a.id - b.id)
    .slice(0, free)
    .map((r) => r.id);
  if (ids.length === 0) return [];
  await trx
    .updateTable('task_instance')
    .set({ state: 'DISPATCHED', worker_id: workerId, dispatched_at: now, reason: null, reason_code: null })
    .where('id', 'in', ids)
    .where('state', '=', 'WAITING')
    .execute();
  return ids.sort((a, b) => a - b);
}

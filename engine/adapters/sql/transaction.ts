// The one transaction module every compound state change runs over: `transact` (one
// transaction, run again when InnoDB rolls it back as a deadlock's victim; on SQLite, shared with
// the other writes of the turn by group commit, and on MySQL and PostgreSQL so are a finish's
// with the task path's other writes asked for while earlier ones run), the run's row lock, and the two kinds of locking
// read. On SQLite (one writer at a time) the locks are plain reads: the write lock of the
// transaction already orders every step.
//
// Why locking reads on MySQL: a plain read takes the REPEATABLE READ snapshot at the first read of
// the transaction, so a read that decides something (is the join ready? is anything pending?)
// must see the latest committed rows and wait for rows another step is changing. PostgreSQL
// (READ COMMITTED) takes the same locks, spelled its way: a plain read there sees what was
// committed before it, but only a locking read waits for a step still changing the rows.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { groupCommit, groupCommitNetworked } from './group-commit.ts';
import { memoQuery, slot } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import type { Database, WorkflowRunTable } from './schema.ts';

export type Trx = Transaction<Database>;

/** InnoDB's deadlock and lock-wait codes; PostgreSQL's deadlock, serialization failure and lock timeout. */
const RETRIED = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40P01', '40001', '55P03']);

function isDeadlock(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code !== undefined && RETRIED.has(code);
}

/** Whether the database locks rows (MySQL, PostgreSQL); SQLite has one writer at a time instead. */
export const locksRows = (dialect: SqlDialectName): boolean => dialect !== 'sqlite';

/** A shared row lock's clause: MariaDB knows only the older spelling, PostgreSQL only the newer. */
export function shareLock(dialect: SqlDialectName, skipLocked = false) {
  if (dialect === 'postgres') return skipLocked ? sql`for share skip locked` : sql`for share`;
  return skipLocked ? sql`lock in share mode skip locked` : sql`lock in share mode`;
}

/** How many times a step the database rolled back as a deadlock's victim is run again. */
const DEADLOCK_ATTEMPTS = 10;

/**
 * Runs a step as one transaction. InnoDB may pick it as a deadlock's victim and roll it back
 * whole; it is then simply run again, after a short random pause so the same pair does not
 * collide again at once.
 */
export async function transact<T>(
  db: Kysely<Database>,
  work: (trx: Trx) => Promise<T>,
  dialect?: SqlDialectName,
  options: { group?: boolean } = {},
): Promise<T> {
  // SQLite has no deadlocks; its writes of one turn share a commit.
  if (dialect === 'sqlite') return groupCommit(db, work);
  // A step of the task path (a finish) shares a commit with those asked for with it; alone, or
  // when its group failed, it runs as below.
  if (options.group) return groupCommitNetworked(db, work, { alone: () => retried(db, work) });
  return retried(db, work);
}

async function retried<T>(db: Kysely<Database>, work: (trx: Trx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (!isDeadlock(err) || attempt >= DEADLOCK_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt));
    }
  }
}

/** `lock in share mode` (`for share`): the latest committed rows, held until the step commits. */
export function shared<Q extends { modifyEnd(s: ReturnType<typeof sql>): Q }>(q: Q, dialect: SqlDialectName): Q {
  return locksRows(dialect) ? q.modifyEnd(shareLock(dialect)) : q;
}

/** `for update`: the latest committed rows, held exclusively until the step commits. */
export function exclusive<Q extends { forUpdate(): Q }>(q: Q, dialect: SqlDialectName): Q {
  return locksRows(dialect) ? q.forUpdate() : q;
}

/**
 * The run's row, locked on MySQL and PostgreSQL: exclusively (steps that change the run itself: settle, cancel,
 * re-run), or shared (a finish, so instances of one run finish side by side).
 */
export async function lockRun(
  trx: Trx,
  dialect: SqlDialectName,
  runId: number,
  mode: 'update' | 'share' = 'update',
): Promise<Selectable<WorkflowRunTable> | undefined> {
  const how = locksRows(dialect) ? mode : 'plain';
  // Under a shared lock the row cannot change but by this transaction, which takes the row
  // exclusively first: the finishes of one run in a group (group-commit.ts) read it once.
  let held = sharedRuns.get(trx);
  if (how === 'update') sharedRuns.delete(trx);
  else if (how === 'share' && held?.has(runId)) {
    const row = held.get(runId);
    return row && { ...row };
  }
  const { rows } = await memoQuery(
    trx,
    `lock-run:${how}`,
    (d) => {
      const q = d.selectFrom('workflow_run').selectAll().where('id', '=', slot(0));
      return how === 'plain' ? q : how === 'update' ? q.forUpdate() : q.modifyEnd(shareLock(dialect));
    },
    [runId],
  );
  if (how === 'share') {
    if (!held) sharedRuns.set(trx, (held = new Map()));
    held.set(runId, rows[0] && { ...rows[0] });
  }
  return rows[0];
}

/** Per transaction: the run rows it read under a shared lock, forgotten once it locks one exclusively. */
const sharedRuns = new WeakMap<Trx, Map<number, Selectable<WorkflowRunTable> | undefined>>();

// The one transaction module every compound state change runs over: `transact` (one
// transaction, run again when InnoDB rolls it back as a deadlock's victim; on SQLite, shared with
// the other writes of the turn by group commit), the run's row lock, and the two kinds of locking
// read. On SQLite (one writer at a time) the locks are plain reads: the write lock of the
// transaction already orders every step.
//
// Why locking reads on MySQL: a plain read takes the REPEATABLE READ snapshot at the first read of
// the transaction, so a read that decides something (is the join ready? is anything pending?)
// must see the latest committed rows and wait for rows another step is changing.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { groupCommit } from './group-commit.ts';
import { memoQuery, slot } from './memo-query.ts';
import type { SqlDialectName } from './migrations.ts';
import type { Database, WorkflowRunTable } from './schema.ts';

export type Trx = Transaction<Database>;

function isDeadlock(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
}

/** How many times a step InnoDB rolled back as a deadlock's victim is run again. */
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
): Promise<T> {
  // SQLite has no deadlocks; its writes of one turn share a commit.
  if (dialect === 'sqlite') return groupCommit(db, work);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      if (!isDeadlock(err) || attempt >= DEADLOCK_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt));
    }
  }
}

/** `lock in share mode` on MySQL: the latest committed rows, held until the step commits. */
export function shared<Q extends { modifyEnd(s: ReturnType<typeof sql>): Q }>(q: Q, dialect: SqlDialectName): Q {
  return dialect === 'mysql' ? q.modifyEnd(sql`lock in share mode`) : q;
}

/** `for update` on MySQL: the latest committed rows, held exclusively until the step commits. */
export function exclusive<Q extends { forUpdate(): Q }>(q: Q, dialect: SqlDialectName): Q {
  return dialect === 'mysql' ? q.forUpdate() : q;
}

/**
 * The run's row, locked on MySQL: exclusively (steps that change the run itself: settle, cancel,
 * re-run), or shared (a finish, so instances of one run finish side by side).
 */
export async function lockRun(
  trx: Trx,
  dialect: SqlDialectName,
  runId: number,
  mode: 'update' | 'share' = 'update',
): Promise<Selectable<WorkflowRunTable> | undefined> {
  const how = dialect !== 'mysql' ? 'plain' : mode;
  const { rows } = await memoQuery(
    trx,
    `lock-run:${how}`,
    (d) => {
      const q = d.selectFrom('workflow_run').selectAll().where('id', '=', slot(0));
      return how === 'plain' ? q : how === 'update' ? q.forUpdate() : q.modifyEnd(sql`lock in share mode`);
    },
    [runId],
  );
  return rows[0];
}

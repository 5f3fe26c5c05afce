// Group commit: the task path's writes (RUNNING, pid, outcome; on SQLite also claims and every
// other step) that are asked for together share one transaction and one commit. A commit is the
// dearest part of a small write: on SQLite ~0.1–0.2 ms of the engine's thread against ~0.03 ms
// for the UPDATE itself; on MySQL and PostgreSQL a round trip and a flush of the server's log.
//
// SQLite (one writer): the writes asked for during one turn of the event loop form a group, run
// one after the other in one transaction in the order asked, the order they would have had anyway.
// MySQL, PostgreSQL (a pool of connections, row locks): a write alone when nothing else is
// pending runs at once, alone, as it would without grouping (no added round trips). Only while
// GROUPS_IN_FLIGHT groups are already running do further writes wait, and those gathered by the
// time one ends run as the next group: under load the group grows, idle it costs nothing.
//
// Each caller's promise settles only once its group's commit is done. Should a write of the group
// throw (a deadlock's victim, a lock wait timeout, a constraint), the transaction is rolled back
// whole and each runs again alone, so one failure cannot take the others with it (every step
// here may be run again: they are compare-and-sets, and a rolled-back one left nothing). A failed
// COMMIT is different on a networked database: the server may have committed before the answer
// was lost, so running the steps again could see their own writes and report a refusal; each
// caller gets the error instead, as a lone step's caller would.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Work = (trx: Transaction<Database>) => Promise<unknown>;

interface Waiting {
  work: Work;
  alone: () => Promise<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/** How many groups of one database may run at once on MySQL and PostgreSQL (of a pool of 10). */
const GROUPS_IN_FLIGHT = 2;

interface Lane {
  pending: Waiting[];
  inFlight: number;
  scheduled: boolean;
}

const lanes = new WeakMap<Kysely<Database>, Lane>();
const turnGroups = new WeakMap<Kysely<Database>, Waiting[]>();

export interface GroupOptions<T> {
  /** How the write runs by itself (default: `work` in a transaction of its own). */
  alone?: () => Promise<T>;
}

/** SQLite: runs `work` in a transaction shared with the other writes asked for in this turn. */
export function groupCommit<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
  options: GroupOptions<T> = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let group = turnGroups.get(db);
    if (!group) {
      group = [];
      turnGroups.set(db, group);
      const mine = group;
      setImmediate(() => {
        turnGroups.delete(db);
        void flush(db, mine, false);
      });
    }
    group.push(waiting(db, work, options, resolve, reject));
  });
}

/**
 * MySQL, PostgreSQL: runs `work` alone at once when fewer than GROUPS_IN_FLIGHT groups run, else
 * in the next group, in one transaction with the writes that came meanwhile.
 */
export function groupCommitNetworked<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
  options: GroupOptions<T> = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let lane = lanes.get(db);
    if (!lane) lanes.set(db, (lane = { pending: [], inFlight: 0, scheduled: false }));
    lane.pending.push(waiting(db, work, options, resolve, reject));
    schedule(db, lane);
  });
}

function waiting<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
  options: GroupOptions<T>,
  resolve: (value: T) => void,
  reject: (reason: unknown) => void,
): Waiting {
  return {
    work,
    alone: options.alone ?? (() => db.transaction().execute(work)),
    resolve: resolve as (value: unknown) => void,
    reject,
  };
}

/** The pending writes go as one group in the next turn, once a group may start. */
function schedule(db: Kysely<Database>, lane: Lane): void {
  if (lane.scheduled || lane.inFlight >= GROUPS_IN_FLIGHT || lane.pending.length === 0) return;
  lane.scheduled = true;
  setImmediate(() => {
    lane.scheduled = false;
    const group = lane.pending;
    lane.pending = [];
    lane.inFlight++;
    void flush(db, group, true).finally(() => {
      lane.inFlight--;
      schedule(db, lane);
    });
  });
}

/** `networked`: MySQL or PostgreSQL (READ COMMITTED, and a failed COMMIT is not run again); else SQLite. */
async function flush(db: Kysely<Database>, group: Waiting[], networked: boolean): Promise<void> {
  if (group.length === 1) return alone(group[0] as Waiting);
  let results: unknown[];
  let worked = false;
  try {
    // A networked group runs READ COMMITTED: each step of it was written for a transaction of
    // its own, whose first plain read comes only after its locks (transaction.ts), so under
    // REPEATABLE READ an earlier step's plain read would pin a snapshot from before a later step's
    // locks, and that step would decide on rows older than what it had waited for (a run's last
    // finish not seeing its sibling's committed SUCCESS left the run RUNNING forever: team-sim,
    // 50,000 tasks). READ COMMITTED reads each statement's latest commit, as a lone step sees it.
    const transaction = networked ? db.transaction().setIsolationLevel('read committed') : db.transaction();
    results = await transaction.execute(async (trx) => {
      const out: unknown[] = [];
      for (const w of group) out.push(await w.work(trx));
      worked = true;
      return out;
    });
  } catch (err) {
    if (worked && networked) {
      for (const w of group) w.reject(err);
      return;
    }
    for (const w of group) await alone(w);
    return;
  }
  group.forEach((w, i) => w.resolve(results[i]));
}

async function alone(w: Waiting): Promise<void> {
  try {
    w.resolve(await w.alone());
  } catch (err) {
    w.reject(err);
  }
}

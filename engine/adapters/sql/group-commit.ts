// Group commit for SQLite. A commit is the dearest part of a small write (~0.1–0.2 ms of the
// engine's thread on the bench machine, against ~0.03 ms for the UPDATE itself), and a busy
// engine asks for several in one turn of its event loop: the RUNNING writes of a claimed batch,
// the outcomes of tasks that exited together. The writes asked for during one turn run one after
// the other in one transaction, in the order asked, with one commit: SQLite has one writer, so
// this is the order they would have had anyway, and each caller's promise settles only once
// the commit is done. Should one of them throw, the transaction is rolled back whole and each
// runs again alone, so one failure cannot take the others with it (every step here may be run
// again: they are compare-and-sets, and a rolled-back one left nothing).
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Work = (trx: Transaction<Database>) => Promise<unknown>;

interface Waiting {
  work: Work;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

const groups = new WeakMap<Kysely<Database>, Waiting[]>();

/** Runs `work` in a transaction shared with the other writes asked for in this turn. */
export function groupCommit<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let group = groups.get(db);
    if (!group) {
      group = [];
      groups.set(db, group);
      const mine = group;
      setImmediate(() => {
        groups.delete(db);
        void flush(db, mine);
      });
    }
    group.push({ work, resolve: resolve as (value: unknown) => void, reject });
  });
}

async function flush(db: Kysely<Database>, group: Waiting[]): Promise<void> {
  if (group.length === 1) return alone(db, group[0] as Waiting);
  let results: unknown[];
  try {
    results = await db.transaction().execute(async (trx) => {
      const out: unknown[] = [];
      for (const w of group) out.push(await w.work(trx));
      return out;
    });
  } catch {
    for (const w of group) await alone(db, w);
    return;
  }
  group.forEach((w, i) => w.resolve(results[i]));
}

async function alone(db: Kysely<Database>, w: Waiting): Promise<void> {
  try {
    w.resolve(await db.transaction().execute(w.work));
  } catch (err) {
    w.reject(err);
  }
}

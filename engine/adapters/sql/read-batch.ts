// Reads by id asked for in one turn of the event loop, as one statement: a worker that takes
// several dispatches at once reads each one's instance (dispatch-admission.ts), and on MySQL and
// PostgreSQL each read alone is a round trip. The ids asked for during a turn go as one
// `id IN (…)` query; each caller gets its own row (or undefined) or the query's error. A read
// made later than asked by a turn sees at least what was committed when it was asked.

/** Turns a loader of many ids into a reader of one, batching the ids asked for in one turn. */
export function batchReads<R>(
  load: (ids: number[]) => Promise<Map<number, R>>,
): (id: number) => Promise<R | undefined> {
  let pending: Map<number, { resolve(row: R | undefined): void; reject(err: unknown): void }[]> | undefined;
  return (id) =>
    new Promise<R | undefined>((resolve, reject) => {
      if (!pending) {
        const batch = new Map<number, { resolve(row: R | undefined): void; reject(err: unknown): void }[]>();
        pending = batch;
        setImmediate(() => {
          pending = undefined;
          load([...batch.keys()]).then(
            (rows) => {
              for (const [key, waiters] of batch) for (const w of waiters) w.resolve(rows.get(key));
            },
            (err: unknown) => {
              for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
            },
          );
        });
      }
      const waiters = pending.get(id) ?? [];
      waiters.push({ resolve, reject });
      pending.set(id, waiters);
    });
}

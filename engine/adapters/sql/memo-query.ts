// Statements compiled once. Kysely builds a query's tree, walks it and compiles it to SQL at
// every execution, and gives each a fresh random query id: for the engine's small per-task
// statements that was more time than SQLite itself took to run them (bench/, "Stop 19"). The
// statements on a task's path are built once per dialect with slots where their values go, and
// run again with new values; their SQL still comes from Kysely, in both dialects.
import type { Compilable, CompiledQuery, Kysely, QueryId, QueryResult, RootOperationNode } from 'kysely';
import type { Database } from './schema.ts';

const SLOT = '\u0000ax-slot:';

/**
 * Stands for the i-th value of a memoised statement (see memoQuery): passed where Kysely takes a
 * value, it comes out as a parameter of the compiled SQL.
 */
export function slot<T = never>(i: number): T {
  return `${SLOT}${i}` as T;
}

interface Memo {
  sql: string;
  query: RootOperationNode;
  queryId: QueryId;
  /** per parameter of the SQL: the slot it takes its value from, or the constant it holds */
  params: ({ slot: number } | { value: unknown })[];
}

/** Per dialect (its adapter, shared by a Kysely instance and its transactions): key → statement. */
const memos = new WeakMap<object, Map<string, Memo>>();

/**
 * Runs the statement `build` makes, with `values` in its slots. The SQL is compiled once per
 * dialect and `key`: the key must name the statement's shape (everything but its slots), e.g.
 * include the length of an IN list built from a variable number of slots.
 */
export async function memoQuery<R>(
  db: Kysely<Database>,
  key: string,
  build: (db: Kysely<Database>) => Compilable<R>,
  values: readonly unknown[],
): Promise<QueryResult<R>> {
  const executor = db.getExecutor();
  let byKey = memos.get(executor.adapter);
  if (!byKey) memos.set(executor.adapter, (byKey = new Map()));
  let memo = byKey.get(key);
  if (!memo) {
    const compiled = build(db).compile();
    memo = {
      sql: compiled.sql,
      query: compiled.query,
      queryId: compiled.queryId,
      params: compiled.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(SLOT) ? { slot: Number(p.slice(SLOT.length)) } : { value: p },
      ),
    };
    byKey.set(key, memo);
  }
  const parameters = memo.params.map((p) => ('slot' in p ? values[p.slot] : p.value));
  // No plugins are installed, so the query id (which plugins key their state by) can be shared.
  const query: CompiledQuery<R> = { sql: memo.sql, query: memo.query, queryId: memo.queryId, parameters };
  return db.executeQuery(query);
}

// The run graph's "only failed / running / waiting" filter: which tasks stay lit (the rest are
// dimmed, never removed, so the shape of the run stays readable), and "Find a task"'s matches.

export type StateFilter = 'all' | 'failed' | 'running' | 'waiting';
export const STATE_FILTERS: readonly StateFilter[] = ['all', 'failed', 'running', 'waiting'];

const LIT: Record<Exclude<StateFilter, 'all'>, ReadonlySet<string>> = {
  // an upstream failure is where a failure shows downstream: lit with it
  failed: new Set(['FAILED', 'TIMEOUT', 'UPSTREAM_FAILED']),
  running: new Set(['RUNNING', 'DISPATCHED']),
  waiting: new Set(['WAITING']),
};

/** true when a task in `state` is drawn faded under `filter` */
export function dimmedBy(filter: StateFilter, state: string | undefined): boolean {
  if (filter === 'all') return false;
  return !state || !LIT[filter].has(state);
}

/** how many tasks each filter keeps lit, for the filter's labels */
export function filterCounts(states: readonly (string | undefined)[]): Record<StateFilter, number> {
  const out: Record<StateFilter, number> = { all: states.length, failed: 0, running: 0, waiting: 0 };
  for (const s of states) for (const f of ['failed', 'running', 'waiting'] as const) if (!dimmedBy(f, s)) out[f]++;
  return out;
}

/** the names that contain the query (case-insensitive), exact matches first, else in graph order */
export function findMatches(names: readonly string[], query: string): string[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const hits = names.filter((n) => n.toLowerCase().includes(q));
  return [...hits.filter((n) => n.toLowerCase() === q), ...hits.filter((n) => n.toLowerCase() !== q)];
}

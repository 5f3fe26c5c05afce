// The workflows list's filter and sort, kept in the address (?q=&sort=&order=) so Back returns
// to the same view. Pure functions: the page and its tests share them.
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import type { RunState } from '../../../engine/api/types.ts';

export const SORT_KEYS = ['name', 'owner', 'lastRun', 'nextFire'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortOrder = 'ascend' | 'descend';

/** the text filter: every word must occur in the name, the owner or the description */
export function matchesText(w: Pick<WorkflowListing, 'name' | 'owner' | 'description'>, text: string): boolean {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = `${w.name}\n${w.owner ?? ''}\n${w.description ?? ''}`.toLowerCase();
  return words.every((word) => hay.includes(word));
}

// the worst news first when sorting by the last run's state (ascending)
const STATE_RANK: Partial<Record<RunState, number>> = {
  FAILED: 0,
  CANCELLED: 1,
  RUNNING: 2,
  QUEUED: 3,
  SKIPPED: 4,
  SUCCESS: 5,
};

const byName = (a: WorkflowListing, b: WorkflowListing) => a.name.localeCompare(b.name);

/** missing values (no owner, never ran, nothing scheduled) sort last in either order */
function compareMaybe<T>(a: T | undefined, b: T | undefined, cmp: (x: T, y: T) => number, order: SortOrder): number {
  if (a === undefined && b === undefined) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return order === 'ascend' ? cmp(a, b) : cmp(b, a);
}

const nextFireOf = (w: WorkflowListing) => (w.enabled ? w.nextFireAt : undefined);
const lastRankOf = (w: WorkflowListing) => (w.lastRun ? (STATE_RANK[w.lastRun.state] ?? 6) : undefined);

export function sortWorkflows(list: readonly WorkflowListing[], key: SortKey, order: SortOrder): WorkflowListing[] {
  const num = (x: number, y: number) => x - y;
  const str = (x: string, y: string) => x.localeCompare(y);
  const cmp = (a: WorkflowListing, b: WorkflowListing): number => {
    switch (key) {
      case 'name':
        return order === 'ascend' ? byName(a, b) : byName(b, a);
      case 'owner':
        return compareMaybe(a.owner, b.owner, str, order);
      case 'lastRun':
        return compareMaybe(lastRankOf(a), lastRankOf(b), num, order);
      case 'nextFire':
        return compareMaybe(nextFireOf(a), nextFireOf(b), num, order);
    }
  };
  // ties by name, so the order never jumps when a live refresh arrives
  return [...list].sort((a, b) => cmp(a, b) || byName(a, b));
}

export function parseSort(key: string | null, order: string | null): { key: SortKey; order: SortOrder } {
  return {
    key: (SORT_KEYS as readonly string[]).includes(key ?? '') ? (key as SortKey) : 'name',
    order: order === 'descend' ? 'descend' : 'ascend',
  };
}

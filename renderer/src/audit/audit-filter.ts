// The audit page's filters (who, which action, any text, since when), kept in the address so a
// filtered view can be shared. They apply to the entries listAudit answered (its newest N), in the
// page, not in the engine: the subtitle says so.
import type { AuditEntry } from '../../../engine/api/types.ts';

export const SINCE_OPTIONS = ['1h', '24h', '7d', '30d'] as const;
export type Since = (typeof SINCE_OPTIONS)[number];

const SINCE_MS: Record<Since, number> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
};

export interface AuditFilter {
  user?: string;
  action?: string;
  text: string;
  since?: Since;
}

export function filterFromParams(params: URLSearchParams): AuditFilter {
  const since = params.get('since');
  return {
    ...(params.get('user') && { user: params.get('user') as string }),
    ...(params.get('action') && { action: params.get('action') as string }),
    text: params.get('q') ?? '',
    ...(SINCE_OPTIONS.includes(since as Since) && { since: since as Since }),
  };
}

export function paramsOfFilter(filter: AuditFilter): Record<string, string> {
  return {
    ...(filter.user && { user: filter.user }),
    ...(filter.action && { action: filter.action }),
    ...(filter.text && { q: filter.text }),
    ...(filter.since && { since: filter.since }),
  };
}

/**
 * Newest first, those matching every filter given; with `ofWorkflow` ("my workflows"), only the
 * entries about a workflow it accepts (their object is `workflow:NAME`).
 */
export function filterAudit(
  entries: AuditEntry[],
  filter: AuditFilter,
  ofWorkflow?: (name: string) => boolean,
  now = Date.now(),
): AuditEntry[] {
  const needle = filter.text.trim().toLowerCase();
  const after = filter.since ? now - SINCE_MS[filter.since] : undefined;
  const sorted = [...entries].sort((a, b) => b.at - a.at || b.id - a.id);
  return sorted.filter(
    (e) =>
      (!filter.user || e.actor === filter.user) &&
      (!filter.action || e.action === filter.action) &&
      (after === undefined || e.at >= after) &&
      (!ofWorkflow || (e.object.startsWith('workflow:') && ofWorkflow(e.object.slice('workflow:'.length)))) &&
      (!needle ||
        [e.actor, e.note ?? '', e.action, e.object, e.detail ?? '', e.role ?? '', e.address ?? ''].some((field) =>
          field.toLowerCase().includes(needle),
        )),
  );
}

/** the distinct values of a field, sorted, for the filter's choices */
export function distinct(entries: AuditEntry[], field: 'actor' | 'action'): string[] {
  return [...new Set(entries.map((e) => e[field]))].sort((a, b) => a.localeCompare(b));
}

/** whether any entry was made on a server with accounts (then the role and address columns show) */
export function hasPeople(entries: AuditEntry[]): boolean {
  return entries.some((e) => (e.role ?? null) !== null || (e.address ?? null) !== null);
}

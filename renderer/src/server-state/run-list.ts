// The runs page's reads: a keyset page of listRuns across workflows and the calendar's counts,
// both read again (throttled) when runs change, so a run that ends turns its row and its cell.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RunFilter } from '../../../engine/api/engine-api.ts';
import type { CalendarQuery } from '../../../engine/api/run-views.ts';
import { useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';
import { useRefreshOn } from './use-engine-refresh.ts';

export function useRunList(filter: RunFilter, before: number | undefined, limit: number) {
  const api = useApi();
  useRefreshOn(['runs'], [keys.runLists()], { windowMs: 1_000 });
  return useQuery({
    queryKey: keys.runList(JSON.stringify(filter), before, limit),
    queryFn: () => api.listRuns({ ...filter, beforeId: before, limit }),
    placeholderData: keepPreviousData,
  });
}

export function useRunCalendar(query: CalendarQuery) {
  const api = useApi();
  useRefreshOn(['runs'], [keys.runCalendars()], { windowMs: 2_000 });
  return useQuery({
    queryKey: keys.runCalendar(JSON.stringify(query)),
    queryFn: () => api.runCalendar(query),
    placeholderData: keepPreviousData,
  });
}

// A workflow's duration trends (issue 24): its last N finished runs and per-task p50/p95, read
// again when runs change (a finished run moves the figures), at most every few seconds.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';
import { useRefreshOn } from './use-engine-refresh.ts';

export function useDurationTrends(workflow: string, lastRuns: number) {
  const api = useApi();
  useRefreshOn(['runs'], [keys.durationTrends(workflow)], { windowMs: 3_000 });
  return useQuery({
    queryKey: keys.durationTrends(workflow, lastRuns),
    queryFn: () => api.durationTrends(workflow, { lastRuns }),
    placeholderData: keepPreviousData,
  });
}

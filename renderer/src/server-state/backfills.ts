// Backfills: the list and one backfill (live: a backfill's progress moves with its runs, whose
// events arrive on the `runs` topic), the dialog's preview (a dry run), and the changes (create,
// cancel, re-run its failed runs).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BackfillDetail, BackfillPlan, BackfillRequest } from '../../../engine/api/backfill.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';
import type { Feedback } from './mutations.ts';
import { useRefreshOn } from './use-engine-refresh.ts';

export function useBackfills(filter: { workflow?: string; limit: number }) {
  const api = useApi();
  useRefreshOn(['runs'], [keys.backfills()], { windowMs: 1_000 });
  return useQuery({
    queryKey: keys.backfillList(filter.workflow, filter.limit),
    queryFn: () => api.listBackfills(filter),
    placeholderData: keepPreviousData,
  });
}

export function useBackfill(id: number | undefined) {
  const api = useApi();
  useRefreshOn(id === undefined ? [] : ['runs'], [keys.backfill(id ?? 0)], { windowMs: 1_000 });
  return useQuery({
    queryKey: keys.backfill(id ?? 0),
    queryFn: () => api.getBackfill(id as number),
    enabled: id !== undefined && Number.isFinite(id),
    retry: false,
  });
}

/**
 * What a backfill would create (a dry run), for a complete request; undefined while the form is
 * incomplete. The previous answer stays shown while the next one is read.
 */
export function useBackfillPreview(request: BackfillRequest | undefined) {
  const api = useApi();
  const text = JSON.stringify(request ?? null);
  return useQuery<BackfillPlan>({
    queryKey: keys.backfillPreview(text),
    queryFn: () => api.backfill({ ...(request as BackfillRequest), dryRun: true }, UI_ACTOR),
    enabled: request !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 5_000,
  });
}

function useBackfillRefresh() {
  const queryClient = useQueryClient();
  return () => {
    for (const queryKey of [keys.backfills(), keys.runs(), keys.workflows(), keys.dashboard()])
      void queryClient.invalidateQueries({ queryKey });
  };
}

export function useCreateBackfill(feedback: Feedback<BackfillPlan, BackfillRequest> = {}) {
  const api = useApi();
  const refresh = useBackfillRefresh();
  return useMutation({
    mutationFn: (request: BackfillRequest) => api.backfill({ ...request, dryRun: false }, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

export function useCancelBackfill(feedback: Feedback<BackfillDetail, number> = {}) {
  const api = useApi();
  const refresh = useBackfillRefresh();
  return useMutation({
    mutationFn: (id: number) => api.cancelBackfill(id, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

export function useRerunBackfillFailed(feedback: Feedback<BackfillDetail, number> = {}) {
  const api = useApi();
  const refresh = useBackfillRefresh();
  return useMutation({
    mutationFn: (id: number) => api.rerunBackfillFailed(id, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

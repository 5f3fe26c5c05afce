// One hook per engine change the UI makes, each refreshing (or patching) what it changed. What
// the user is told (toasts) is the caller's: it passes onSuccess / onError.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DrainAnswer, RunDetail, SchedulingChange } from '../../../engine/api/engine-api.ts';
import type { ParamValue, RunRecord } from '../../../engine/api/types.ts';
import { UI_ACTOR, useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';

export interface Feedback<T, V> {
  onSuccess?: (result: T, variables: V) => void;
  onError?: (error: Error) => void;
}

function useWorkflowRefresh() {
  const queryClient = useQueryClient();
  return () => {
    for (const queryKey of [keys.workflows(), keys.runs(), keys.dashboard()])
      void queryClient.invalidateQueries({ queryKey });
  };
}

export function useSetEnabled(feedback: Feedback<void, { name: string; enabled: boolean }> = {}) {
  const api = useApi();
  const refresh = useWorkflowRefresh();
  return useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) => api.setEnabled(name, enabled, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

/** A manual run as the Run now form asks for it (engine/api runWorkflow's options). */
export interface RunRequest {
  name: string;
  payload?: string;
  /** only this task ... */
  task?: string;
  /** ... and everything downstream of it */
  downstream?: boolean;
  /** as typed values or text; checked by the engine before the run is created */
  params?: Record<string, ParamValue>;
  /** epoch ms; the engine takes now when absent */
  logicalTime?: number;
}

export function useRunWorkflow(feedback: Feedback<RunRecord, RunRequest> = {}) {
  const api = useApi();
  const refresh = useWorkflowRefresh();
  return useMutation({
    mutationFn: ({ name, ...options }: RunRequest) => api.runWorkflow(name, { actor: UI_ACTOR, ...options }),
    ...feedback,
    onSettled: refresh,
  });
}

export function useRemoveWorkflow(feedback: Feedback<void, string> = {}) {
  const api = useApi();
  const refresh = useWorkflowRefresh();
  return useMutation({
    mutationFn: (name: string) => api.removeWorkflow(name, UI_ACTOR),
    ...feedback,
    onSettled: refresh,
  });
}

/** The engine answers a re-run or a cancel with the run as it is now: that goes into the cache. */
function useRunSettle(runId: number) {
  const queryClient = useQueryClient();
  return (detail: RunDetail) => {
    queryClient.setQueryData(keys.run(runId), detail);
    void queryClient.invalidateQueries({ queryKey: keys.instances() });
  };
}

export function useRerunTask(runId: number, feedback: Feedback<RunDetail, string> = {}) {
  const api = useApi();
  const settle = useRunSettle(runId);
  return useMutation({
    mutationFn: (task: string) => api.rerunTask(runId, task, UI_ACTOR),
    onSuccess: (detail, task) => {
      settle(detail);
      feedback.onSuccess?.(detail, task);
    },
    onError: feedback.onError,
  });
}

/** Every failed task of a finished run and its downstream again, in the same run. */
export function useRerunFailed(runId: number, feedback: Feedback<RunDetail, void> = {}) {
  const api = useApi();
  const settle = useRunSettle(runId);
  return useMutation({
    mutationFn: () => api.rerunFailed(runId, UI_ACTOR),
    onSuccess: (detail) => {
      settle(detail);
      feedback.onSuccess?.(detail, undefined);
    },
    onError: feedback.onError,
  });
}

export function useCancelRun(runId: number, feedback: Feedback<RunDetail, string | undefined> = {}) {
  const api = useApi();
  const settle = useRunSettle(runId);
  return useMutation({
    mutationFn: (task?: string) => api.cancelRun(runId, { task, actor: UI_ACTOR }),
    onSuccess: (detail, task) => {
      settle(detail);
      feedback.onSuccess?.(detail, task);
    },
    onError: feedback.onError,
  });
}

export function useSetSchedulingPaused(feedback: Feedback<SchedulingChange, boolean> = {}) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (paused: boolean) => api.setSchedulingPaused(paused, UI_ACTOR),
    ...feedback,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: keys.scheduling() });
      void queryClient.invalidateQueries({ queryKey: keys.dashboard() });
    },
  });
}

export function useDrainWorker(feedback: Feedback<DrainAnswer, string> = {}) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.drainWorker(id, UI_ACTOR),
    ...feedback,
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.workers() }),
  });
}

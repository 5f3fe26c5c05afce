// One hook per engine read, each with its key from keys.ts and, where the page follows the
// engine live, the events that make it read again. Components call these, never useQuery.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import type { AlertFilter } from '../../../engine/api/alerts.ts';
import type { WorkerRecord } from '../../../engine/api/types.ts';
import { useApi, useEngineEvents, type ApiClient } from '../engine-client/index.ts';
import { keys } from './keys.ts';
import { useEventThrottle, useRefreshOn } from './use-engine-refresh.ts';

/** How long a read of a rarely changing list is fresh (pages that only name workflows). */
const SLOW_MS = 60_000;

/** The dashboard's one query, also started by boot() before the page renders. */
export function dashboardQuery(api: ApiClient) {
  return {
    queryKey: keys.dashboard(),
    // the marks let bench/ui-dashboard.ts tell the engine's answer time from the page's own work
    queryFn: async () => {
      performance.mark('ax:dashboard-asked');
      const data = await api.dashboard();
      performance.mark('ax:dashboard-answered');
      return data;
    },
  };
}

export function useDashboard() {
  const api = useApi();
  // a burst of task changes costs one refetch
  useRefreshOn(['runs', 'workers', 'workflows'], [keys.dashboard()], { windowMs: 400 });
  return useQuery(dashboardQuery(api));
}

/**
 * The workflow list. `live`: the list page, read again on workflow and run events together with
 * its rows' run strips (the detail page's run grid refreshes itself; a second invalidation here
 * would cancel its read and send another). `slow`: pages that only need the names and owners.
 */
export function useWorkflows(options: { live?: boolean; slow?: boolean } = {}) {
  const api = useApi();
  useRefreshOn(options.live ? ['workflows', 'runs'] : [], [keys.workflows(), keys.runStrips()], { windowMs: 500 });
  return useQuery({
    queryKey: keys.workflows(),
    queryFn: () => api.listWorkflows(),
    ...(options.slow && { staleTime: SLOW_MS }),
  });
}

export function useEngineInfo(options: { slow?: boolean } = {}) {
  const api = useApi();
  return useQuery({
    queryKey: keys.engineInfo(),
    queryFn: () => api.engineInfo(),
    ...(options.slow && { staleTime: SLOW_MS }),
  });
}

/**
 * The scheduling pause in force (since, by), null while scheduling runs, undefined until known.
 * Read from engineInfo and again on `workflows` events, which carry each pause and resume, so
 * every open window follows a pause made anywhere (ax pause, the tray).
 */
export function useSchedulingPause() {
  const api = useApi();
  useRefreshOn(['workflows'], [keys.scheduling()], { windowMs: 200 });
  return useQuery({
    queryKey: keys.scheduling(),
    queryFn: async () => (await api.engineInfo()).schedulingPaused ?? null,
  }).data;
}

export function useWorkflowSpec(name: string) {
  const api = useApi();
  return useQuery({
    queryKey: keys.workflowSpec(name),
    queryFn: () => api.exportWorkflow(name),
    retry: false,
    staleTime: SLOW_MS,
  });
}

export function useNextFires(schedule: { cron: string; timezone?: string } | undefined, count = 5) {
  const api = useApi();
  return useQuery({
    queryKey: keys.nextFires(schedule?.cron, schedule?.timezone),
    queryFn: () => api.nextFires({ cron: schedule?.cron ?? '', timezone: schedule?.timezone }, count),
    enabled: !!schedule,
  });
}

export function useRunStrip(workflow: string, count: number) {
  const api = useApi();
  return useQuery({
    queryKey: keys.runStrip(workflow, count),
    queryFn: () => api.listRuns({ workflow, limit: count }),
  });
}

/** One page of a workflow's run grid (`before`: the run id cursor), live by run events. */
export function useRunGrid(workflow: string, before: number | undefined, pageSize: number) {
  const api = useApi();
  useRefreshOn(['runs'], [keys.runGrids(workflow)], { windowMs: 500 });
  return useQuery({
    queryKey: keys.runGrid(workflow, before, pageSize),
    queryFn: () => api.runGrid(workflow, { limit: pageSize, beforeRunId: before }),
    placeholderData: keepPreviousData,
  });
}

/**
 * A run with its instances, kept live: every run or instance event of this run reads it again,
 * at most once per 250 ms (a 1,000-task run emits thousands of events; the page needs the latest
 * state, not every step), at once when quiet. The events carry states only, the reread the times.
 */
export function useRun(runId: number | undefined) {
  const api = useApi();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: keys.run(runId ?? 0),
    queryFn: () => api.getRun(runId as number),
    enabled: runId !== undefined && Number.isFinite(runId),
  });
  const refresh = useEventThrottle(() => void queryClient.invalidateQueries({ queryKey: keys.run(runId as number) }), {
    windowMs: 250,
    leading: true,
  });
  useEngineEvents(runId === undefined ? [] : ['runs'], (event) => {
    if ((event.type !== 'run' && event.type !== 'instance') || event.runId !== runId) return;
    if (event.type === 'instance') void queryClient.invalidateQueries({ queryKey: keys.instance(event.instanceId) });
    refresh();
  });
  return query;
}

export function useInstance(instanceId: number, enabled = true) {
  const api = useApi();
  return useQuery({ queryKey: keys.instance(instanceId), queryFn: () => api.getInstance(instanceId), enabled });
}

/** A log's extent, as the viewer asks for it; the instance page starts the same read early. */
export function useLogInfo(instanceId: number, enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: keys.logInfo(instanceId),
    queryFn: () => api.logInfo(instanceId),
    // live lines extend the range from here on; the page's own early read is used if it is fresh
    staleTime: 2000,
    enabled,
  });
}

export function useSearch(query: string, limit: number, enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: keys.search(query, limit), queryFn: () => api.search(query, limit), enabled });
}

export function useAudit(limit: number) {
  const api = useApi();
  useRefreshOn(['workflows', 'workers', 'runs'], [keys.audit()], { windowMs: 1_500 });
  return useQuery({ queryKey: keys.audit(limit), queryFn: () => api.listAudit(limit) });
}

/** today's states move with every run; a changed definition may change the graph */
export function useLineage(target: string, options: { up: number; down: number }) {
  const api = useApi();
  useRefreshOn(['runs', 'workflows'], [keys.lineage()], { windowMs: 1_000 });
  return useQuery({
    queryKey: keys.lineage(target, options.up, options.down),
    queryFn: () => api.lineage(target, options),
    retry: false,
  });
}

export function useAlerts(state: AlertFilter['state'] | undefined, limit: number) {
  const api = useApi();
  useRefreshOn(['alerts'], [keys.alerts()], { windowMs: 500 });
  return useQuery({
    queryKey: keys.alerts(state, limit),
    queryFn: () => api.listAlerts({ limit, ...(state && { state }) }),
  });
}

export function useAlertChannels() {
  const api = useApi();
  return useQuery({ queryKey: keys.alertChannels(), queryFn: () => api.listAlertChannels() });
}

/**
 * The workers. A worker event carries the whole record: patched in at once, and the list read
 * again shortly after (a worker that left may be gone from it); a task starting or ending changes
 * a worker's load, so run events read it again too (the heartbeat's watch is slower).
 */
export function useWorkers() {
  const api = useApi();
  const queryClient = useQueryClient();
  useEngineEvents(['workers'], (event) => {
    if (event.type === 'worker') patchWorker(queryClient, event.worker);
  });
  useRefreshOn(['workers', 'runs'], [keys.workers()], { windowMs: 1_000 });
  return useQuery({ queryKey: keys.workers(), queryFn: () => api.listWorkers() });
}

function patchWorker(queryClient: QueryClient, worker: WorkerRecord): void {
  queryClient.setQueryData<WorkerRecord[]>(keys.workers(), (list) => {
    if (!list) return list;
    const others = list.filter((w) => w.id !== worker.id);
    return [...others, worker].sort((a, b) => a.id.localeCompare(b.id));
  });
}

/** Drops every cached answer and reads afresh what is shown (a page's Retry after it broke). */
export function useResetServerState(): () => void {
  const queryClient = useQueryClient();
  return () => void queryClient.resetQueries();
}

export function useTaskStats(name: string | undefined) {
  const api = useApi();
  return useQuery({
    queryKey: keys.taskStats(name),
    queryFn: () => (name === undefined ? Promise.resolve([]) : api.taskStats(name)),
    enabled: name !== undefined,
    staleTime: SLOW_MS,
  });
}

// Every TanStack Query key of the UI, made here and nowhere else. Keys are nested so that one
// prefix invalidates a family: keys.runs() covers every run strip and run grid, keys.instances()
// every instance. A run's own detail (keys.run) is deliberately not under keys.runs(): a change
// of a workflow refreshes its lists without refetching every open run page.
export const keys = {
  workflows: () => ['workflows'] as const,
  /** a stored workflow's spec as `ax export` gives it (the run graph) */
  workflowSpec: (name: string) => ['workflow-spec', name] as const,
  engineInfo: () => ['engineInfo'] as const,
  /** the scheduling pause, read from engineInfo but refreshed on its own events */
  scheduling: () => ['scheduling'] as const,
  dashboard: () => ['dashboard'] as const,
  runs: () => ['runs'] as const,
  runStrips: () => ['runs', 'strip'] as const,
  runStrip: (workflow: string, count: number) => ['runs', 'strip', workflow, count] as const,
  runGrids: (workflow: string) => ['runs', 'grid', workflow] as const,
  runGrid: (workflow: string, before: number | undefined, pageSize: number) =>
    ['runs', 'grid', workflow, before, pageSize] as const,
  run: (runId: number) => ['run', runId] as const,
  instances: () => ['instance'] as const,
  instance: (instanceId: number) => ['instance', instanceId] as const,
  logInfo: (instanceId: number) => ['logInfo', instanceId] as const,
  nextFires: (cron: string | undefined, timezone: string | undefined) => ['nextFires', cron, timezone] as const,
  search: (query: string, limit: number) => ['search', query, limit] as const,
  audit: (limit?: number) => (limit === undefined ? (['audit'] as const) : (['audit', limit] as const)),
  lineage: (target?: string, up?: number, down?: number) =>
    target === undefined ? (['lineage'] as const) : (['lineage', target, up, down] as const),
  alerts: (state?: string, limit?: number) =>
    limit === undefined ? (['alerts'] as const) : (['alerts', state, limit] as const),
  alertChannels: () => ['alert-channels'] as const,
  workers: () => ['workers'] as const,
  designerSpec: (name: string | undefined) => ['designer', 'spec', name ?? ''] as const,
  taskStats: (name: string | undefined) => ['designer', 'taskStats', name ?? ''] as const,
  // the desktop shell's own state (window.axDesktop), not the engine's
  desktopSecrets: () => ['desktopSecrets'] as const,
  desktopTeam: () => ['desktopTeam'] as const,
  desktopLocalApi: () => ['desktopLocalApi'] as const,
};

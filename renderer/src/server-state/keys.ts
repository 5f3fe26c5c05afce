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
  /** the runs page across workflows: one keyset page of a filter (its JSON) */
  runList: (filter: string, before: number | undefined, limit: number) =>
    ['runs', 'list', filter, before, limit] as const,
  runLists: () => ['runs', 'list'] as const,
  /** the runs calendar of a query (its JSON) */
  runCalendar: (query: string) => ['runs', 'calendar', query] as const,
  runCalendars: () => ['runs', 'calendar'] as const,
  /** a workflow's duration trends (every N with no lastRuns) */
  durationTrends: (workflow: string, lastRuns?: number) =>
    lastRuns === undefined ? (['trends', workflow] as const) : (['trends', workflow, lastRuns] as const),
  run: (runId: number) => ['run', runId] as const,
  /** under the run's key: whatever refreshes the run refreshes its waits */
  runWaits: (runId: number) => ['run', runId, 'waits'] as const,
  instances: () => ['instance'] as const,
  instance: (instanceId: number) => ['instance', instanceId] as const,
  /** the failure banner's last stderr lines of a finished attempt */
  stderrTail: (instanceId: number, count: number) => ['instance', instanceId, 'stderr-tail', count] as const,
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
  /** every backfill list and detail (one prefix: a run event refreshes them all) */
  backfills: () => ['backfills'] as const,
  backfillList: (workflow: string | undefined, limit: number) => ['backfills', 'list', workflow ?? '', limit] as const,
  backfill: (id: number) => ['backfills', 'one', id] as const,
  /** a dry run of a backfill request (its JSON), for the dialog's preview */
  backfillPreview: (request: string) => ['backfill-preview', request] as const,
  designerSpec: (name: string | undefined) => ['designer', 'spec', name ?? ''] as const,
  taskStats: (name: string | undefined) => ['designer', 'taskStats', name ?? ''] as const,
  /** team mode: the team secrets' names, groups, setters (never values) */
  teamSecrets: () => ['team-secrets'] as const,
  /** who this connection is (team mode: the signed-in person; solo: the local user) */
  whoami: () => ['whoami'] as const,
  /** team mode's people: accounts, groups, tokens (one prefix: a change refreshes them all) */
  people: () => ['people'] as const,
  users: () => ['people', 'users'] as const,
  groups: () => ['people', 'groups'] as const,
  /** the caller's tokens (user undefined), one user's, or everyone's ('*', admins) */
  tokens: (user?: string) => ['people', 'tokens', user ?? ''] as const,
  // the desktop shell's own state (window.axDesktop), not the engine's
  desktopSecrets: () => ['desktopSecrets'] as const,
  desktopTeam: () => ['desktopTeam'] as const,
  desktopLocalApi: () => ['desktopLocalApi'] as const,
};

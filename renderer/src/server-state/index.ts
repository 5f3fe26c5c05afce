// The UI's server state in one place: every query key (keys.ts), one hook per engine read
// (queries.ts) and change (mutations.ts), the designer's spec read (designer.ts) and one-shot
// checks (designer-checks.ts), the crontab import (crontab-import.ts), backfills (backfills.ts), team secrets (team-secrets.ts), the runs page (run-list.ts),
// the run page's waits and stderr tail (run-page.ts), the log viewer's reads
// (log-reads.ts), team mode's people (people.ts), the desktop shell's state (desktop.ts), and the one throttle between engine
// events and refetches (event-throttle.ts, use-engine-refresh.ts). Components import from here, not from
// @tanstack/react-query (the lint rule in eslint.config.js).
export { keys } from './keys.ts';
export * from './queries.ts';
export * from './mutations.ts';
export * from './desktop.ts';
export { designerSpecQuery, useCalledWorkflow, useDesignerSpec } from './designer.ts';
export * from './designer-checks.ts';
export * from './crontab-import.ts';
export * from './backfills.ts';
export * from './team-secrets.ts';
export { useRunCalendar, useRunList } from './run-list.ts';
export * from './run-page.ts';
export { useDurationTrends } from './duration-trends.ts';
export { useLogReader, type LogReader } from './log-reads.ts';
export { EventThrottle } from './event-throttle.ts';
export { useEventThrottle, useRefreshOn } from './use-engine-refresh.ts';
export * from './people.ts';
